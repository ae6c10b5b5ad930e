"""Rule settings: where Truco tables differ, each choice is a setting with a documented default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.errors import InvalidEvent

FALTA_FORMULAS = ("leader", "malas", "dos-faltas", "winner")
TARGETS = (15, 30)  # the points a game is played to
ENVIDO_CREDIT = ("settled", "hand-end")
RESTO_FORMULAS = ("falta+flores", "falta")
CONTRAFLOR_POINTS = range(1, 31)  # no more than a whole game

# Each rule by the name a log writes (``set players 4``) -> the Spanish names it is also read by,
# as docs/rules.md and the tablet name them (``set jugadores 4``, ``set a 15``): one table for
# reading a ``set`` line and for the refusal that lists the rules.  A name of several words is
# read with spaces, hyphens or underscores («mazo en primera», «mazo-en-primera»).
RULE_NAMES: dict[str, tuple[str, ...]] = {
    "players": ("jugadores",),
    "points": ("a", "puntos"),
    "flor": (),
    "falta": ("falta envido",),
    "envido_credit": ("tantos",),
    "mazo_extra": ("mazo en primera",),
    "pica_pica": ("pica-pica",),
    "match": ("partido a chicos", "chicos"),
    "contraflor_points": ("contraflor",),
    "resto": ("al resto",),
}


def rule_key(name: str) -> str:
    """A rule's name as it is compared: lowercase, words joined by ``_``."""
    return "_".join(name.lower().replace("-", " ").replace("_", " ").split())


_RULE_BY_NAME = {rule_key(n): rule for rule, names in RULE_NAMES.items() for n in (rule, *names)}


def rule_named(name: str) -> str | None:
    """The rule (as a log writes it) an English or Spanish name stands for, or None."""
    return _RULE_BY_NAME.get(rule_key(name))


def rule_names_text() -> str:
    """Every rule by its Spanish names, the log's name in brackets where it differs:
    «jugadores» («players»), …, «flor», …"""
    def one(rule: str, names: tuple[str, ...]) -> str:
        spanish = " o ".join(f"«{n}»" for n in names) or f"«{rule}»"
        same = any(rule_key(n) == rule for n in names) or not names
        return spanish if same else f"{spanish} («{rule}»)"
    texts = [one(rule, names) for rule, names in RULE_NAMES.items()]
    return ", ".join(texts[:-1]) + f" y {texts[-1]}"


# The seats in table order for each table size; team A holds the seats named A.
SEATS = {
    2: ("A1", "B1"),
    4: ("A1", "B1", "A2", "B2"),
    6: ("A1", "B1", "A2", "B2", "A3", "B3"),
}


@dataclass(frozen=True)
class Settings:
    """The rules a game is played with (see docs/rules.md for each default and its source)."""

    players: int = 2
    points: int = 30
    flor: bool = False
    falta: str = "leader"
    envido_credit: str = "settled"
    mazo_extra: bool = False
    pica_pica: bool = False
    match: bool = False
    contraflor_points: int = 6
    resto: str = "falta+flores"

    def __post_init__(self) -> None:
        checks = (
            (self.players in SEATS, "players va 2, 4 o 6"),
            (self.points in TARGETS, "points va 15 o 30"),
            (self.falta in FALTA_FORMULAS, f"falta va {', '.join(FALTA_FORMULAS)}"),
            (self.envido_credit in ENVIDO_CREDIT, f"envido_credit va {' o '.join(ENVIDO_CREDIT)}"),
            (self.resto in RESTO_FORMULAS, f"resto va {' o '.join(RESTO_FORMULAS)}"),
            (self.contraflor_points in CONTRAFLOR_POINTS,
             f"contraflor_points va de {CONTRAFLOR_POINTS[0]} a {CONTRAFLOR_POINTS[-1]}"),
            (not self.pica_pica or self.players == 6, "el pica-pica se juega de a 6"),
        )
        for ok, message in checks:
            if not ok:
                raise InvalidEvent(f"regla inválida: {message}")

    @property
    def seats(self) -> tuple[str, ...]:
        return SEATS[self.players]

    @property
    def buenas(self) -> int | None:
        """Where malas end and buenas begin (15 in a 30-point game; none in a 15-point game)."""
        return self.points // 2 if self.points == 30 else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def rule_lines(self) -> list[str]:
        """The ``set`` lines that turn the default rules into these, in the order they can be
        applied (``players`` before ``pica_pica``): a log that starts with them is played with
        these rules."""
        default = Settings()
        return [f"set {f.name} {_value_text(getattr(self, f.name))}" for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)]

    def with_rule(self, name: str, value: str) -> Settings:
        """A copy with one rule changed from its log text (``set flor on``, ``set players 4``)."""
        key = rule_named(name)
        if key is None:
            raise InvalidEvent(f"no conozco la regla «{name}»")
        return replace(self, **{key: _parse_value(name, value, type(getattr(self, key)))})


def _value_text(value: Any) -> str:
    """A rule's value as a log writes it (``on``/``off`` for a yes or no)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _parse_value(name: str, text: str, kind: type) -> Any:
    text = text.strip().lower()
    if kind is bool:
        if text in ("on", "si", "sí", "yes", "true", "1"):
            return True
        if text in ("off", "no", "false", "0"):
            return False
        raise InvalidEvent(f"valor inválido «{text}» para {name}: se escribe on u off")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise InvalidEvent(f"valor inválido «{text}» para {name}: va un número") from None
    return text

"""The 40-card Spanish deck: cards, their truco ranking, and envido and flor values."""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


class Suit(enum.Enum):
    """The four suits, with the letter used in logs (e espadas, b bastos, o oros, c copas)."""

    ESPADAS = "e"
    BASTOS = "b"
    OROS = "o"
    COPAS = "c"

    @property
    def nombre(self) -> str:
        return self.name.lower()


RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
FIGURES: tuple[int, ...] = (10, 11, 12)  # sota, caballo, rey: they count 0 for envido and flor

_SUIT_WORDS = {s.nombre: s for s in Suit}


class InvalidCard(ValueError):
    """A text that does not name a card of the Spanish deck."""


@dataclass(frozen=True, order=False)
class Card:
    """One card: rank 1-7, 10, 11 or 12, and a suit.  ``str(Card.parse("7o")) == "7o"``."""

    rank: int
    suit: Suit
    # Derived once: cards are compared, hashed and printed on every event the engine checks.
    text: str = field(init=False, repr=False, compare=False)
    power: int = field(init=False, repr=False, compare=False)
    """Truco strength: higher beats lower, equal powers tie (parda)."""

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise InvalidCard(f"no hay cartas de {self.rank}: el mazo español tiene 1-7, 10, 11 y 12")
        object.__setattr__(self, "text", f"{self.rank}{self.suit.value}")
        object.__setattr__(self, "power", _POWER[(self.rank, self.suit)])

    def __hash__(self) -> int:
        return hash(self.text)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse "7o", "12b", "1e", or "07-oros" (the face-image file naming)."""
        t = text.strip().lower()
        try:
            if "-" in t:
                rank_text, suit_word = t.split("-", 1)
                return cls(int(rank_text), _SUIT_WORDS[suit_word])
            return cls(int(t[:-1]), Suit(t[-1]))
        except (ValueError, KeyError, IndexError) as err:
            if isinstance(err, InvalidCard):
                raise
            raise InvalidCard(f"«{text.strip()}» no es una carta: se escribe el número y la letra del "
                              "palo, p. ej. 7o, 1e, 12b") from err

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def envido_points(self) -> int:
        """Value for envido and flor: 10, 11 and 12 count 0, the others their number."""
        return 0 if self.rank in FIGURES else self.rank

    @property
    def nombre(self) -> str:
        return f"{self.rank} de {self.suit.nombre}"


# Truco ranking from the highest: 1e > 1b > 7e > 7o > 3 > 2 > 1 (copas, oros) > 12 > 11 > 10
# > 7 (copas, bastos) > 6 > 5 > 4.  Cards on one line tie.
_RANKING: tuple[tuple[tuple[int, Suit], ...], ...] = (
    ((1, Suit.ESPADAS),),
    ((1, Suit.BASTOS),),
    ((7, Suit.ESPADAS),),
    ((7, Suit.OROS),),
    tuple((3, s) for s in Suit),
    tuple((2, s) for s in Suit),
    ((1, Suit.COPAS), (1, Suit.OROS)),
    tuple((12, s) for s in Suit),
    tuple((11, s) for s in Suit),
    tuple((10, s) for s in Suit),
    ((7, Suit.COPAS), (7, Suit.BASTOS)),
    tuple((6, s) for s in Suit),
    tuple((5, s) for s in Suit),
    tuple((4, s) for s in Suit),
)
_POWER = {key: len(_RANKING) - i for i, line in enumerate(_RANKING) for key in line}

DECK: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in RANKS)

MAX_ENVIDO = 33
MAX_FLOR = 38


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards, refusing repeats."""
    cards = tuple(Card.parse(t) for t in texts)
    repeated = [str(c) for c in dict.fromkeys(c for c in cards if cards.count(c) > 1)]
    if repeated:
        template = "la carta {} está repetida" if len(repeated) == 1 else "las cartas {} están repetidas"
        raise InvalidCard(template.format(_spoken_list(repeated)))
    return cards


def _spoken_list(words: Sequence[str]) -> str:
    """Words joined the way they are said: «7o», «7o y 1o», «7o, 1o y 3e»."""
    return f"{', '.join(words[:-1])} y {words[-1]}" if len(words) > 1 else "".join(words)


def envido_value(cards: Iterable[Card]) -> int:
    """Envido of a hand: 20 + the best two of one suit, else the highest single value."""
    cards = tuple(cards)
    pairs = [20 + a.envido_points + b.envido_points
             for a, b in itertools.combinations(cards, 2) if a.suit == b.suit]
    if pairs:
        return max(pairs)
    return max((c.envido_points for c in cards), default=0)


def has_flor(cards: Iterable[Card]) -> bool:
    """Three cards of one suit."""
    cards = tuple(cards)
    return len(cards) == 3 and len({c.suit for c in cards}) == 1


def flor_value(cards: Iterable[Card]) -> int:
    """Flor of three cards of one suit: 20 + all three values."""
    cards = tuple(cards)
    if not has_flor(cards):
        held = _spoken_list([str(c) for c in cards]) or "una mano sin cartas"
        raise InvalidCard(f"no hay flor en {held}: la flor son tres cartas del mismo palo")
    return 20 + sum(c.envido_points for c in cards)


def envido_values_made(cards: Iterable[Card]) -> set[int]:
    """Every envido these cards make: any same-suit pair, or any single card.

    Singing a smaller number the cards also make (one card instead of the pair) is not a lie (it
    only risks losing); singing a number the cards do not make is, more or less than they hold.
    """
    cards = tuple(cards)
    pairs = {20 + a.envido_points + b.envido_points
             for a, b in itertools.combinations(cards, 2) if a.suit == b.suit}
    return pairs | {c.envido_points for c in cards}


def is_possible_envido(points: int, flor: bool = False) -> bool:
    """Whether a declared number can be an envido (0-7, 20-33) or, with flor, a flor (20-38)."""
    if flor:
        return 20 <= points <= MAX_FLOR
    return 0 <= points <= 7 or 20 <= points <= MAX_ENVIDO

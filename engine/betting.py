"""Bet values as tables: truco levels, envido chains, flor levels, and the falta envido formulas."""

from __future__ import annotations

from collections.abc import Mapping

from engine.events import Call, Team
from engine.settings import Settings

# Truco: the level a call proposes.  Accepted it is worth its level; refused, one less.
TRUCO_LEVEL: dict[Call, int] = {Call.TRUCO: 2, Call.RETRUCO: 3, Call.VALE_CUATRO: 4}
TRUCO_NAME: dict[int, Call] = {level: call for call, level in TRUCO_LEVEL.items()}

E, R, F = Call.ENVIDO, Call.REAL_ENVIDO, Call.FALTA_ENVIDO

# Every legal envido chain -> (points if accepted, points if refused).  None = the falta value.
# Refused = what was accepted before the last raise, at least 1.
ENVIDO_CHAINS: dict[tuple[Call, ...], tuple[int | None, int]] = {
    (E,): (2, 1),
    (R,): (3, 1),
    (F,): (None, 1),
    (E, E): (4, 2),
    (E, R): (5, 2),
    (E, F): (None, 2),
    (R, F): (None, 3),
    (E, E, R): (7, 4),
    (E, E, F): (None, 4),
    (E, R, F): (None, 5),
    (E, E, R, F): (None, 7),
}

FLOR_POINTS = 3  # each flor sung


def envido_worth(chain: tuple[Call, ...]) -> tuple[int | None, int]:
    """(accepted, refused) for a chain; accepted None means the falta envido value."""
    return ENVIDO_CHAINS[chain]


def falta_points(settings: Settings, score: Mapping[Team, int], winner: Team | None) -> int:
    """Points a falta envido is worth, by the table's formula.

    leader: what the leading team needs to win.  malas: while the leader is in malas the falta
    wins the game, otherwise as leader.  dos-faltas: in malas, what the leader needs to reach
    buenas; in buenas, what it needs to win.  winner: what the envido's winner needs to win.
    """
    target = settings.points
    lead = max(score["A"], score["B"])
    buenas = settings.buenas
    in_malas = buenas is not None and lead < buenas
    if settings.falta == "winner" or (settings.falta == "malas" and in_malas):
        assert winner is not None, "the falta envido needs its winner under this formula"
        return max(target - score[winner], 1)
    if settings.falta == "dos-faltas" and in_malas:
        assert buenas is not None
        return max(buenas - lead, 1)
    return max(target - lead, 1)


def falta_needs_winner(settings: Settings, score: Mapping[Team, int]) -> bool:
    lead = max(score["A"], score["B"])
    buenas = settings.buenas
    return settings.falta == "winner" or (
        settings.falta == "malas" and buenas is not None and lead < buenas)


# Flor levels after the flor itself: a raise needs the raiser to have flor too.
FLOR_RAISES = (Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO)


def flor_level_points(settings: Settings, level: Call | None, flowers: int,
                      score: Mapping[Team, int], winner: Team | None) -> int:
    """What a flor contest is worth at a level: the flor (3 per flor sung), contraflor (a
    setting, 6 by default), or contraflor al resto (the falta value, plus 3 per flor with the
    default ``resto = falta+flores``)."""
    if level is None:
        return FLOR_POINTS * flowers
    if level is Call.CONTRAFLOR:
        return settings.contraflor_points
    resto = falta_points(settings, score, winner)
    return resto + (FLOR_POINTS * flowers if settings.resto == "falta+flores" else 0)


def flor_refused_points(settings: Settings, chain: tuple[Call, ...], own_flowers: int) -> int:
    """What the team that sang (or raised) last gets when the other gives up with
    "con flor me achico": its own flors at 3 each after a plain flor; one more point after a
    contraflor or a direct contraflor al resto; the contraflor's value when a contraflor al resto
    follows a contraflor (what was wanted before the last raise)."""
    if not chain:
        return FLOR_POINTS * own_flowers
    if len(chain) == 1:
        return FLOR_POINTS * own_flowers + 1
    return settings.contraflor_points

"""Rounds: who wins a round from the cards, and who wins the hand from the rounds (pardas)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from engine.cards import Card
from engine.events import Team, team_of

PARDA = "parda"
RoundWinner = Literal["A", "B", "parda"]


def round_winner(plays: Iterable[tuple[str, Card]]) -> tuple[RoundWinner, str | None]:
    """The round's result and the seat that leads the next round (None for a parda).

    The highest card wins; equal highest cards of one team win for that team (partners do not
    make a parda), of both teams make a parda.
    """
    plays = list(plays)
    top = max(card.power for _, card in plays)
    best = [seat for seat, card in plays if card.power == top]
    teams = {team_of(seat) for seat in best}
    if len(teams) == 1:
        return team_of(best[0]), best[0]
    return "parda", None


def hand_winner(results: Sequence[RoundWinner], mano_team: Team) -> Team | None:
    """The hand's winner from its round results so far, or None while it is undecided.

    Two rounds won take the hand.  A parda after a decided first round goes to the first round's
    winner; a first-round parda is decided by the next decided round; three pardas go to mano.
    """
    decided = [r for r in results if r != PARDA]
    for team in ("A", "B"):
        if decided.count(team) >= 2:
            return team
    if len(results) >= 2 and results[0] != PARDA and PARDA in results[1:]:
        return results[0]  # type: ignore[return-value]
    if results and results[0] == PARDA and decided:
        return decided[0]  # type: ignore[return-value]
    if len(results) == 3:
        return mano_team
    return None

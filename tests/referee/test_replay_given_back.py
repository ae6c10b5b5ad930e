"""What ``truco-referee replay`` says of the points a finished game had left out, given back when a
correction or a false show took the target back (rules.md §5, §12): with the event that gave
them, not in the hand's line as if the hand had scored them when it was played."""

from __future__ import annotations

import pytest

from referee.commands.replay import summary
from referee.replay import replay

LEFT_OUT = "se anotan los puntos que la partida había dejado afuera"

# Credited at hand end, A's envido (a false 33: A1 shows 4o 5o, 29) takes A to 30, and B's truco
# (2) is left out.
ENVIDO_THEN_TRUCO_LEFT_OUT = [
    "set tantos hand-end", "puntos A +28", "puntos B +20", "mano",
    "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "B1: truco", "A1: quiero",
    "A1 juega 4c", "B1 juega 1e", "B1 juega 1b", "A1 juega 4o",
]


def summary_lines(*more: str) -> list[str]:
    result = replay(ENVIDO_THEN_TRUCO_LEFT_OUT + list(more))
    assert not result.rejected, result.rejected
    return summary(result).splitlines()


def test_the_points_a_correction_gives_back_are_said_with_the_correction() -> None:
    # before: «mano 1 (es mano A1): envido A+2, truco B+2» and then «corrección: A -1»
    assert summary_lines("puntos A -1") == [
        "corrección: A +28", "corrección: B +20",
        "mano 1 (es mano A1): envido A+2",
        f"corrección: A -1; {LEFT_OUT}: truco B+2",
        "tanteador: A 29 — B 22; la partida sigue"]


def test_the_points_a_false_show_gives_back_are_said_after_the_show() -> None:
    assert summary_lines("A1 muestra 4o 5o")[2:] == [
        f"mano 1 (es mano A1): envido B+2; tras la muestra de A1, {LEFT_OUT}: truco B+2",
        "tanteador: A 28 — B 24; la partida sigue"]


def test_a_correction_that_gives_nothing_back_is_said_as_before() -> None:
    lines = summary_lines("puntos A -1", "puntos A +1")[2:]
    assert lines[0] == "mano 1 (es mano A1): envido A+2"
    assert lines[2] == "corrección: A +1"


@pytest.mark.parametrize(("more", "after"), [(("puntos A -1",), "points A -1"),
                                             (("A1 muestra 4o 5o",), "A1 shows 4o 5o")])
def test_the_json_says_which_points_were_given_back_and_by_what(more: tuple[str, ...],
                                                                 after: str) -> None:
    data = replay(ENVIDO_THEN_TRUCO_LEFT_OUT + list(more)).to_dict()
    hand = data["hands"][0]
    assert hand["truco"] == {"A": 0, "B": 2}    # the hand's points, the given back ones included
    [later] = hand["scored_later"]
    assert later == {"category": "truco", "team": "B", "points": 2, "event": later["event"],
                     "after": after}
    assert data["log"][later["event"]] == after
    # the hands and the corrections add up to the score
    corrections = {"A": 28 - (1 if after.startswith("points") else 0), "B": 20}
    for team in ("A", "B"):
        total = sum(hand[c][team] for c in ("envido", "flor", "truco"))
        assert total + corrections[team] == data["score"][team]


# With mazo_extra, B at 29: A1 leaves in the first round with nothing called; the extra point
# («mazo en primera», which the game counts with the envido) takes B to 30 and the truco's
# point is left out. The extra point is scored before the truco, so it is never the one left out.
MAZO_POINT_ENDS_THE_GAME = ["set mazo en primera sí", "puntos B +29", "mano",
                            "A1: me voy al mazo"]


@pytest.mark.parametrize(("correction", "end"), [
    ("puntos B -1", "tanteador: A 0 — B 30; ganó B"),
    ("puntos B -2", "tanteador: A 0 — B 29; la partida sigue"),
])
def test_the_truco_left_out_after_the_mazo_point_is_given_back_with_the_correction(
        correction: str, end: str) -> None:
    result = replay(MAZO_POINT_ENDS_THE_GAME + [correction])
    assert not result.rejected, result.rejected
    assert summary(result).splitlines() == [
        "corrección: B +29",
        "mano 1 (es mano A1): mazo en primera B+1",
        f"corrección: B {correction.split()[-1]}; {LEFT_OUT}: truco B+1",
        end]
    [hand] = result.to_dict()["hands"]
    assert hand["envido"] == {"A": 0, "B": 1} and hand["truco"] == {"A": 0, "B": 1}
    assert [(later["category"], later["after"]) for later in hand["scored_later"]] == [
        ("truco", f"points B {correction.split()[-1]}")]


def test_the_mazo_point_that_ends_the_game_leaves_the_truco_out() -> None:
    result = replay(MAZO_POINT_ENDS_THE_GAME)
    assert summary(result).splitlines()[1:] == [
        "mano 1 (es mano A1): mazo en primera B+1", "tanteador: A 0 — B 30; ganó B"]
    assert result.scored_later() == {}

"""A phrase whose first call ends the hand («no quiero … envido» to a truco, «me voy al mazo …
truco»): the call said after it belongs to the hand that ended, and is refused, whether the
phrase is handed over whole or in parts, in ``listen`` and on the tablet.  The next hand is dealt
by a call that begins a phrase."""

from __future__ import annotations

import pytest

from engine import Settings
from referee.table import Table
from tests.referee.two_front_ends import Call, in_parts, run, whole

TRUCO = ("hand", "A1: truco")
ENDS = [("no quiero", "envido"), ("me voy al mazo", "truco"), ("no quiero", "real envido")]


@pytest.mark.parametrize("first, then", ENDS)
@pytest.mark.parametrize("early", [[1], [1, 1]])  # the rest at the end, or early too
@pytest.mark.parametrize("doubtful", [False, True])
def test_a_call_after_the_one_that_ended_the_hand_is_refused_in_parts_as_whole(
        first: str, then: str, early: list[int], doubtful: bool) -> None:
    calls = [Call(first, 0.95), Call(then, 0.3 if doubtful else 0.95)]
    said_whole = run(TRUCO, whole(calls))
    assert said_whole.listened == said_whole.tablet == [*TRUCO, f"B1: {first}"]
    parts = run(TRUCO, in_parts(calls, early))
    # before: the later part dealt the next hand and was applied in it (sure), or waited for a
    # tap that would deal it (doubtful)
    assert parts.listened == parts.tablet == said_whole.listened
    assert not parts.troubles


def test_the_tablet_shows_the_later_call_refused_not_waiting_for_a_tap() -> None:
    from tests.referee.two_front_ends import Both, tablet

    with tablet() as service:
        both = Both(service, TRUCO)
        for step in in_parts([Call("no quiero", 0.95), Call("envido", 0.3)], [1]):
            both.step(*step)
        envido = service.snapshot()["heard"][0]
        assert envido["extra"]["words"] == "envido"
        # before: «dudoso: tocá para confirmar», and a tap dealt the next hand for it
        assert envido["status"] == "rejected"
        assert envido["extra"]["hand"] == 1  # said in the hand that ended
        printed = [r for r in both.out.getvalue().splitlines() if '"call": "envido"' in r]
        assert '"accepted": false' in printed[-1] and '"unsure": false' in printed[-1]


def test_the_next_phrase_deals_the_next_hand() -> None:
    calls = [Call("no quiero", 0.95), Call("envido", 0.95)]
    steps = [*in_parts(calls, [1]), *in_parts([Call("envido", 0.95)], [1], phrase=2, start=5.0)]
    ended = run(TRUCO, steps)
    assert ended.listened == ended.tablet == [*TRUCO, "B1: no quiero", "hand", "B1: envido"]


@pytest.mark.parametrize("said", [
    # the «quiero» is refused, the truco deals the next hand (before: read in the hand over, and
    # refused, while ``hear`` applies it)
    "quiero truco",
    "truco no quiero envido",
    "quiero me voy al mazo truco",
])
def test_read_calls_reads_a_phrase_begun_after_the_hand_ended_as_hear_applies_it(
        said: str) -> None:
    table = Table(Settings())
    for line in ("hand", "A1: me voy al mazo"):
        table.apply_line(line)
    at = len(table.lines)
    calls = [(i.heard.text, None) for i in table.preview(said) if i.call is not None]
    read = table.read_calls(calls, at)
    assert read is not None and len(read) == len(calls)
    table.hear(said)
    assert table.lines[at] == "hand"
    assert [x.split(" → ")[0] for x in read if x is not None] == table.lines[at + 1:]

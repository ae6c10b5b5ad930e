"""What the items of a heard phrase wait for (``referee.doubt.Held``), the rule ``listen`` and the
scoreboard share."""

from __future__ import annotations

import pytest

from referee.doubt import Held, Said, verdict
from referee.table import Table

# (the calls of a phrase, which are held on their own, a declaration held before the phrase)
# → what each item waits for
CASES = [
    ([("envido", True), ("real envido", False)], None, [None, "envido"]),
    ([("envido", True), (None, False), ("quiero", False)], None, [None, None, "envido"]),
    ([("truco", False), ("envido", True), ("quiero", False), ("retruco", False)], None,
     [None, None, "envido", "quiero"]),
    ([("puntos", False)], "treinta", ["treinta"]),
    ([("truco", False), ("son buenas", False)], "treinta", [None, "treinta"]),
    ([("puntos", True), ("puntos", False)], "treinta", ["treinta", "puntos"]),
    ([(None, False)], "treinta", [None]),
]


@pytest.mark.parametrize("phrase, declaration, waits", CASES)
def test_what_each_item_of_a_phrase_waits_for(
        phrase: list[tuple[str | None, bool]], declaration: str | None,
        waits: list[str | None]) -> None:
    held: Held[str] = Held(declaration)
    found = []
    for call, doubtful in phrase:
        before = held.before(call)
        found.append(before)
        held.add(str(call), call, doubtful or before is not None)
    assert found == waits


def test_a_declaration_held_holds_the_phrase_and_the_hand() -> None:
    held: Held[str] = Held()
    assert held.add("treinta", "puntos", True)
    assert held.before("truco") == "treinta" and held.declaration == "treinta"
    assert not held.add("truco", "truco", True) and held.declaration == "treinta"


# (the lines before the phrase, its calls: each one's words and whether it is doubtful)
# → what each waits for, the held ones read with it and without it from where the phrase began
READ_CASES = [
    # B's raise after A's envido, A's own bet without it
    (["hand"], [("envido", True), ("real envido", False)], [None, "envido"]),
    # with the envido the «quiero» accepts it; without it, the truco
    (["hand", "A1: truco"], [("envido", True), ("quiero", False)], [None, "envido"]),
    # A's vale cuatro with the «quiero» to B's retruco or without it
    (["hand", "A1: truco", "B1: retruco"], [("quiero", True), ("vale cuatro", False)],
     [None, None]),
    # the «quiero» now accepts the real envido it waits for, not the truco: held from the first
    (["hand", "A1: truco"], [("envido", True), ("real envido", False), ("quiero", False)],
     [None, "envido", "real envido"]),
    # A's falta envido either way, but a raise of the envido and real envido, or the first bet
    (["hand"], [("envido", True), ("real envido", False), ("falta envido", False)],
     [None, "envido", "real envido"]),
    # the rules refuse the truco after the envido: it waits (what refused it may go)
    (["hand"], [("envido", True), ("truco", False)], [None, "envido"]),
    # a vale cuatro to A's own envido is refused with the doubtful «envido» or without it: it
    # waits for nothing (and is refused: no tap could ever apply it)
    (["hand", "A1: envido"], [("envido", True), ("vale cuatro", False)], [None, None]),
]


@pytest.mark.parametrize("lines, phrase, waits", READ_CASES)
def test_a_call_waits_only_if_the_held_ones_can_change_it(
        lines: list[str], phrase: list[tuple[str, bool]], waits: list[str | None]) -> None:
    table = Table()
    for line in lines:
        table.apply_line(line)
    held: Held[str] = Held(read=lambda calls: table.read_calls(calls, len(lines)))
    found = []
    for words, doubtful in phrase:
        said: Said = (words, None)
        before = held.before(words, said)
        found.append(before)
        held.add(words, words, doubtful or before is not None, said)
    assert found == waits
    assert table.lines == lines


# (the call, whether the rules take it, whether it is doubtful, whether it waits for one before)
# → what becomes of it, in ``listen`` and on the tablet alike
VERDICTS = [
    (None, False, True, True, "look-alike"),
    ("quiero", False, True, False, "refused"),  # a tap could not apply it: nothing waits for it
    ("quiero", False, False, True, "waits"),  # what refused it may be the one it waits for
    ("truco", True, True, True, "waits"),
    ("truco", True, True, False, "unsure"),
    ("truco", True, False, False, "applied"),
]


@pytest.mark.parametrize("call, accepted, doubtful, waits, shown", VERDICTS)
def test_what_becomes_of_a_heard_item(call: str | None, accepted: bool, doubtful: bool,
                                      waits: bool, shown: str) -> None:
    assert verdict(call, accepted, doubtful, waits) == shown

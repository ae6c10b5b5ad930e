"""What the items of a heard phrase wait for (``referee.doubt.Held``), the rule ``listen`` and the
scoreboard share."""

from __future__ import annotations

import pytest

from referee.doubt import Held

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


def test_a_declaration_the_rules_refuse_holds_the_phrase_but_not_the_hand() -> None:
    held: Held[str] = Held()
    assert not held.add("treinta", "puntos", True, counts=False)
    assert held.before("truco") == "treinta" and held.declaration is None
    assert held.add("veintiocho", "puntos", True)
    assert held.declaration == "veintiocho"

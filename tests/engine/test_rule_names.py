"""A rule is named in a ``set`` line by the name the log writes or by its Spanish names."""

from __future__ import annotations

from dataclasses import fields

import pytest

from engine import InvalidEvent, Settings
from engine.settings import RULE_NAMES, rule_named


def test_every_rule_has_one_row_in_the_names_table() -> None:
    assert list(RULE_NAMES) == [f.name for f in fields(Settings)]


def test_no_name_stands_for_two_rules() -> None:
    for rule, names in RULE_NAMES.items():
        for name in (rule, *names):
            assert rule_named(name) == rule, name


@pytest.mark.parametrize(("name", "value", "changed"), [
    ("jugadores", "4", {"players": 4}),
    ("a", "15", {"points": 15}),
    ("falta envido", "malas", {"falta": "malas"}),
    ("mazo-en-primera", "on", {"mazo_extra": True}),
    ("pica-pica", "off", {"pica_pica": False}),
])
def test_a_spanish_name_changes_its_rule(name: str, value: str, changed: dict[str, object]) -> None:
    # before: «no conozco la regla 'jugadores'»
    assert Settings().with_rule(name, value) == Settings(**changed)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "value", "said"), [
    ("flor", "quizás", "valor inválido «quizás» para flor: se escribe on u off"),
    ("jugadores", "cuatro", "valor inválido «cuatro» para jugadores: va un número"),
    ("nada", "7", "no conozco la regla «nada»"),
])
def test_a_bad_rule_or_value_is_quoted_like_every_message(name: str, value: str, said: str) -> None:
    # before: «valor inválido 'quizás' para flor: …», Python's quotes
    with pytest.raises(InvalidEvent) as err:
        Settings().with_rule(name, value)
    assert err.value.reason == said

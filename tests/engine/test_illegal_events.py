"""Illegal events are refused with a plain reason and leave the state exactly as it was."""

from __future__ import annotations

import pytest
from engine_steps import ev, new_game, refused, steps

from engine import Adjust, Game, IllegalEvent, InvalidEvent, SetRule, Settings, snapshot
from engine.events import in_spanish

NEXT_HAND = "la mano ya terminó: falta repartir la siguiente («mano»)"

# (events before, the refused event, part of the reason)
ILLEGAL: list[tuple[tuple[str, ...], str, str]] = [
    ((), "A1: truco", "todavía no se repartió"),
    ((), "A1 plays 4c", "todavía no se repartió"),
    (("hand",), "hand", "la mano anterior no terminó"),
    (("hand", "A1: truco", "B1: quiero"), "A1: retruco", "solo puede subir B"),
    (("hand", "A1: truco"), "A1: retruco", "A ya cantó, falta la respuesta de B"),
    (("hand", "A1 plays 4c", "B1 plays 5c"), "B1: envido", "solo en la primera vuelta"),
    (("hand",), "B1: quiero", "no hay nada cantado para contestar"),
    (("hand",), "A1: no quiero", "no hay nada cantado para contestar"),
    (("hand",), "B1 plays 4c", "le toca a A1"),
    (("hand", "A1 plays 4c"), "B1 plays 4c", "esa carta ya está en la mesa"),
    (("hand", "A1 plays 4c"), "A1 plays 5c", "ya jugó en esta vuelta"),
    (("hand",), "A1: 28", "no hay tantos para decir ahora"),
    (("hand",), "A1: son buenas", "no hay tantos para decir ahora"),
    (("hand", "A1: envido", "B1: quiero"), "A1: 12", "12 no es un envido posible"),
    (("hand", "A1: envido", "B1: quiero"), "B1: 28", "le toca decir a A1"),
    (("hand", "A1: envido", "B1: quiero"), "A1: truco", "faltan los tantos del envido"),
    (("hand", "A1: envido", "B1: quiero"), "round A", "faltan los tantos del envido"),
    (("hand", "A1: envido", "B1: quiero"), "hand A", "faltan los tantos del envido"),
    (("hand", "A1: truco"), "hand A", "B tiene que contestar el truco"),
    (("hand", "A1: truco"), "round B", "B tiene que contestar el truco"),
    (("hand",), "envido A", "no hay tantos por decidir"),
    (("hand",), "A1 shows 7o 6o", "no hay envido ganado para mostrar"),
    (("hand", "hand A"), "B1: truco", "la mano ya terminó"),
    (("hand", "hand A"), "round A", "la mano ya terminó"),
    (("hand", "hand A"), "A1: me voy al mazo", "la mano ya terminó"),
    (("hand", "hand A"), "B1 plays 4c", f"B1 juega 4c: {NEXT_HAND}"),
    (("hand", "A1: truco", "B1: no quiero"), "B1: quiero", f"B1: quiero: {NEXT_HAND}"),
    (("hand", "A1: envido", "B1: no quiero"), "A1: envido", "el envido ya se jugó"),
    (("hand",), "A1: vale cuatro", "primero va el truco"),
    (("points A 29", "hand", "hand A"), "hand", "la partida terminó"),
    (("hand",), "points A -1", "el puntaje no puede quedar negativo"),
]


@pytest.mark.parametrize(("before", "event", "reason"), ILLEGAL)
def test_refused_and_nothing_changes(before: tuple[str, ...], event: str, reason: str) -> None:
    game = new_game(hand=False)
    steps(game, *before)
    refused(game, event, reason)


def test_rules_change_only_between_hands() -> None:
    game = new_game()
    refused(game, SetRule("flor", "on"), "las reglas se cambian entre manos")
    steps(game, "hand A")
    game.apply(SetRule("flor", "on"))
    assert game.settings.flor
    refused(game, SetRule("players", "4"), "la cantidad de jugadores se elige antes de empezar")


@pytest.mark.parametrize(("rule", "value"), [("players", "3"), ("points", "20"), ("falta", "x"),
                                             ("flor", "maybe"), ("color", "red")])
def test_invalid_settings_are_refused(rule: str, value: str) -> None:
    game = Game(Settings())
    before = snapshot(game)
    with pytest.raises(InvalidEvent):
        game.apply(SetRule(rule, value))
    assert snapshot(game) == before


@pytest.mark.parametrize("delta", [0, 31, -31])
def test_invalid_corrections_are_refused(delta: int) -> None:
    game = new_game()
    before = snapshot(game)
    with pytest.raises(InvalidEvent):
        game.apply(Adjust("A", delta))
    assert snapshot(game) == before


def test_undo_with_nothing_to_undo() -> None:
    with pytest.raises(IllegalEvent, match="no hay nada para deshacer"):
        Game().undo()


@pytest.mark.parametrize("before", [(), ("hand",), ("points A 29", "hand", "hand A")],
                         ids=["before-the-first-hand", "in-a-hand", "after-the-end"])
def test_an_unknown_rule_is_named_whatever_the_moment(before: tuple[str, ...]) -> None:
    game = new_game(hand=False)
    steps(game, *before)
    reason = refused(game, SetRule("nonsense", "7"), "no conozco la regla «nonsense»")
    assert reason.startswith("set nonsense 7: ")  # before, in a hand: «se cambian entre manos»


# (events before, the refused event, the whole reason): a refusal quotes its event in the
# notation's Spanish words, as the tablet teaches them (before: «points A +0: …», «hand: …»,
# «envido aside: …», «A1 shows 7o 6o: …»)
SPANISH_QUOTES: list[tuple[tuple[str, ...], str, str]] = [
    (("hand",), "points A +0", "puntos A +0: corregí entre -30 y +30, sin cero"),
    (("hand",), "points B -3", "puntos B -3: el puntaje no puede quedar negativo"),
    (("hand",), "hand", "mano: la mano anterior no terminó"),
    (("points A 29", "hand", "hand A"), "hand", "mano: la partida terminó"),
    (("hand",), "envido aside", "envido aparte: no hay tantos por decir"),
    ((), "round parda", "vuelta parda: todavía no se repartió la mano"),
    ((), "hand B", "mano B: todavía no se repartió la mano"),
    ((), "A1 plays 4c", "A1 juega 4c: todavía no se repartió la mano"),
    ((), "A1 shows 7o 6o", "A1 muestra 7o 6o: no hay mano para mostrar"),
    (("points A 29", "hand", "hand A"), "round A", "vuelta A: la partida terminó"),
    (("hand", "hand A"), "round B", f"vuelta B: {NEXT_HAND}"),  # the hand's own refusals
    (("hand", "hand A"), "round parda", f"vuelta parda: {NEXT_HAND}"),
    (("hand", "hand A"), "hand B", f"mano B: {NEXT_HAND}"),
]


@pytest.mark.parametrize(("before", "event", "reason"), SPANISH_QUOTES)
def test_a_refusal_quotes_its_event_in_spanish(before: tuple[str, ...], event: str,
                                               reason: str) -> None:
    game = new_game(hand=False)
    steps(game, *before)
    assert refused(game, event, reason) == reason


@pytest.mark.parametrize(("english", "spanish"), [
    ("A1 plays 4c", "A1 juega 4c"), ("B2 shows 7o 6o", "B2 muestra 7o 6o"),
    ("round parda", "vuelta parda"), ("round A B1", "vuelta A B1"), ("hand", "mano"),
    ("hand B A2", "mano B A2"), ("points A -2", "puntos A -2"), ("envido aside", "envido aparte"),
    ("envido aside A3", "envido aparte A3"), ("envido B", "envido B"), ("A1: truco", "A1: truco"),
    ("B1: 28", "B1: 28"),
])
def test_the_spanish_words_leave_the_log_notation_as_it_was(english: str, spanish: str) -> None:
    event = ev(english)
    assert (str(event), in_spanish(event)) == (english, spanish)
    assert in_spanish(SetRule("points", "15")) == str(SetRule("points", "15")) == "set points 15"

"""The rules.md [choice] markings that no other test pins down by name: each test fails if the
choice changes."""

from __future__ import annotations

from engine_steps import new_game, refused, step, steps

from engine import Settings


def test_the_house_rules_are_off_by_default() -> None:
    """Settings table: `mazo_extra` and `pica_pica` are [choice] house rules, off unless set."""
    settings = Settings()
    assert settings.mazo_extra is False and settings.pica_pica is False


def test_six_players_in_the_middle_of_the_game_play_full_hands_without_pica_pica() -> None:
    game = new_game(hand=False, players=6)
    steps(game, "points B 10", "hand")
    assert len(game.deal) == 1 and game.deal[0].seats == Settings(players=6).seats


def test_a_call_is_not_held_to_the_turn_of_the_cards() -> None:
    """§3: a seat may call and answer the envido, and sing flor, while another is due to play."""
    game = new_game(players=4, flor=True)
    assert game.hand is not None and game.hand.turn() == "A1"
    step(game, "B2: envido")                 # A1 is due to play
    step(game, "A2: flor")                   # a flor answers it, A1 still due
    game = new_game(players=4)
    steps(game, "B2: truco", "A2: envido", "B1: quiero", expect=(0, 0))
    refused(game, "B1 plays 4c", "faltan los tantos del envido")   # cards keep their turn


def test_any_seat_may_go_to_the_mazo_out_of_turn() -> None:
    """§9: not only the seat due to play ([DE] says that one)."""
    game = new_game(players=4)
    assert game.hand is not None and game.hand.turn() == "A1"
    step(game, "B2: me voy al mazo", expect=(1, 0))

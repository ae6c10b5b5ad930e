"""Declaring the envido: order, son buenas, ties, 4 players, when points count, and showing."""

from __future__ import annotations

from typing import Any

from engine_steps import hand_points, new_game, refused, score, step, steps

from engine import Game


def accepted_envido(**settings: Any) -> Game:
    game = new_game(**settings)
    steps(game, "A1: envido", "B1: quiero")
    return game


def test_mano_declares_first() -> None:
    game = accepted_envido()
    refused(game, "B1: 30", "le toca decir a A1")
    refused(game, "B1: son buenas", "le toca decir a A1")
    refused(game, "A1: son buenas", "la mano dice primero sus tantos")
    step(game, "A1: 23")
    refused(game, "A1: 25", "le toca decir a B1")
    step(game, "B1: 24", expect=(0, 2))


def test_son_buenas_gives_the_envido_to_the_number_said() -> None:
    game = accepted_envido()
    step(game, "A1: 23")
    step(game, "B1: son buenas", expect=(2, 0))
    refused(game, "B1: 33", "no hay tantos para decir ahora")


def test_impossible_numbers_are_refused() -> None:
    game = accepted_envido()
    refused(game, "A1: 15", "15 no es un envido posible")
    refused(game, "A1: 34", "34 no es un envido posible")
    step(game, "A1: 7")


def test_a_tie_goes_to_mano() -> None:
    game = accepted_envido()
    steps(game, "A1: 27", "B1: 27", expect=(2, 0))


def test_a_tie_goes_to_mano_when_mano_is_b() -> None:
    game = new_game()
    steps(game, "hand A", "hand", expect=(1, 0))
    assert game.hand is not None and game.hand.mano == "B1"
    steps(game, "A1: envido", "B1: quiero")
    refused(game, "A1: 27", "le toca decir a B1")
    steps(game, "B1: 27", "A1: 27", expect=(1, 2))


def test_four_players_speak_in_turn_while_their_team_is_not_ahead() -> None:
    game = accepted_envido(players=4)
    step(game, "A1: 25")
    refused(game, "A2: 30", "le toca decir a B1")
    step(game, "B1: son buenas")
    refused(game, "A2: 30", "le toca decir a B2")    # A is ahead: A2 does not speak
    step(game, "B2: 26")
    step(game, "A2: 33")                             # A2 must answer B2's number
    assert score(game) == (2, 0)                     # B1 and B2 have spoken: A wins


def test_four_players_tie_goes_to_the_seat_closer_to_mano() -> None:
    game = accepted_envido(players=4)
    steps(game, "A1: 20", "B1: 28", "A2: 28", expect=(0, 2))  # B1 is closer to mano than A2
    refused(game, "B2: 30", "no hay tantos para decir ahora")


def test_four_players_tie_when_mano_is_b() -> None:
    game = new_game(players=4)
    steps(game, "hand A", "hand")
    assert game.hand is not None and game.hand.order == ("B1", "A2", "B2", "A1")
    steps(game, "B1: envido", "A1: quiero")
    steps(game, "B1: 20", "A2: 25", "B2: 25", expect=(3, 0))  # A2 is closer to mano than B2


def test_six_players_speak_around_the_table() -> None:
    game = accepted_envido(players=6)
    steps(game, "A1: 20", "B1: 25")
    refused(game, "A3: 30", "le toca decir a A2")
    step(game, "A2: son buenas")
    refused(game, "B2: 30", "le toca decir a A3")
    steps(game, "A3: 27", "B2: son buenas", "B3: 28", expect=(0, 2))


def test_credit_when_settled() -> None:
    game = accepted_envido()
    steps(game, "A1: 30", "B1: son buenas", expect=(2, 0))


def test_credit_at_hand_end() -> None:
    game = accepted_envido(envido_credit="hand-end")
    steps(game, "A1: 30", "B1: son buenas", expect=(0, 0))
    assert hand_points(game, "envido") == (2, 0)
    steps(game, "A1: truco", "B1: no quiero", expect=(3, 0))


def test_reported_winner_when_the_numbers_were_not_heard() -> None:
    game = accepted_envido()
    step(game, "envido B", expect=(0, 2))
    refused(game, "B1 shows 7o 6o", "el envido se dio por resultado, sin tantos")


def test_a_true_declaration_shown_is_confirmed() -> None:
    game = accepted_envido()
    steps(game, "A1: 28", "B1: son buenas", expect=(2, 0))
    refused(game, "B1 shows 7e 6e", "muestra quien ganó el envido (A1)")
    step(game, "A1 shows 7o 1o 12b", expect=(2, 0))
    assert game.hand is not None and game.hand.envido_shown is True
    refused(game, "A1 shows 7o 1o", "el envido ya se mostró")


def test_a_false_declaration_shown_gives_the_points_away() -> None:
    game = accepted_envido()
    steps(game, "A1: 31", "B1: son buenas", expect=(2, 0))
    steps(game, "A1 plays 4c", "B1 plays 5c", "B1 plays 6c", "A1 plays 1o")
    step(game, "A1 shows 7o 1o 4c", expect=(0, 2))   # makes 28, not 31
    assert hand_points(game, "envido") == (0, 2)
    assert game.hand is not None and game.hand.envido_winner == "B"


def test_a_false_declaration_after_the_hand_with_credit_at_hand_end() -> None:
    game = accepted_envido(envido_credit="hand-end")
    steps(game, "A1: 31", "B1: son buenas", "B1: me voy al mazo", expect=(3, 0))
    step(game, "A1 shows 7o 1o 4c", expect=(1, 2))


def test_a_false_declaration_before_the_hand_ends_with_credit_at_hand_end() -> None:
    game = accepted_envido(envido_credit="hand-end")
    steps(game, "A1: 31", "B1: son buenas", expect=(0, 0))
    step(game, "A1 shows 7o 1o 4c", expect=(0, 0))
    assert hand_points(game, "envido") == (0, 2)
    step(game, "hand A", expect=(1, 2))


def test_shown_cards_played_by_another_seat_are_refused() -> None:
    game = accepted_envido()
    steps(game, "A1: 28", "B1: son buenas", "A1 plays 4c", "B1 plays 7o")
    refused(game, "A1 shows 7o 1o", "7o la jugó otro")


def test_shown_cards_that_with_the_ones_played_make_more_than_three_are_refused() -> None:
    """A seat holds three cards: after 4c and 5e, 7o 6o cannot be its cards, and a 33 it did not
    have is not confirmed by them."""
    game = accepted_envido()
    steps(game, "A1: 33", "B1: son buenas", "A1 plays 4c", "B1 plays 5c", "B1 plays 6c",
          "A1 plays 5e")
    refused(game, "A1 shows 7o 6o", "con 4c 5e, que ya jugó, serían más de tres cartas")
    refused(game, "A1 shows 7o 6o 5o", "serían más de tres cartas")
    step(game, "A1 shows 4c 5e", expect=(0, 3))   # its own cards: 9, not 33


def test_singing_less_than_one_has_is_not_a_lie() -> None:
    game = accepted_envido()
    steps(game, "A1: 4", "B1: son buenas", expect=(2, 0))
    step(game, "A1 shows 7o 4e 1c", expect=(2, 0))    # the 4 is there
    assert game.hand is not None and game.hand.envido_shown is True

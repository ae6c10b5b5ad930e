"""An envido whose numbers were not heard, set aside so the hand goes on, and settled later."""

from __future__ import annotations

from engine_steps import hand_points, new_game, refused, score, step, steps

from engine import Game, snapshot


def aside_envido(*chain: str, **settings: object) -> Game:
    game = new_game(**settings)  # type: ignore[arg-type]
    steps(game, *(chain or ("A1: envido",)), "B1: quiero", "A1: 27", "envido aside")
    return game


def test_an_envido_set_aside_lets_the_hand_go_on_and_takes_no_more_numbers() -> None:
    game = aside_envido()
    assert game.hand is not None and game.hand.envido_status == "aside"
    refused(game, "B1: 31", "no hay tantos para decir ahora")
    refused(game, "B1: son buenas", "no hay tantos para decir ahora")
    refused(game, "B1: real envido", "el envido ya se jugó en esta mano")
    steps(game, "A1: truco", "B1: quiero", "A1 plays 4c", "B1 plays 5c")
    assert score(game) == (0, 0)


def test_the_winner_told_later_in_the_hand_scores_the_envido() -> None:
    game = aside_envido()
    steps(game, "A1: truco", "B1: quiero")
    step(game, "envido B", expect=(0, 2))
    assert hand_points(game, "envido") == (0, 2)
    refused(game, "envido A", "no hay tantos por decidir")


def test_the_winner_told_in_a_later_hand_scores_that_hand_s_envido() -> None:
    game = aside_envido("A1: real envido")
    steps(game, "A1: truco", "B1: no quiero", "hand", expect=(1, 0))
    assert snapshot(game)["set_aside"] == [{"hand": 1, "contest": "envido", "seats": ["A1", "B1"]}]
    steps(game, "B1: envido", "A1: quiero", "B1: 30", "A1: son buenas", expect=(1, 2))
    step(game, "envido A", expect=(4, 2))  # the real envido of hand 1, not the envido of hand 2
    assert snapshot(game)["hands"][0]["points"]["envido"] == {"A": 3, "B": 0}
    assert snapshot(game)["set_aside"] == []
    refused(game, "envido A", "no hay tantos por decidir")


def test_a_falta_envido_set_aside_is_worth_the_falta_when_its_winner_is_told() -> None:
    game = aside_envido("A1: falta envido", points=15)
    steps(game, "A1: truco", "B1: no quiero", expect=(1, 0))
    step(game, "envido B", expect=(1, 14))  # what the leader, A with 1, lacks to reach 15


def test_only_numbers_awaited_can_be_set_aside() -> None:
    game = new_game()
    refused(game, "envido aside", "no hay tantos por decir")
    step(game, "A1: envido")
    refused(game, "envido aside", "no hay tantos por decir")
    steps(game, "B1: quiero", "A1: 30", "B1: son buenas", expect=(2, 0))
    refused(game, "envido aside", "no hay tantos por decir")


def test_a_flor_contest_set_aside_is_settled_the_same_way() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: flor", "envido aside", "A1 plays 4c", "B1 plays 5c")
    assert hand_points(game, "flor") == (0, 0)
    step(game, "envido B", expect=(0, 6))
    assert hand_points(game, "flor") == (0, 6)


def test_undo_takes_the_set_aside_back_and_the_numbers_are_awaited_again() -> None:
    game = aside_envido()
    game.undo()
    refused(game, "A1: truco", "faltan los tantos del envido")
    step(game, "B1: 31", expect=(0, 2))


def test_a_chico_over_takes_the_envidos_it_set_aside_with_it() -> None:
    game = aside_envido(match=True, points=15)
    steps(game, "A1: truco", "B1: no quiero", "points A +14", expect=(15, 0))
    step(game, "hand")  # the next chico
    assert snapshot(game)["set_aside"] == []
    refused(game, "envido B", "no hay tantos por decidir")


def test_in_pica_pica_each_duel_sets_its_own_envido_aside_and_a_seat_of_it_settles_it() -> None:
    game = new_game(hand=False, players=6, pica_pica=True)
    steps(game, "points A 5", "hand", "A1: envido", "B2: quiero", "B1: envido", "A3: quiero")
    refused(game, "envido aside",
            "envido aparte: decí de qué duelo (un asiento, p. ej. «envido aparte A1»)")
    step(game, "envido aside A3")  # the duel B1–A3; the duel A1–B2 still awaits its numbers
    assert [h.envido_status for h in game.deal] == ["accepted", "aside", "none"]
    refused(game, "A1: truco", "faltan los tantos del envido")
    step(game, "A3: truco")
    refused(game, "envido A", "envido A: decí de qué duelo (un asiento, p. ej. «envido A A1»)")
    steps(game, "A1: 30", "B2: son buenas", expect=(7, 0))
    steps(game, "B1: no quiero", "hand A A1", "hand A A2", "hand", expect=(10, 0))
    assert snapshot(game)["set_aside"] == [{"hand": 1, "contest": "envido", "seats": ["B1", "A3"]}]
    step(game, "envido B", expect=(10, 2))  # told in the next hand, as any envido set aside
    assert snapshot(game)["set_aside"] == []

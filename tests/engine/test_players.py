"""2, 4 and 6 players: teams, mano rotation, and pica-pica duels."""

from __future__ import annotations

import pytest
from engine_steps import new_game, refused, score, step, steps

from engine import Game, InvalidEvent, Say, Settings, snapshot
from engine.events import Call


@pytest.mark.parametrize(("players", "manos"), [
    (2, ["A1", "B1", "A1", "B1"]),
    (4, ["A1", "B1", "A2", "B2", "A1"]),
    (6, ["A1", "B1", "A2", "B2", "A3", "B3", "A1"]),
])
def test_mano_rotates_every_hand(players: int, manos: list[str]) -> None:
    game = new_game(hand=False, players=players)
    for mano in manos:
        step(game, "hand")
        assert game.hand is not None and game.hand.mano == mano
        assert game.hand.turn() == mano
        step(game, "hand A")


@pytest.mark.parametrize(("players", "seats"), [
    (2, ["A1", "B1"]), (4, ["A1", "B1", "A2", "B2"]), (6, ["A1", "B1", "A2", "B2", "A3", "B3"])])
def test_seats_alternate_teams_around_the_table(players: int, seats: list[str]) -> None:
    game = new_game(players=players)
    assert snapshot(game)["seats"] == seats
    cards = ["4e", "5b", "6o", "4c", "5o", "6e"]
    for seat, card in zip(seats, cards):             # each seat plays in table order
        step(game, f"{seat} plays {card}")
    assert game.hand is not None and game.hand.rounds[0].result is not None


def test_a_seat_not_at_the_table() -> None:
    game = new_game()
    with pytest.raises(InvalidEvent, match="no hay asiento B2 en una mesa de 2"):
        game.apply(Say("B2", Call.TRUCO))
    assert not game.is_legal(Say("B2", Call.TRUCO))


def test_any_seat_of_the_team_answers_for_the_team() -> None:
    game = new_game(players=6)
    step(game, "A2: truco")
    refused(game, "A3: quiero", "contesta B, no A")
    step(game, "B3: quiero")
    step(game, "hand B", expect=(0, 2))


def pica_pica_game() -> Game:
    """Six players, pica-pica on, the leader at 5: the next hand is played as duels."""
    game = new_game(hand=False, players=6, pica_pica=True)
    steps(game, "points A 5", "hand")
    return game


def test_pica_pica_duels_face_each_seat_with_the_one_opposite() -> None:
    game = pica_pica_game()
    duels = [(h.seats, h.mano) for h in game.deal]
    assert duels == [(("A1", "B2"), "A1"), (("B1", "A3"), "B1"), (("A2", "B3"), "A2")]
    assert len(snapshot(game)["duels"]) == 3


def test_pica_pica_routes_each_event_to_its_duel() -> None:
    game = pica_pica_game()
    step(game, "A1: truco")
    refused(game, "B1: quiero", "no hay nada cantado para contestar")  # B1 is in another duel
    step(game, "B2: quiero")
    step(game, "B1: envido")                         # duels bet independently
    step(game, "A3: quiero")
    steps(game, "B1: 30", "A3: son buenas", expect=(5, 2))
    steps(game, "A2 plays 4c", "B3 plays 3e", "B3 plays 3o", "A2 plays 5c", expect=(5, 3))


def test_pica_pica_results_name_their_duel() -> None:
    game = pica_pica_game()
    refused(game, "hand A", "mano A: decí de qué duelo (un asiento, p. ej. «mano A A1»)")
    steps(game, "hand A A1", "hand B B1", expect=(6, 1))
    # the other duels are still being played: nothing to deal yet
    assert refused(game, "hand A A1", "la mano ya terminó") == "mano A: la mano ya terminó"
    refused(game, "hand", "mano: la mano anterior no terminó")
    step(game, "hand A A2", expect=(7, 1))
    hands = snapshot(game)["hands"]
    assert hands[-1]["pica_pica"] and hands[-1]["points"]["truco"] == {"A": 2, "B": 1}


def test_pica_pica_alternates_with_full_table_hands() -> None:
    game = pica_pica_game()
    steps(game, "hand A A1", "hand A B1", "hand A A2", "hand")
    assert len(game.deal) == 1 and game.deal[0].seats == Settings(players=6).seats
    steps(game, "hand A", "hand")
    assert len(game.deal) == 3


@pytest.mark.parametrize(("lead", "duels"), [(0, False), (4, False), (5, True), (24, True),
                                             (25, False)])
def test_pica_pica_only_in_the_middle_of_the_game(lead: int, duels: bool) -> None:
    game = new_game(hand=False, players=6, pica_pica=True)
    if lead:
        step(game, f"points B {lead}")
    step(game, "hand")
    assert (len(game.deal) == 3) is duels
    assert score(game) == (0, lead)


def test_pica_pica_needs_six_players() -> None:
    with pytest.raises(InvalidEvent, match="el pica-pica se juega de a 6"):
        Settings(players=4, pica_pica=True)

"""A shown envido read from the camera: a false claim goes to the other team, a true one stands."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Call, Declare, Game, NewHand, Say, Settings, Show, parse_cards
from engine.cards import Card, Suit, envido_value, envido_values_made, flor_value
from referee.vision.bank import Bank
from referee.vision.envido_check import (
    EnvidoChecker,
    set_aside,
    shown_hand,
    verdict_flor,
    verdict_hand,
)
from referee.vision.faces import Face
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import SceneOptions, render

EASY = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, tables=("felt", "wood"),
                    card_size=(0.38, 0.45))


def envido_won_by_a1(declared: int) -> Game:
    """A hand where A1 sings envido, B1 accepts, A1 declares and B1 says son buenas."""
    game = Game(Settings())
    for event in (NewHand(), Say("A1", Call.ENVIDO), Say("B1", Call.QUIERO),
                  Declare("A1", declared), Say("B1", Call.SON_BUENAS)):
        assert game.is_legal(event), event
        game.apply(event)
    assert game.score == {"A": 2, "B": 0}
    return game


def shown_frame(deck: dict[Card, Face], cards: str, seed: int) -> np.ndarray:
    faces = [deck[c] for c in parse_cards(cards.split())]
    scene = render(faces, np.random.default_rng(seed), EASY)
    assert len(scene.cards) == len(faces)
    return scene.image


def test_false_envido_caught_from_image_goes_to_other_team(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    game = envido_won_by_a1(33)
    checker = EnvidoChecker(recognizer)
    check = checker.check("A1", shown_frame(wikimedia, "7o 1o 3e", seed=11))
    assert check.event is not None, check.message
    assert set(check.event.cards) == set(parse_cards(["7o", "1o", "3e"]))
    assert 28 in check.values and 33 not in check.values
    assert game.is_legal(check.event)
    game.apply(check.event)
    assert game.score == {"A": 0, "B": 2}


def test_true_envido_confirmed_from_image(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    game = envido_won_by_a1(27)
    check = EnvidoChecker(recognizer).check("A1", shown_frame(wikimedia, "5c 2c 12b", seed=12))
    assert check.event is not None, check.message
    assert set(check.event.cards) == set(parse_cards(["5c", "2c", "12b"]))
    game.apply(check.event)
    assert game.score == {"A": 2, "B": 0}


def test_no_cards_in_view_abstains(recognizer: Recognizer) -> None:
    scene = render([], np.random.default_rng(3), EASY)
    check = EnvidoChecker(recognizer).check("A1", scene.image)
    assert check.event is None
    assert check.message.startswith("no la veo")


def test_a_card_another_seat_played_counts_as_not_read() -> None:
    corners = np.zeros((4, 2))
    seven, one, four = (Reading(Card.parse(text), 0.9, corners) for text in ("7o", "1o", "4c"))
    played = parse_cards(["4c"])  # B1 played the 4 of copas: it slid beside A1's cards
    assert verdict_hand([seven, one, four], declared=33)[0]  # all three read: 33 is false
    # the 4 of copas is not A1's: a card A1 did not show could make 33 with the 7 of oros
    assert verdict_hand([seven, one, four], declared=33, seen_elsewhere=played)[0] is None
    cards, _, message = verdict_hand([seven, one, four], declared=28, seen_elsewhere=played)
    assert cards == tuple(parse_cards(["7o", "1o"])) and "con esas alcanza" in message
    assert shown_hand([seven, four], seen_elsewhere=played)[0] is None


def test_a_card_of_an_earlier_deal_is_no_card_shown() -> None:
    corners = np.zeros((4, 2))
    four, five, twelve, six, two = (Reading(Card.parse(text), 0.9, corners)
                                    for text in ("4o", "5o", "12e", "6c", "2c"))
    stray = parse_cards(["4o"])  # left on the table in the last deal
    cards, _, _ = verdict_hand(set_aside([four, twelve, six, two], stray), declared=28)
    assert cards == tuple(parse_cards(["12e", "6c", "2c"]))  # three shown beside it: 28 is true
    # with fewer cards beside it, the 4o may be A1's own, dealt again: no lie is called
    assert verdict_hand(set_aside([four, five, twelve], stray), declared=29)[0] is None
    assert verdict_hand([four, five, twelve], declared=29)[0]  # (read as shown: 29 is true)


def test_a_claim_is_never_called_false_on_a_card_named_only_by_its_cues() -> None:
    corners = np.zeros((4, 2))
    one, eleven, four = (Reading(Card.parse(text), 0.9, corners) for text in ("1e", "11e", "4c"))
    misread = Reading(Card.parse("10e"), 0.4, corners, by_cues=True)  # the 1e, read by its cues
    cards, _, message = verdict_hand([misread, eleven, four], declared=21)  # 10e 11e 4c: no 21
    assert cards is None and "por señas" in message
    assert verdict_hand([one, eleven, four], declared=21)[0]  # the 1e read: the 21 is confirmed
    sure = Reading(Card.parse("10e"), 0.9, corners)
    assert verdict_hand([sure, eleven, four], declared=21)[0]  # named by the bank: 21 is false
    # named by its cues, a card still confirms what it makes: no one is called a liar by that
    cued_one = Reading(Card.parse("1e"), 0.4, corners, by_cues=True)
    assert verdict_hand([cued_one, eleven, four], declared=21)[0]


def test_a_flor_is_shown_with_its_three_cards_read() -> None:
    corners = np.zeros((4, 2))
    readings = [Reading(Card.parse(text), 0.9, corners) for text in ("4c", "5c", "6c")]
    assert verdict_flor(readings)[0] == tuple(parse_cards(["4c", "5c", "6c"]))
    assert "tres cartas" in verdict_flor(readings[:2])[2]
    assert verdict_flor([*readings[:2], Reading(None, 0.2, corners)])[0] is None
    figure = Reading(None, 0.5, corners, figure_of=Suit.COPAS)  # a figure counts 0: it stands in
    cards, stand_ins, _ = verdict_flor([*readings[:2], figure])
    assert cards is not None and len(stand_ins) == 1 and flor_value(cards) == 29


def test_hidden_card_abstains_instead_of_guessing(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    frame = shown_frame(wikimedia, "7o 1o 3e", seed=11)
    readings = recognizer.read(frame)
    assert len(readings) == 3
    covered = frame.copy()
    x0, y0 = readings[0].corners.min(axis=0).astype(int)
    x1, y1 = readings[0].corners.max(axis=0).astype(int)
    cy = (y0 + y1) // 2
    covered[y0:y1, x0:x1] = (60, 90, 150)  # a hand over most of the first card
    covered[cy - 4:cy + 4, x0:x1] = frame[cy - 4:cy + 4, x0:x1]
    # The covered card is either unread ("no la veo") or not seen at all; the two cards left do
    # not make the declared 28, and two cards are not enough to call the claim false.
    check = EnvidoChecker(recognizer).check("A1", covered, declared=28)
    assert check.event is None
    assert check.message.startswith("no la veo")



def test_two_cards_read_that_make_the_claim_confirm_it_with_a_third_unread() -> None:
    corners = np.zeros((4, 2))
    readings = [Reading(Card.parse("7o"), 0.95, corners), Reading(None, 0.2, corners),
                Reading(Card.parse("1o"), 0.9, corners)]
    assert shown_hand(readings)[0] is None  # not every card is read
    cards, stand_ins, message = verdict_hand(readings, declared=28)  # 7 and 1 of oros make 28
    assert cards == tuple(parse_cards(["7o", "1o"])) and not stand_ins
    assert "con esas alcanza" in message
    game = envido_won_by_a1(28)
    game.apply(Show("A1", cards))
    assert game.score == {"A": 2, "B": 0}
    # a claim the cards read do not make is not called false while a card is unread ...
    assert verdict_hand(readings, declared=33)[0] is None
    # ... nor made out of one card read (the engine wants two or three shown)
    assert verdict_hand(readings[:2], declared=7)[0] is None
    # a figure read only by its suit stands in: 7 and a figure of oros make 27
    figure = Reading(None, 0.5, corners, figure_of=Suit.OROS)
    cards, stand_ins, _ = verdict_hand([readings[0], figure, readings[1]], declared=27)
    assert cards is not None and 27 in envido_values_made(cards) and len(stand_ins) == 1



def test_two_cards_that_no_third_card_could_complete_prove_the_claim_false() -> None:
    corners = np.zeros((4, 2))
    four, five = Reading(Card.parse("4o"), 0.9, corners), Reading(Card.parse("5e"), 0.9, corners)
    unread = Reading(None, 0.2, corners)
    for readings in ([four, five], [four, unread, five]):
        cards, _, message = verdict_hand(readings, declared=33)  # no card makes 33 with them
        assert cards == tuple(parse_cards(["4o", "5e"])) and "ninguna otra carta" in message
        game = envido_won_by_a1(33)
        game.apply(Show("A1", cards))
        assert game.score == {"A": 0, "B": 2}
    # 29 is made with the 5 of oros or the 4 of espadas, which nobody has seen ...
    assert verdict_hand([four, five], declared=29)[0] is None
    assert "la que no leí podría" in verdict_hand([four, unread, five], declared=29)[2]
    # ... unless other seats played them
    assert verdict_hand([four, five], declared=29, seen_elsewhere=parse_cards(["5o"]))[0] is None
    assert verdict_hand([four, five], declared=29, seen_elsewhere=parse_cards(["5o", "4e"]))[0]

def test_two_cards_that_do_not_make_the_claim_are_not_enough(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    frame = shown_frame(wikimedia, "1o 3e", seed=13)
    checker = EnvidoChecker(recognizer)
    assert checker.check("A1", frame).event is not None  # read fine
    check = checker.check("A1", frame, declared=28)
    assert check.event is None
    assert "mostrá las tres cartas" in check.message
    assert checker.check("A1", shown_frame(wikimedia, "7o 1o", seed=14), declared=28).event


HELD_OUT = [("fournier_bank", "wikimedia"), ("wikimedia_bank", "fournier")]


def test_envido_checked_when_the_rey_rank_is_unsure(
        fournier: dict[Card, Face], wikimedia_bank: Bank) -> None:
    # The 1878 rey de copas seen by a bank of the other deck: its rank is not named (the bank
    # guesses 12 de bastos, and the picture's shape is not asked), but it is surely a figure and
    # its pinta says copas.
    faces = [fournier[c] for c in parse_cards(["7c", "12c", "4o"])]
    frame = render(faces, np.random.default_rng(6), EASY).image
    rank_unsure = Recognizer(wikimedia_bank, RecognizerSettings(figure_ranks=False))
    check = EnvidoChecker(rank_unsure).check("A1", frame)
    assert check.event is not None, check.message
    assert [r.figure_of for r in check.readings if r.card is None] == [Suit.COPAS]
    assert len(check.stand_ins) == 1 and check.stand_ins[0].suit == Suit.COPAS
    assert "una figura de copas" in check.message
    assert check.values == {27, 7, 4, 0}  # 7 + figure of copas = 27, as with the real 12c
    lie = envido_won_by_a1(33)
    lie.apply(check.event)
    assert lie.score == {"A": 0, "B": 2}
    truth = envido_won_by_a1(27)
    truth.apply(check.event)
    assert truth.score == {"A": 2, "B": 0}


def test_a_stand_in_figure_is_never_a_card_another_seat_played(
        fournier: dict[Card, Face], wikimedia_bank: Bank) -> None:
    faces = [fournier[c] for c in parse_cards(["7c", "12c", "4o"])]
    frame = render(faces, np.random.default_rng(6), EASY).image
    rank_unsure = Recognizer(wikimedia_bank, RecognizerSettings(figure_ranks=False))
    played = parse_cards(["12c", "10c"])  # B1 played the rey and the sota de copas
    check = EnvidoChecker(rank_unsure).check("A1", frame, seen_elsewhere=played)
    assert check.stand_ins and check.stand_ins[0] not in played
    assert check.values == {27, 7, 4, 0}
    all_figures = parse_cards(["10c", "11c", "12c"])
    check = EnvidoChecker(rank_unsure).check("A1", frame, seen_elsewhere=all_figures)
    assert check.event is None and "ya se jugaron" in check.message


@pytest.mark.parametrize("figure_ranks", [False, True])
@pytest.mark.parametrize(("bank_name", "deck_name"), HELD_OUT)
def test_no_wrong_envido_on_held_out_hands_with_figures(
        bank_name: str, deck_name: str, figure_ranks: bool, request: pytest.FixtureRequest) -> None:
    settings = RecognizerSettings(figure_ranks=figure_ranks)
    recognizer = Recognizer(request.getfixturevalue(bank_name), settings)
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    verdicts = with_stand_ins = 0
    for hand in ("7c 12c 4o", "5o 11o 3e", "6b 10b 2c"):
        cards = parse_cards(hand.split())
        for seed in range(3):
            frame = render([deck[c] for c in cards], np.random.default_rng(seed), EASY).image
            shown, stand_ins, message = shown_hand(recognizer.read(frame))
            if shown is None or len(shown) < len(cards):
                continue
            assert envido_value(shown) == envido_value(cards), f"{hand} seed {seed}: {message}"
            verdicts += 1
            with_stand_ins += bool(stand_ins)
    assert verdicts >= 3, f"only {verdicts} verdicts"
    if not figure_ranks:
        assert with_stand_ins >= 2, f"{verdicts} verdicts, {with_stand_ins} with a figure of a suit"

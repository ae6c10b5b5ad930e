"""The camera wired to the game: cards put down in front of a seat are played, and the envido
winner's cards shown after the hand are checked against the declaration."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.seat_regions import default_regions, parse_seat_region
from referee.table import Table
from referee.table_camera import SHOW_EVERY, SHOW_STEADY, TableCamera
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer
from referee.vision.scenes import paint_card, project
from referee.vision.textures import table

W, H = 640, 480
VERDICT = SHOW_STEADY * SHOW_EVERY  # frames for the camera to tell a show


class TableOnly:
    """The two calls the camera makes, on a real table (the scoreboard does the same)."""

    def __init__(self, *lines: str) -> None:
        self.table = Table()
        self.submitted: list[str] = []
        self.seen: list[tuple[str, bytes, str | None]] = []  # shown on the pages, with pictures
        self.doubts: list[tuple[str, bytes, str]] = []  # shown as left to the table, and why
        for line in lines:
            self.table.apply_line(line)

    def snapshot(self) -> dict[str, Any]:
        return self.table.snapshot()

    def submit_line(self, line: str, origin: str = "manual") -> dict[str, Any]:
        self.table.apply_line(line)
        self.submitted.append(line)
        return self.snapshot()

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]:
        if doubt:
            self.doubts.append((text, picture, doubt))
        else:
            self.seen.append((text, picture, line))
        return {}


def frame(deck: dict[Card, Face], placed: dict[str, list[str]],
          regions: dict[str, tuple[float, float, float, float]] | None = None) -> np.ndarray:
    """A felt table seen from above with the named cards in front of their seats."""
    rng = np.random.default_rng(3)
    img = table("felt", rng, H, W)
    regions = regions or {r.seat: r.box for r in default_regions(("A1", "B1"))}
    for seat, cards in placed.items():
        x0, y0, x1, y1 = regions[seat]
        for i, text in enumerate(cards):
            face = deck[Card.parse(text)]
            height = 0.36 * H
            size = (height * face.bgr.shape[1] / face.bgr.shape[0], height)
            cx = (x0 + (i + 1) * (x1 - x0) / (len(cards) + 1)) * W
            cy = (y0 + y1) / 2 * H
            corners = project(np.array([cx, cy]), size, 0.15 * (i - 1), 0.0, 0.0, 1500.0)
            img, _ = paint_card(img, face, corners)
    return np.clip(img, 0, 255).astype(np.uint8)


def feed(camera: TableCamera, image: np.ndarray, times: int) -> None:
    for _ in range(times):
        camera.step(image)


def test_cards_put_down_are_played_in_front_of_their_seats(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 3)
    feed(camera, frame(wikimedia, {"A1": ["4c"], "B1": ["5c"]}), 3)
    assert service.submitted == ["A1 plays 4c", "B1 plays 5c"]
    assert service.snapshot()["hand"]["rounds"][0]["winner"] == "B"


def test_two_cards_seen_at_once_are_played_in_turn(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = TableOnly("hand")  # A1 is mano; B1's 4c comes first by name, and waits
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": ["7e"], "B1": ["4c"]}), 3)
    assert service.submitted == ["A1 plays 7e", "B1 plays 4c"]
    assert service.snapshot()["hand"]["rounds"][0]["winner"] == "A"
    refused = [line for line in lines if "✗" in line]  # said once, not again when tried again
    assert len(refused) == 1 and refused[0].startswith("cámara: ✗ B1 plays 4c")


def test_a_card_put_down_out_of_turn_and_taken_back_is_not_played(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand")  # A1 is mano
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"B1": ["4c"]}), 3)  # refused: not B1's turn
    feed(camera, frame(wikimedia, {"A1": ["7e"]}), 3)  # B1 took it back
    feed(camera, frame(wikimedia, {"A1": ["7e"], "B1": ["5e"]}), 3)
    assert service.submitted == ["A1 plays 7e", "B1 plays 5e"]


def picture_shape(picture: bytes) -> tuple[int, ...]:
    """The size of a JPEG kept as evidence, as OpenCV reads it back."""
    return cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR).shape


def test_each_play_is_kept_with_the_frame_it_was_seen_on(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = TableOnly("hand")
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 3)
    assert lines[-1] == "cámara: ✓ A1 plays 4c"
    [(text, picture, line)] = service.seen
    assert (text, line) == ("A1 jugó el 4 de copas", "A1 plays 4c")
    assert picture_shape(picture) == (H, W, 3)


def test_an_envido_shown_goes_to_the_pages_with_its_picture(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"]}), VERDICT)
    [(text, picture, line)] = service.seen
    assert line == service.submitted[0] and text.startswith("A1 muestra")
    assert len(picture_shape(picture)) == 3  # the seat's part of the frame


class FullStore(TableOnly):
    """A table whose store refuses the camera's pictures (a full disk)."""

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]:
        import sqlite3

        raise sqlite3.OperationalError("database or disk is full")


def test_a_store_that_refuses_the_picture_costs_the_picture_not_the_camera(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = FullStore("hand")
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 3)
    feed(camera, frame(wikimedia, {"A1": ["4c"], "B1": ["5c"]}), 3)
    assert service.submitted == ["A1 plays 4c", "B1 plays 5c"]
    assert "cámara: no pude guardar la foto con la partida: database or disk is full" in lines


def test_a_table_laid_out_otherwise_gives_its_seat_regions(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    side_by_side = dict(parse_seat_region(text) for text in ("a1=0,0,0.5,1", "B1=0.5,0,1,1"))
    service = TableOnly("hand")
    camera = TableCamera(service, recognizer, log=lambda _: None, regions=side_by_side)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}, side_by_side), 3)
    feed(camera, frame(wikimedia, {"A1": ["4c"], "B1": ["5c"]}, side_by_side), 3)
    assert service.submitted == ["A1 plays 4c", "B1 plays 5c"]


def test_the_last_hands_cards_still_on_the_table_are_not_played_in_the_next(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 3)
    service.table.apply_line("B1 plays 5c")  # tapped on the tablet: the camera missed it
    feed(camera, frame(wikimedia, {"A1": ["4c"], "B1": ["5c"]}), 3)
    service.table.apply_line("B1: me voy al mazo")
    service.table.apply_line("hand")  # dealt with the cards still lying there; B1 is mano
    feed(camera, frame(wikimedia, {"A1": ["4c"], "B1": ["5c", "7e"]}), 4)
    assert service.submitted == ["A1 plays 4c", "B1 plays 7e"]


def test_cards_shown_for_the_envido_are_not_played_in_the_next_hand(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"]}), VERDICT)
    service.table.apply_line("hand")  # B1 is mano; A1's cards still lie there
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"], "B1": ["4e"]}), 4)
    assert service.submitted[1:] == ["B1 plays 4e"]


@pytest.mark.parametrize("text", ["A1", "A1=0,0,1", "A1=0,0,a,1", "A1=0.6,0,0.5,1", "=0,0,1,1",
                                  "A1=0,0,1,1.2", "A1=0,0,0.001,1", "A1=0,0.5,1,0.55"])
def test_a_wrong_seat_region_says_how_to_write_it(text: str) -> None:
    with pytest.raises(ValueError, match=text.replace(".", r"\.")):
        parse_seat_region(text)


def shown_after(declared: str, cards: list[str], wikimedia: dict[Card, Face],
                recognizer: Recognizer) -> TableOnly:
    service = TableOnly("hand", "A1: envido", "B1: quiero", f"A1: {declared}", "B1: son buenas",
                        "hand B")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": cards}), VERDICT)
    return service


def shown(service: TableOnly) -> set[str]:
    [line] = service.submitted
    assert line.startswith("A1 shows ")
    return set(line.split()[2:])


def test_a_true_envido_shown_to_the_camera_is_confirmed(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = shown_after("28", ["7o", "1o", "12b"], wikimedia, recognizer)
    assert shown(service) == {"7o", "1o", "12b"}
    snap = service.snapshot()
    assert snap["hand"]["envido"]["shown"] is True and snap["score"] == {"A": 2, "B": 1}


def test_a_false_envido_shown_to_the_camera_scores_to_the_other_team(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = shown_after("33", ["7o", "1o", "4c"], wikimedia, recognizer)
    assert shown(service) == {"7o", "1o", "4c"}
    snap = service.snapshot()
    assert snap["hand"]["envido"]["shown"] is False and snap["score"] == {"A": 0, "B": 3}


def test_the_envido_show_knows_which_cards_other_seats_played() -> None:
    from referee.game_snapshot import played_by_others

    service = TableOnly("hand", "A1 plays 12c", "B1 plays 10c", "A1 plays 4o")
    hand = service.snapshot()["hand"]
    assert played_by_others([hand], "A1") == [Card.parse("10c")]
    assert played_by_others([hand], "B1") == [Card.parse("12c"), Card.parse("4o")]


class Counting(TableOnly):
    """A table that remembers every line offered, taken or refused; ``refuse`` lines are refused
    once (a table busy for a moment)."""

    def __init__(self, *lines: str, refuse: tuple[str, ...] = ()) -> None:
        super().__init__(*lines)
        self.offered: list[str] = []
        self.refuse = list(refuse)

    def submit_line(self, line: str, origin: str = "manual") -> dict[str, Any]:
        self.offered.append(line)
        if any(line.startswith(start) for start in self.refuse):
            self.refuse = [start for start in self.refuse if not line.startswith(start)]
            raise ValueError(f"{line}: la mesa está ocupada")
        return super().submit_line(line, origin)


def test_an_envido_that_wins_the_game_is_checked_and_nothing_is_played_after_the_end(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = TableOnly("points A 28", "hand", "A1: envido", "B1: quiero", "A1: 28",
                        "B1: son buenas")  # A reaches 30 with the hand still going
    camera = TableCamera(service, recognizer, log=lines.append)
    shown_lie = frame(wikimedia, {"A1": ["4c", "5o", "12b"]})  # 4 + 5: not 28
    feed(camera, shown_lie, VERDICT)
    [line] = service.submitted
    assert line.startswith("A1 shows ") and set(line.split()[2:]) == {"4c", "5o", "12b"}
    assert service.snapshot()["score"] == {"A": 28, "B": 2}  # the lie reopened the game
    feed(camera, shown_lie, 2 * SHOW_EVERY)  # the hand goes on: the cards shown are no plays
    assert service.submitted == [line] and not [text for text in lines if "✗" in text]


def test_a_true_envido_that_wins_the_game_leaves_nothing_to_play(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = Counting("points A 28", "hand", "A1: envido", "B1: quiero", "A1: 28",
                       "B1: son buenas")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"], "B1": ["4e"]}), 3 * SHOW_EVERY)
    assert [line.split()[:2] for line in service.offered] == [["A1", "shows"]]
    assert service.snapshot()["winner"] == "A"


def test_the_flor_winners_cards_are_checked(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("set flor on", "hand", "A1: flor", "B1: flor", "A1: 25", "B1: 30",
                        "hand A")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"B1": ["4c", "5c", "6c"]}), VERDICT)  # a flor of 35
    [line] = service.submitted
    assert line.startswith("B1 shows ") and set(line.split()[2:]) == {"4c", "5c", "6c"}
    snap = service.snapshot()
    assert snap["hand"]["flor"]["shown"] is False and snap["score"]["B"] == 0


def test_an_envido_won_in_a_pica_pica_duel_over_is_checked(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = Counting("set players 6", "set pica_pica on", "points A 5", "hand", "A1: envido",
                       "B2: quiero", "A1: 28", "B2: son buenas", "hand A A1")
    assert service.snapshot()["hand"]["seats"] == ["B1", "A3"]  # the next duel is played
    wide = {"A1": (0.0, 0.5, 0.67, 1.0)}  # room for three cards side by side
    regions = {r.seat: r.box for r in default_regions(tuple(service.snapshot()["seats"]), wide)}
    camera = TableCamera(service, recognizer, log=lambda _: None, regions=wide)
    feed(camera, frame(wikimedia, {"A1": ["4c", "5o", "12b"]}, regions), 3 * SHOW_EVERY)
    [line] = service.offered  # no play offered for a seat whose duel is over
    assert line.startswith("A1 shows ") and set(line.split()[2:]) == {"4c", "5o", "12b"}
    snap = service.snapshot()
    assert snap["duels"][0]["envido"]["shown"] is False and snap["score"] == {"A": 6, "B": 2}


def test_a_play_refused_is_tried_again_only_when_the_table_moved_on(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = Counting("hand")  # A1 is mano
    camera = TableCamera(service, recognizer, log=lambda _: None)
    early = frame(wikimedia, {"B1": ["4c"]})
    feed(camera, early, 8)
    assert service.offered == ["B1 plays 4c"]  # refused once, not again on the same table
    service.table.apply_line("A1 plays 7e")  # tapped on the tablet
    feed(camera, early, 1)
    assert service.offered == ["B1 plays 4c"] * 2 and service.submitted == ["B1 plays 4c"]


def test_cards_shown_on_the_tablet_are_not_played_in_the_next_hand(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B",
                        "A1 shows 7o 1o 12b")  # told on the tablet, not read by the camera
    camera = TableCamera(service, recognizer, log=lambda _: None)
    shown_cards = {"A1": ["7o", "1o", "12b"]}
    feed(camera, frame(wikimedia, shown_cards), VERDICT)
    service.table.apply_line("hand")  # B1 is mano; A1's cards still lie there
    feed(camera, frame(wikimedia, {**shown_cards, "B1": ["4e"]}), 4)
    assert service.submitted == ["B1 plays 4e"]


def test_a_show_refused_is_offered_again_only_as_another_reading(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = Counting("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B",
                       refuse=("A1 shows",))
    camera = TableCamera(service, recognizer, log=lambda _: None)
    three = frame(wikimedia, {"A1": ["7o", "1o", "12b"]})
    feed(camera, three, 3 * SHOW_EVERY)
    assert len(service.offered) == 1 and not service.submitted  # the same cards, offered once
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o"]}), VERDICT)  # shown again
    [line] = service.submitted
    assert set(line.split()[2:]) == {"7o", "1o"}
    assert service.snapshot()["hand"]["envido"]["shown"] is True


def test_a_card_another_seat_played_is_not_taken_as_shown(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas",
                        "A1 plays 12b", "B1 plays 4c", "hand A")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "4c"]}), VERDICT)  # B1's 4c slid over
    [line] = service.submitted
    assert set(line.split()[2:]) == {"7o", "1o"}  # they make the 28
    assert service.snapshot()["hand"]["envido"]["shown"] is True


def test_the_envido_check_keeps_a_picture_only_with_a_verdict(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {}), 10 * SHOW_EVERY)  # the winner has not shown yet
    assert not service.seen and not service.doubts
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"]}), 3 * SHOW_EVERY)
    assert len(service.seen) == 1


def test_a_picture_the_store_refuses_costs_the_picture_not_the_check(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = FullStore("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B")
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b"]}), VERDICT)
    [line] = service.submitted
    assert line.startswith("A1 shows ")
    assert lines[1:] == [f"cámara: ✓ {line}",
                         "cámara: no pude guardar la foto con la partida: database or disk is full"]

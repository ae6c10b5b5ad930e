"""When the camera tells a show, and when it leaves it to the table: a verdict rests on the same
cards read look after look, never on a card of an earlier deal, and once the table takes back what
the camera gave, the camera does not give it again in that hand."""

from __future__ import annotations

import numpy as np

from engine.cards import Card
from referee.table_camera import SHOW_EVERY, SHOW_STEADY, TableCamera
from referee.vision.faces import Face
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from tests.vision.test_table_camera import VERDICT, Counting, TableOnly, feed, frame

ENVIDO_28_WON_BY_A1 = ("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "hand B")


class Scripted:
    """A recognizer that reads the cards of its script, one set per look (the last one after)."""

    def __init__(self, *looks: str) -> None:
        self.looks = [look.split() for look in looks]

    def read(self, image: np.ndarray) -> list[Reading]:
        look = self.looks.pop(0) if len(self.looks) > 1 else self.looks[0]
        corners = np.array([[0, 0], [10, 0], [10, 16], [0, 16]], float)
        return [Reading(Card.parse(text), 0.9, corners + 20 * i) for i, text in enumerate(look)]


def scripted_camera(service: TableOnly, *looks: str) -> TableCamera:
    return TableCamera(service, Scripted(*looks), log=lambda _: None)  # type: ignore[arg-type]


def test_one_misread_look_decides_nothing() -> None:
    service = TableOnly(*ENVIDO_28_WON_BY_A1)
    blank = np.zeros((480, 640, 3), np.uint8)
    # the first look reads the 1 of oros as a 4 of copas: with it, 28 would be a lie
    camera = scripted_camera(service, "7o 4c 12b", "7o 1o 12b")
    feed(camera, blank, SHOW_STEADY * SHOW_EVERY)
    assert not service.submitted  # the right cards read twice so far: not yet
    feed(camera, blank, SHOW_EVERY)
    [line] = service.submitted
    assert set(line.split()[2:]) == {"7o", "1o", "12b"}
    assert service.snapshot()["hand"]["envido"]["shown"] is True


def test_looks_that_keep_changing_tell_nothing() -> None:
    service = TableOnly(*ENVIDO_28_WON_BY_A1)
    blank = np.zeros((480, 640, 3), np.uint8)
    camera = scripted_camera(service, *["7o 4c 12b", "7o 1o 12b"] * 10)
    feed(camera, blank, 20 * SHOW_EVERY)
    assert not service.submitted


def test_a_show_the_table_took_back_is_not_given_again(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = Counting("hand", "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "hand B")
    camera = TableCamera(service, recognizer, log=lines.append)
    shown = frame(wikimedia, {"A1": ["7o", "1o", "4c"]})
    feed(camera, shown, VERDICT)
    [line] = service.submitted
    assert service.snapshot()["hand"]["envido"]["shown"] is False  # 33 called a lie
    service.table.undo_line()  # the table does not agree with the camera
    feed(camera, shown, 4 * VERDICT)
    assert service.offered == [line] and service.snapshot()["hand"]["envido"]["shown"] is None
    assert [text for text in lines if "deshizo" in text] == [
        f"cámara: la mesa deshizo «{line}»; en esta mano no lo vuelvo a anotar"]


def test_a_play_the_table_took_back_is_not_given_again(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = Counting("hand")
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 3)
    assert service.submitted == ["A1 plays 4c"]
    service.table.undo_line()  # not a play: the card was dropped
    service.table.apply_line("A1 plays 7e")  # tapped on the tablet
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 2)
    service.table.apply_line("B1 plays 5e")
    feed(camera, frame(wikimedia, {"A1": ["4c"]}), 6)  # A1 may play again: not the 4c
    assert service.offered == ["A1 plays 4c"]


def test_a_card_of_the_last_deal_is_not_taken_as_shown(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    # A1 played the 4o in the last deal and left it there; now A1 won an honest 28 (6c 2c 12e)
    service = TableOnly("hand", "A1 plays 4o", "B1: me voy al mazo", "hand", "B1: envido",
                        "A1: quiero", "B1: 20", "A1: 28", "A1: me voy al mazo")
    lines: list[str] = []
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": ["4o", "12e", "6c"]}), 2 * VERDICT)
    assert not service.submitted  # 2c not shown yet: the 4o makes no lie of the 28
    assert any("no la veo" in text for text in lines)
    feed(camera, frame(wikimedia, {"A1": ["4o", "12e", "6c", "2c"]}), VERDICT)
    [line] = service.submitted
    assert set(line.split()[2:]) == {"12e", "6c", "2c"}
    assert service.snapshot()["hand"]["envido"]["shown"] is True


def test_a_doubt_is_said_once_in_the_hand(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    lines: list[str] = []
    service = TableOnly(*ENVIDO_28_WON_BY_A1)
    camera = TableCamera(service, recognizer, log=lines.append)
    feed(camera, frame(wikimedia, {"A1": []}), 2 * VERDICT)  # nothing shown yet: nothing to say
    assert lines == []
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b", "4c"]}), 4 * VERDICT)
    assert not service.submitted
    assert lines == [("cámara: A1 muestra, pero no la veo: hay 4 carta(s) a la vista, se "
                      "muestran dos o tres; que lo diga la mesa")]
    # and on the tablet, once
    why = "no la veo: hay 4 carta(s) a la vista, se muestran dos o tres; que lo diga la mesa"
    assert [(text, said) for text, _, said in service.doubts] == [("A1 muestra sus cartas", why)]


def test_a_doubt_is_shown_on_the_tablet_with_the_frame_it_was_read_on(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly(*ENVIDO_28_WON_BY_A1)
    camera = TableCamera(service, recognizer, log=lambda _: None)
    feed(camera, frame(wikimedia, {"A1": ["7o", "1o", "12b", "4c"]}), 4 * VERDICT)
    [(text, picture, why)] = service.doubts
    assert text == "A1 muestra sus cartas" and why.startswith("no la veo: hay 4 carta(s)")
    assert picture[:2] == b"\xff\xd8" and not service.seen and not service.submitted

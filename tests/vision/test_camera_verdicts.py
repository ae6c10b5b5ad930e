"""When the camera tells a show, and when it leaves it to the table: a verdict rests on the same
cards read look after look."""

from __future__ import annotations

import numpy as np

from engine.cards import Card
from referee.table_camera import SHOW_EVERY, SHOW_STEADY, TableCamera
from referee.vision.recognize import Reading
from tests.vision.test_table_camera import TableOnly, feed

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

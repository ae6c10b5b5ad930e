"""The tablet shows how the camera is doing: missing or unplugged (in trouble until it is back),
a frame that failed (until the next ones are looked at), stopped for good, or no deck to read
the cards with; and nothing when no camera was asked for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import Card
from referee import camera_startup, startup_lines
from referee.camera_startup import CLEAR_AFTER, run_camera, start_table_camera
from referee.commands.serve_arguments import demo_arguments
from referee.vision import camera as camera_module
from referee.vision import reference
from referee.vision.bank import Bank
from referee.vision.camera import CameraSource
from tests.vision.test_camera_source import MISSING, Plugged

FRAME = np.full((4, 4, 3), 1, np.uint8)


class Pages:
    """The scoreboard's service as far as the camera tells it how it is doing."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str, str]] = []

    def set_source(self, key: str, state: str, message: str) -> None:
        self.shown.append((key, state, message))


class Busy:
    """A table camera whose look at a frame fails ``times`` times (the store is busy), then works."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.looked = 0

    def step(self, frame: np.ndarray) -> None:
        if self.times:
            self.times -= 1
            raise RuntimeError("database is locked")
        self.looked += 1


def shown_while_running(camera: Any, frames: Any) -> list[tuple[str, str]]:
    shown: list[tuple[str, str]] = []
    said: list[str] = []
    thread = run_camera(camera, frames, said.append,
                        lambda state, message: shown.append((state, message)))
    thread.join(timeout=60)
    return shown


def test_a_frame_that_fails_shows_the_camera_in_trouble_until_frames_are_looked_at_again() -> None:
    trouble = ("trouble", "no pude mirar una imagen (database is locked); sigo con la siguiente")
    assert shown_while_running(Busy(2), [FRAME] * (2 + CLEAR_AFTER - 1)) == [trouble] * 2
    assert shown_while_running(Busy(2), [FRAME] * (2 + CLEAR_AFTER)) == \
        [trouble] * 2 + [("ok", "vuelvo a mirar las imágenes")]
    assert shown_while_running(Busy(0), [FRAME] * (2 * CLEAR_AFTER)) == []  # fine: nothing to say


def test_a_camera_that_stops_for_good_shows_it() -> None:
    def frames() -> Iterator[np.ndarray]:
        yield FRAME
        raise RuntimeError("el driver se colgó")

    camera = Busy(0)
    assert shown_while_running(camera, frames()) == [
        ("trouble", "se detuvo: el driver se colgó; se anota sin cámara")]
    assert camera.looked == 1


def test_a_camera_unplugged_and_plugged_again_shows_on_the_tablet() -> None:
    pages, said = Pages(), list[str]()
    camera = Plugged(MISSING, [FRAME])
    status = startup_lines.source_status(pages, "camera", startup_lines.said_once(said.append, "cámara"))
    camera.source = CameraSource(0, retry_s=0.0, opener=camera, on_status=status)
    assert len(list(camera.source)) == 1
    assert pages.shown[:2] == [("camera", "trouble", "no puedo abrir la cámara 0; reintento en 0 s"),
                               ("camera", "ok", "la cámara 0 ya manda imágenes")]
    assert said[:2] == ["cámara: no puedo abrir la cámara 0; reintento en 0 s",
                        "cámara: la cámara 0 ya manda imágenes"]


def test_no_deck_to_read_the_cards_with_shows_the_camera_in_trouble(tmp_path: Path) -> None:
    pages = Pages()
    args = demo_arguments(camera=0, models_dir=str(tmp_path / "models"), data_dir=tmp_path)
    part = start_table_camera(args, pages, lambda line: None)
    assert not part.running and "ningún mazo de referencia" in part.detail
    assert pages.shown == [("camera", "trouble", part.detail)]


class Table(Pages):
    """The scoreboard's service with a game of two in play."""

    def snapshot(self) -> dict[str, Any]:
        return {"seats": ["A1", "B1"], "duels": [], "log": []}


class NoCamera:
    """A camera that is not plugged in (``CameraSource`` as ``start_table_camera`` makes it)."""

    def __init__(self, index: int, *args: Any, **kwargs: Any) -> None:
        self.index = index

    def open(self) -> str:
        return f"no puedo abrir la cámara {self.index}"


def test_a_seat_region_for_a_seat_not_at_the_table_is_said_at_start_up(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Said at once, not only when the camera reads its first frame: there may be no camera yet."""
    bank = Bank(np.ones((1, 4), np.float32) / 2, (Card.parse("1e"),))
    monkeypatch.setattr(reference, "reference_bank", lambda *args, **kwargs: bank)
    monkeypatch.setattr(camera_module, "CameraSource", NoCamera)
    monkeypatch.setattr(camera_startup, "run_camera", lambda *args, **kwargs: None)
    args = demo_arguments(camera=0, models_dir=str(tmp_path / "models"), data_dir=tmp_path,
                          seat_region=[("A3", (0.0, 0.0, 0.5, 1.0)), ("B1", (0.5, 0.0, 1.0, 1.0))])
    said: list[str] = []
    part = start_table_camera(args, Table(), said.append)
    assert not part.running
    assert said == ["cámara: A3 no juega en esta mesa; esa región no se usa"]

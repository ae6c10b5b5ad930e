"""The camera at the table is looked for again and again: missing at the start or unplugged
during the game, it is said once in plain words, and the cards are followed again once it is back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from engine.cards import Card
from referee.camera_startup import run_camera
from referee.table_camera import TableCamera
from referee.vision.camera import CameraSource
from referee.vision.errors import VisionError
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer
from tests.vision.test_table_camera import TableOnly, frame

MISSING = VisionError("camera-missing", "no puedo abrir la cámara 0")


class Plugged:
    """A camera that is missing (an error) or gives some frames and is then unplugged, in turn;
    when the script is over it stops the source."""

    def __init__(self, *sessions: Any) -> None:
        self.sessions = list(sessions)
        self.source: CameraSource | None = None

    def __call__(self, index: int, width: int, height: int) -> Iterator[np.ndarray]:
        if not self.sessions:
            assert self.source is not None
            self.source.stop()
            raise MISSING
        session = self.sessions.pop(0)
        if isinstance(session, VisionError):
            raise session
        return self._frames(session)

    @staticmethod
    def _frames(frames: list[np.ndarray]) -> Iterator[np.ndarray]:
        yield from frames
        raise VisionError("camera-stopped", "la cámara 0 dejó de mandar imágenes")


def source_for(camera: Plugged, said: list[str]) -> CameraSource:
    camera.source = CameraSource(0, retry_s=0.0, on_status=said.append, opener=camera)
    return camera.source


def test_a_camera_unplugged_and_plugged_again_gives_frames_again() -> None:
    a, b, c = (np.full((4, 4, 3), v, np.uint8) for v in (1, 2, 3))
    said: list[str] = []
    source = source_for(Plugged(MISSING, [a, b], MISSING, [c]), said)
    assert [int(f[0, 0, 0]) for f in source] == [1, 2, 3]
    assert said == ["no puedo abrir la cámara 0; reintento en 0 s", "la cámara 0 ya manda imágenes",
                    "la cámara 0 dejó de mandar imágenes; reintento en 0 s",
                    "no puedo abrir la cámara 0; reintento en 0 s", "la cámara 0 ya manda imágenes",
                    "la cámara 0 dejó de mandar imágenes; reintento en 0 s",
                    "no puedo abrir la cámara 0; reintento en 0 s"]


def test_opening_says_what_is_wrong_or_keeps_the_camera_open() -> None:
    a, b = (np.full((4, 4, 3), v, np.uint8) for v in (1, 2))
    said: list[str] = []
    missing = source_for(Plugged(MISSING), said)
    assert missing.open() == "no puedo abrir la cámara 0"
    there = source_for(Plugged([a, b]), said)
    assert there.open() is None  # reads the first frame; the stream goes on from there
    assert [int(f[0, 0, 0]) for f in there] == [2]


def test_the_table_camera_follows_the_cards_again_once_the_camera_is_back(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    service = TableOnly("hand")
    said: list[str] = []
    camera = TableCamera(service, recognizer, log=said.append)
    one = frame(wikimedia, {"A1": ["4c"]})
    two = frame(wikimedia, {"A1": ["4c"], "B1": ["5c"]})
    source = source_for(Plugged([one] * 3, MISSING, [two] * 3), [])
    run_camera(camera, source, said.append).join(timeout=60)
    assert service.submitted == ["A1 plays 4c", "B1 plays 5c"]
    assert not any("se detuvo" in line for line in said)


class Broken(Plugged):
    """A camera whose driver fails (not a missing camera: any error) before it gives frames."""

    def __call__(self, index: int, width: int, height: int) -> Iterator[np.ndarray]:
        if self.sessions and isinstance(self.sessions[0], Exception):
            raise self.sessions.pop(0)
        return super().__call__(index, width, height)


def test_a_driver_error_is_said_and_the_camera_looked_for_again() -> None:
    a = np.full((4, 4, 3), 1, np.uint8)
    said: list[str] = []
    camera = Broken(RuntimeError("VIDIOC_DQBUF: No such device"), [a])
    camera.source = CameraSource(0, retry_s=0.0, on_status=said.append, opener=camera)
    assert camera.source.open() == "la cámara 0 falló (RuntimeError: VIDIOC_DQBUF: No such device)"
    camera.sessions.insert(0, RuntimeError("VIDIOC_DQBUF: No such device"))
    assert [int(f[0, 0, 0]) for f in camera.source] == [1]
    assert said[:2] == [("la cámara 0 falló (RuntimeError: VIDIOC_DQBUF: No such device); "
                         "reintento en 0 s"), "la cámara 0 ya manda imágenes"]


def test_odd_frames_are_skipped_and_the_cards_followed(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    import cv2

    service = TableOnly("hand")
    said: list[str] = []
    camera = TableCamera(service, recognizer, log=said.append)
    one = frame(wikimedia, {"A1": ["4c"]})
    for odd in (np.zeros((0, 0, 3), np.uint8), np.zeros((480, 640, 2), np.uint8)):
        camera.step(odd)
    for colour in (cv2.COLOR_BGR2GRAY, cv2.COLOR_BGR2BGRA, cv2.COLOR_BGR2GRAY):
        camera.step(cv2.cvtColor(one, colour))
    assert service.submitted == ["A1 plays 4c"]
    assert len([line for line in said if "salteo" in line]) == 1


def test_a_frame_that_fails_costs_that_frame_not_the_camera(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    class Busy(TableOnly):
        """A table that cannot answer for a moment (the store is busy)."""

        def __init__(self, *lines: str) -> None:
            super().__init__(*lines)
            self.busy = 2

        def snapshot(self) -> dict[str, Any]:
            if self.busy:
                self.busy -= 1
                raise RuntimeError("database is locked")
            return super().snapshot()

    service = Busy("hand")
    said: list[str] = []
    camera = TableCamera(service, recognizer, log=said.append)
    one = frame(wikimedia, {"A1": ["4c"]})
    run_camera(camera, [one] * 5, said.append).join(timeout=60)
    assert service.submitted == ["A1 plays 4c"]
    assert said[0] == "cámara: no pude mirar una imagen (database is locked); sigo con la siguiente"
    assert not any("se detuvo" in line for line in said)

"""Frames from a camera through OpenCV, with clear errors when it cannot be opened, and a source
that keeps looking for the camera at the table (``CameraSource``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import cv2
import numpy as np

from referee.vision.errors import VisionError


def camera_frames(index: int, width: int = 1280, height: int = 720) -> Iterator[np.ndarray]:
    """Frames from camera ``index`` until it stops giving them."""
    level = cv2.utils.logging.getLogLevel()  # a missing camera is said once, in our words below
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        cap = cv2.VideoCapture(index)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if not cap.isOpened():
        raise VisionError("camera-missing", f"no puedo abrir la cámara {index}: "
                          "fijate que esté enchufada y que ningún otro programa la esté usando")
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    try:
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                raise VisionError("camera-stopped", f"la cámara {index} dejó de mandar imágenes")
            yield frame
    finally:
        cap.release()


class CameraSource:
    """The camera over the table as a stream of frames.  If it is missing or gets unplugged,
    ``on_status`` is told in plain words and the source keeps retrying until it is back (or
    ``stop()`` is called), as the microphone does: the game goes on without the camera meanwhile."""

    def __init__(self, index: int, width: int = 640, height: int = 480, *, retry_s: float = 2.0,
                 on_status: Callable[[str], None] = lambda msg: None,
                 opener: Callable[[int, int, int], Iterator[np.ndarray]] = camera_frames) -> None:
        self.index, self.width, self.height = index, width, height
        self.retry_s = retry_s
        self.on_status = on_status
        self._opener = opener
        self._opened: Iterator[np.ndarray] | None = None
        self._stopped = False

    def open(self) -> str | None:
        """Open the camera now and read a frame: None if it gives frames, else what is wrong."""
        try:
            frames = self._opener(self.index, self.width, self.height)
            next(frames)
        except VisionError as err:
            return err.message
        except StopIteration:
            return f"la cámara {self.index} no manda imágenes"
        self._opened = frames
        return None

    def stop(self) -> None:
        self._stopped = True

    def __iter__(self) -> Iterator[np.ndarray]:
        lost = False
        while not self._stopped:
            try:
                frames = self._opened or self._opener(self.index, self.width, self.height)
                self._opened = None
                for frame in frames:
                    if lost:
                        self.on_status(f"la cámara {self.index} ya manda imágenes")
                        lost = False
                    yield frame
                    if self._stopped:
                        return
                raise VisionError("camera-stopped", f"la cámara {self.index} dejó de mandar imágenes")
            except VisionError as err:
                lost = True
                self.on_status(f"{err.message}; reintento en {self.retry_s:.0f} s")
                time.sleep(self.retry_s)


def can_show_windows() -> bool:
    """Whether this OpenCV build can open a preview window (the headless build cannot)."""
    try:
        cv2.namedWindow("truco-referee-probe", cv2.WINDOW_AUTOSIZE)
        cv2.destroyWindow("truco-referee-probe")
        return True
    except cv2.error:
        return False

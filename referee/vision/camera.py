"""Frames from a camera through OpenCV, with clear errors when it cannot be opened, and a source
that keeps looking for the camera at the table (``CameraSource``); ``bgr_frame`` makes any frame
a camera sends a colour frame, or tells it cannot be one."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import cv2
import numpy as np

from referee.device_status import retrying
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


def bgr_frame(frame: object) -> np.ndarray | None:
    """The frame as 8-bit BGR colour (a grey or BGRA frame converted), or None for one no card
    can be read on (empty, another shape or type)."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.size == 0:
        return None
    channels = 1 if frame.ndim == 2 else frame.shape[2] if frame.ndim == 3 else 0
    if channels == 1:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if channels == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame if channels == 3 else None


class CameraSource:
    """The camera over the table as a stream of frames.  If it is missing, gets unplugged or its
    driver fails, ``on_status`` is told in plain words and the source keeps retrying until it is
    back (or ``stop()`` is called), as the microphone does: the game goes on without the camera
    meanwhile."""

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
        except StopIteration:
            return f"la cámara {self.index} no manda imágenes"
        except Exception as err:  # noqa: BLE001 - a driver's error is said, as a camera missing
            return self._trouble(err)
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
            except Exception as err:  # noqa: BLE001 - a driver's error, as a camera unplugged
                lost = True
                self.on_status(retrying(self._trouble(err), self.retry_s))
                time.sleep(self.retry_s)

    def _trouble(self, err: Exception) -> str:
        """What went wrong with the camera, in plain words."""
        if isinstance(err, VisionError):
            return err.message
        return f"la cámara {self.index} falló ({type(err).__name__}: {err})"


def can_show_windows() -> bool:
    """Whether this OpenCV build can open a preview window (the headless build cannot)."""
    try:
        cv2.namedWindow("truco-referee-probe", cv2.WINDOW_AUTOSIZE)
        cv2.destroyWindow("truco-referee-probe")
        return True
    except cv2.error:
        return False

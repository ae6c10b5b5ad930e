"""Frames from a camera through OpenCV, with clear errors when it cannot be opened."""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from referee.vision.errors import VisionError


def camera_frames(index: int, width: int = 1280, height: int = 720) -> Iterator[np.ndarray]:
    """Frames from camera ``index`` until it stops giving them."""
    cap = cv2.VideoCapture(index)
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


def can_show_windows() -> bool:
    """Whether this OpenCV build can open a preview window (the headless build cannot)."""
    try:
        cv2.namedWindow("truco-referee-probe", cv2.WINDOW_AUTOSIZE)
        cv2.destroyWindow("truco-referee-probe")
        return True
    except cv2.error:
        return False

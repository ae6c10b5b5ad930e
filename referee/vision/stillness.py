"""A still table need not be read again: each frame, shrunk, is compared with the last one read.

A fixed camera over a table sees the same cards for seconds at a time, while the referee also has
speech to recognize on the same processor.  A frame whose shrunken grey copy (one pixel for each
8×8 of a 640×480 frame) differs from the last one read in fewer than ``MOVED_PIXELS`` pixels by
more than ``MOVED_LEVELS`` grey levels is still: the readings of the last frame stand for it.  A
card put down changes dozens of those pixels (the smallest card the search looks for covers some
30), a hand or a finger more; the camera's noise, averaged over 64 pixels, moves none.  The table
is read again at least every ``MAX_STILL`` frames whatever it shows."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

THUMB = (80, 60)
MOVED_LEVELS = 12
MOVED_PIXELS = 3
MAX_STILL = 10


@dataclass
class Stillness:
    """``still(frame)``: whether the frame shows what the last frame read showed."""

    max_still: int = MAX_STILL
    _last: np.ndarray | None = field(default=None, repr=False)
    _still: int = 0

    def still(self, frame: np.ndarray) -> bool:
        """True if ``frame`` need not be read; otherwise it becomes the frame compared with."""
        thumb = cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), THUMB,
                           interpolation=cv2.INTER_AREA)
        if self._last is not None and self._still < self.max_still:
            moved = np.count_nonzero(cv2.absdiff(thumb, self._last) > MOVED_LEVELS)
            if moved < MOVED_PIXELS:
                self._still += 1
                return True
        self._last, self._still = thumb, 0
        return False

    def forget(self) -> None:
        """The next frame is read, whatever it shows."""
        self._last, self._still = None, 0

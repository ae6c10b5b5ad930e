"""How loud a table's background is against its voices: a quiet table and a noisy one are decoded
differently (``SphinxTuning.noisy_below``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

FRAME = 160  # 10 ms at 16 kHz


class NoiseMeter:
    """The spread between the table's loud and quiet moments over the last ``window_s`` seconds:
    the 95th percentile of the 10 ms frames' levels (voices) minus the 10th (the background), in dB."""

    def __init__(self, window_s: float = 10.0, least_s: float = 1.0) -> None:
        self._levels: deque[float] = deque(maxlen=round(window_s * 100))
        self._least = round(least_s * 100)
        self._rest = np.zeros(0)

    def feed(self, samples: np.ndarray) -> None:
        """Samples in int16 units, in any chunk sizes."""
        x = np.concatenate([self._rest, np.asarray(samples, dtype=np.float64)])
        n = len(x) // FRAME
        self._rest = x[n * FRAME:]
        if n:
            rms = np.sqrt(np.mean(x[: n * FRAME].reshape(n, FRAME) ** 2, axis=1))
            self._levels.extend((20 * np.log10(rms + 1.0)).tolist())

    @property
    def snr_db(self) -> float | None:
        """None until a second of sound has been heard."""
        if len(self._levels) < self._least:
            return None
        low, high = np.percentile(np.fromiter(self._levels, float), [10, 95])
        return float(high - low)

    @property
    def levels(self) -> list[float]:
        """What the meter remembers, to carry over to a new stream."""
        return list(self._levels)

    @levels.setter
    def levels(self, levels: Iterable[float]) -> None:
        self._levels.clear()
        self._levels.extend(levels)
        self._rest = np.zeros(0)

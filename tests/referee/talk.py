"""Talk made of noise, for the tests of what a microphone's sound is like (``referee.band``)."""

from __future__ import annotations

import numpy as np


def talk(seconds: float, seed: int = 1) -> np.ndarray:
    """Bursts of full-band noise (0.4 s) between quieter pauses (0.3 s), as frames at 16 kHz."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * 16000)) / 16000
    loud = np.where((t % 0.7) < 0.4, 0.2, 0.005)
    return (rng.standard_normal(len(t)) * loud)[:, None].clip(-1, 1)

"""What the table sounds like, remembered between sessions: the recognizer's cepstral mean.

Sphinx divides out the average spectrum of what it has been hearing (room, microphone, voices).
A fresh start uses a generic average and needs about half a minute of talk to settle on the
table's; until then calls are missed more often (the speech benchmark, held-out voices: call
recall 53% from a cold start, 71% once settled).  So the settled average is kept in the data
folder, restored when the microphone starts listening again and saved as the table talks.
Recordings (``--wav``) neither use nor change it.

With a microphone per team on two devices, how much later B's hands over its sound than A's
(``mics.TeamMics``'s lag) is kept the same way, one file per pair of microphones: the next
session places B's sound by it from the start (its first voice checks it, ``mics``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from referee.mic_lag import LAG_MAX_S

SAVE_EVERY_S = 10.0
VALUES = 13  # one per cepstral coefficient


class HasCepstralMean(Protocol):
    cepstral_mean: str


def sound_file(data_dir: Path, model_dir: Path) -> Path:
    """Where the average is kept: one file per acoustic model (their spaces differ)."""
    return data_dir / f"sonido-de-la-mesa-{model_dir.name}.txt"


def valid_mean(text: str) -> bool:
    try:
        values = [float(v) for v in text.strip().split(",")]
    except ValueError:
        return False
    return len(values) == VALUES and all(abs(v) < 1e4 for v in values)


class TableSound:
    """Restores the recognizer's average at start and saves it, at most every ``SAVE_EVERY_S``."""

    def __init__(self, recognizer: HasCepstralMean, path: Path,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.recognizer = recognizer
        self.path = path
        self._clock = clock
        self._saved_at: float | None = None

    def restore(self) -> bool:
        """Use the kept average if there is a sound one; False if there was none to use."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, ValueError):  # gone, or damaged (not even text): start cold
            return False
        if not valid_mean(text):
            return False
        self.recognizer.cepstral_mean = text.strip()
        return True

    def heard(self) -> None:
        """After an utterance: save the average if the last save is old enough."""
        now = self._clock()
        if self._saved_at is not None and now - self._saved_at < SAVE_EVERY_S:
            return
        self._saved_at = now
        self.save()

    def save(self) -> None:
        mean = self.recognizer.cepstral_mean
        if valid_mean(mean):  # losing it only costs the next start a few missed calls
            _keep(self.path, mean)


def lag_file(data_dir: Path, mic_a: str, mic_b: str) -> Path:
    """Where the lag of B's microphone is kept: one file per pair, by their names
    (``microphone.device_names``)."""
    def name(mic: str) -> str:
        return "".join(c if c.isalnum() else "-" for c in mic)

    return data_dir / f"microfonos-{name(mic_a)}-{name(mic_b)}.txt"


def kept_lag(path: Path) -> float | None:
    """The lag kept for a pair of microphones (seconds); None if there is no sound one."""
    try:
        lag = float(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return lag if abs(lag) <= LAG_MAX_S else None


def keep_lag(path: Path, lag: float) -> None:
    """Keep a pair's new lag (losing it only costs the next start its first phrases)."""
    _keep(path, f"{lag:.4f}")


def _keep(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all (a reader never sees half of it); a failure is let go."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass

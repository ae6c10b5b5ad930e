"""Whether a microphone's sound comes clipped: turned up so far that the loudest of each word is
cut flat at full scale.

A microphone whose gain is too high, or a player who talks into it from a hand away, hands over
words with their tops cut off, and the recognizer hears them worse.  The speech benchmark's
``--clipped`` measures it (docs/voice.md, "A microphone turned up too far"): on the held-out
voices, clean, the calls applied fell from 67.7% as recorded to 65.4% with the loudest sample
1 dB over full scale, 61.7% at 3 dB, 54.1% at 6 and 37.6% at 20, and the wrong envido numbers
rose from 5.9% to 10.6, 10.6, 16.5 and 10.6% (the numbers heard right 45.9% → 23.5% at 20 dB).
So the table is told, once, when its microphone clips, and again when it no longer does.

Each 0.1 s chunk where someone talks (``band.VoiceGate``) counts its samples at ``FULL`` of full
scale or beyond; over the last ``WINDOW`` such chunks, the sound is clipped where they are
``CLIPPED_SHARE`` of the samples or more, and fine again under ``FINE_SHARE``.  On the corpus's
voices, a file at a time (a script, not kept; docs/voice.md, "A microphone turned up too far"):
as recorded, not a sample reaches ``FULL`` (every file peaks 3 dB or more below full scale), in
noise at 10 dB SNR neither; with the loudest sample 1 dB over full scale, the share was 0.06% at
the median (p10 0.01%), at 3 dB 0.38% (p10 0.06%), at 6 dB 1.65% (p10 0.38%); clipped at 48 kHz
and resampled to 16 kHz, as a microphone's sound is, 0.04%, 0.24% and 1.10%.  A microphone 1 dB
over is told about half the time, one 3 dB over nearly always.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from referee.band import VoiceGate

FULL = 0.99
CLIPPED_SHARE = 0.0005
FINE_SHARE = 0.0001
WINDOW = 50  # chunks with a voice (5 s of talk) the sound is judged on
FIRST = 10  # chunks with a voice (1 s) before it is judged at all

_FULL_INT = FULL * 32768.0


class Clipping:
    """How much of a microphone's talk comes cut flat at full scale, chunk by chunk (module
    docstring)."""

    def __init__(self) -> None:
        self.clipped = False
        self.share: float | None = None  # of the window's samples at FULL or beyond
        self._talk = VoiceGate()
        self._heard: deque[tuple[int, int]] = deque(maxlen=WINDOW)  # (samples, at full scale)

    def hear(self, pcm: bytes) -> bool:
        """Take a chunk (16 kHz int16); whether it changed whether the sound is ``clipped``."""
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
        power = float(np.mean(samples**2)) if len(samples) else 0.0
        if power <= 0.0 or not self._talk.voiced(power):
            return False
        self._heard.append((len(samples), int(np.count_nonzero(np.abs(samples) >= _FULL_INT))))
        if len(self._heard) < FIRST:
            return False
        total, full = np.sum(self._heard, axis=0)
        self.share = float(full / total)
        clipped = self.share >= (FINE_SHARE if self.clipped else CLIPPED_SHARE)
        changed = clipped != self.clipped
        self.clipped = clipped
        return changed

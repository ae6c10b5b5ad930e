"""The last seconds of a stream's input audio, speech or not, kept for decoding a stretch of it
again (a phrase with the next one, a pre-roll before a voice), and whether a stretch has a sound of
its own."""

from __future__ import annotations

import numpy as np

from referee.asr.base import SAMPLE_RATE
from referee.asr.noise import FRAME

RECENT_S = 6.0  # input audio kept for decoding a phrase again with the next one (``join_s``)
# A pre-roll (``SphinxTuning.pre_roll_s``) is decoded only where the table has a sound of its own,
# its quietest 10 ms above this: in digital silence (a file's, about -96 dBFS) the model heard the
# start of «no quiero» as «flor quiero» (docs/voice.md, "The start of a phrase").
PRE_ROLL_FLOOR_DBFS = -80.0


class RecentAudio:
    """The last ``RECENT_S`` of input audio (16-bit mono), placed by sample of the stream."""

    def __init__(self) -> None:
        self._audio = bytearray()
        self.start = 0  # the sample of the stream where the audio kept starts

    def add(self, pcm: bytes) -> None:
        """Keep ``pcm``, dropping what is now older than ``RECENT_S``."""
        self._audio += pcm
        extra = len(self._audio) // 2 - int(RECENT_S * SAMPLE_RATE)
        if extra > 0:
            del self._audio[: extra * 2]
            self.start += extra

    def drop_last(self, size: int) -> None:
        """Forget the last ``size`` bytes added (audio that will be fed again)."""
        del self._audio[-size:]

    def since(self, first: int) -> bytes:
        """The audio kept from the sample ``first`` of the stream on."""
        return bytes(self._audio[(first - self.start) * 2:])

    def between(self, first: int, end: int) -> bytes | None:
        """The audio kept from the sample ``first`` of the stream to ``end`` (None unless
        ``first`` is kept and comes before ``end``)."""
        a, b = first - self.start, end - self.start
        if a < 0 or b <= a:
            return None
        return bytes(self._audio[a * 2: b * 2])


def has_sound(pcm: bytes) -> bool:
    """Whether every 10 ms of ``pcm`` is louder than digital silence (``PRE_ROLL_FLOOR_DBFS``)."""
    x = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
    n = len(x) // FRAME
    if not n:
        return False
    quietest = np.sqrt(np.mean(x[: n * FRAME].reshape(n, FRAME) ** 2, axis=1)).min()
    return bool(quietest >= 32768 * 10 ** (PRE_ROLL_FLOOR_DBFS / 20))

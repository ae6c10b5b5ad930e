"""What the table is told of a source's sound as it is heard: clipped (``referee.clipping``),
through a narrow line (``referee.band``), or fine.  Clipped is said first: it costs more, and
the table can mend it by turning the microphone down."""

from __future__ import annotations

from referee.audio import SAMPLE_RATE
from referee.band import Band
from referee.clipping import Clipping
from referee.device_status import (
    CLIPPED_LINE,
    CLIPPED_RECORDING,
    FULL_RECORDING,
    NARROW_LINE,
    NARROW_RECORDING,
    UNCLIPPED_RECORDING,
)

LISTENING = "escuchando"


class SoundCheck:
    """A source's sound, chunk by chunk: ``hear`` says when what the table is told changes,
    ``live`` (a microphone) and ``recorded`` (a recording, from a moment on) say it."""

    def __init__(self, rate: int = SAMPLE_RATE) -> None:
        """``rate``: what the device records (or the recording was made) at (``Band``)."""
        self.band = Band(rate)
        self.clipping = Clipping()
        self._unclipped = False  # the last change was the sound no longer clipped

    def hear(self, pcm: bytes) -> bool:
        """Take a chunk (16 kHz int16); whether what the table is told changed."""
        narrow = self.band.hear(pcm)
        clipped = self.clipping.hear(pcm)
        if narrow or clipped:
            self._unclipped = clipped and not self.clipping.clipped
        return (narrow and not self.clipping.clipped) or clipped

    def live(self) -> str:
        """A microphone's status while it hears."""
        return CLIPPED_LINE if self.clipping.clipped else NARROW_LINE if self.band.narrow else LISTENING

    def recorded(self, t: float) -> str:
        """What a recording sounds like from ``t`` seconds on («a los 5.8 s satura …»)."""
        how = (CLIPPED_RECORDING if self.clipping.clipped else NARROW_RECORDING if self.band.narrow
               else UNCLIPPED_RECORDING if self._unclipped else FULL_RECORDING)
        return f"a los {t:.1f} s {how}"

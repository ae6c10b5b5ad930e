"""Whether a microphone's sound comes through a narrow line, as a telephone's does.

A Bluetooth headset talking over its 8 kHz link (the hands-free profile), or a sound server that
takes that link for the microphone, hands over sound with nothing above 4 kHz.  The Spanish model was trained on sound up to 6.8 kHz: the
«s» of «seis», «siete», «veintisiete» lives up there, and without it the envido numbers and the
look-alikes are heard worse (the speech benchmark's ``--narrowband``: README, "Voice").  What a
narrow line costs, a calibration made through it wins back (the model learns the line with the
voices), so the table is told, once, when its microphone sounds like one, and again when it no
longer does; a calibration's own recordings are heard the same way (``narrow_sound``), so that
one made through such a line is known.

Each 0.1 s chunk where someone talks (``VOICE_DB`` above the quietest of the last ``FLOOR_CHUNKS``)
adds its power above 4 kHz and its power in the voice's own band; over the last ``WINDOW`` such
chunks, a line is narrow where the first stands ``NARROW_DB`` or more below the second, and wide
again above ``WIDE_DB``: set from the corpus's voices heard one file after another (a script,
not kept; docs/voice.md, "A microphone through a narrow line"), where a full band stood 7-43 dB
below (the voices' medians 12-35 dB; clean, in noise and in a room), the real telephone
recordings 42-55 dB (median 49), and any voice through the speech benchmark's 8 kHz line
73-87 dB.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from referee.audio import CHUNK_S, SAMPLE_RATE

VOICE_HZ = (300.0, 3400.0)  # what every line carries
HIGH_HZ = (4000.0, 7000.0)  # what a narrow one does not
VOICE_DB = 10.0
FLOOR_CHUNKS = 100  # 10 s
WINDOW = 50  # chunks with a voice (5 s of talk) the line is judged on
FIRST = 30  # chunks with a voice (3 s) before it is judged at all
NARROW_DB = -46.0
WIDE_DB = -40.0

_SIZE = round(CHUNK_S * SAMPLE_RATE)
_FREQS = np.fft.rfftfreq(_SIZE, 1 / SAMPLE_RATE)
_VOICE = (_FREQS >= VOICE_HZ[0]) & (_FREQS < VOICE_HZ[1])
_HIGH = (_FREQS >= HIGH_HZ[0]) & (_FREQS < HIGH_HZ[1])
_WINDOW_SHAPE = np.hanning(_SIZE)


class VoiceGate:
    """Which chunks someone talks in: those whose power stands ``VOICE_DB`` or more above the
    quietest of the last ``FLOOR_CHUNKS``."""

    def __init__(self) -> None:
        self._floor: deque[float] = deque(maxlen=FLOOR_CHUNKS)

    def voiced(self, power: float) -> bool:
        """Take a chunk's power; whether someone talks in it."""
        self._floor.append(power)
        return power >= min(self._floor) * 10 ** (VOICE_DB / 10)


def narrow_rate(rate: float) -> bool:
    """Whether a device recording at ``rate`` Hz can hand over nothing above 4 kHz."""
    return rate <= 2 * HIGH_HZ[0]


class Band:
    """How much of a microphone's sound comes above 4 kHz, chunk by chunk (module docstring)."""

    def __init__(self, rate: int = SAMPLE_RATE) -> None:
        """``rate``: what the device records at; one at twice 4 kHz or less is narrow, and
        known so without a chunk (its sound resampled to 16 kHz carries nothing above)."""
        self.known = narrow_rate(rate)
        # None until FIRST chunks with a voice were heard
        self.narrow: bool | None = True if self.known else None
        self.above: float | None = None  # dB: the high band's power against the voice band's
        self._talk = VoiceGate()  # on each chunk's voice-band power
        self._heard: deque[tuple[float, float]] = deque(maxlen=WINDOW)  # (voice band, high)

    def hear(self, pcm: bytes) -> bool:
        """Take a chunk (16 kHz int16); whether it changed what the line is (``narrow``)."""
        if self.known:
            return False
        samples = np.frombuffer(pcm, dtype="<i2")[:_SIZE] / 32768.0
        if len(samples) < _SIZE:
            return False
        power = np.abs(np.fft.rfft(samples * _WINDOW_SHAPE)) ** 2
        voice, high = float(power[_VOICE].sum()), float(power[_HIGH].sum())
        if voice <= 0.0:  # digital silence: a device that has not started sending
            return False
        if not self._talk.voiced(voice):
            return False
        self._heard.append((voice, high))
        if len(self._heard) < FIRST:
            return False
        voices, highs = np.sum(self._heard, axis=0)
        self.above = 10 * float(np.log10(max(highs / voices, 1e-30)))
        narrow = self.above < (WIDE_DB if self.narrow else NARROW_DB)
        changed = narrow != bool(self.narrow)  # a wide line, first judged, is nothing new
        self.narrow = narrow
        return changed


def narrow_sound(recordings: Iterable[bytes]) -> bool:
    """Whether recordings (16 kHz int16: a calibration's prompts), heard one after another, came
    through a narrow line."""
    band = Band()
    for pcm in recordings:
        for k in range(0, len(pcm) - 2 * _SIZE + 1, 2 * _SIZE):
            band.hear(pcm[k: k + 2 * _SIZE])
    return bool(band.narrow)

"""How loud a table's background is against its voices: a quiet table and a noisy one are decoded
differently (``SphinxTuning.noisy_below``), and at a noisy one a pause is where the voices' band is
back down to the background (``NoiseMeter.quiet_s``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

FRAME = 160  # 10 ms at 16 kHz
# Above a fan's or a room's rumble, up to the «s» of «tres»; its power is averaged over
# ``SMOOTH`` frames (50 ms), so that the background's own flicker does not read as a voice.
BAND_HZ = (300.0, 8000.0)
SMOOTH = 5
# The background in that band is its quietest moment in the last ``FLOOR_S`` seconds (a table
# pauses more often than that), known once the stream has lasted ``FLOOR_LEAST_S``.
FLOOR_S = 1.5
FLOOR_LEAST_S = 0.2
# The band is quiet within this of its background; within 4 dB, a brown noise's flicker read as a
# voice most of the time, and was decoded (docs/voice.md, "A phrase in steady noise").
QUIET_DB = 5.0
_BINS = np.fft.rfftfreq(2 * FRAME, 1 / 16000)
_IN_BAND = (_BINS >= BAND_HZ[0]) & (_BINS <= BAND_HZ[1])
_WINDOW = np.hanning(FRAME)


class NoiseMeter:
    """The spread between the table's loud and quiet moments over the last ``window_s`` seconds:
    the 95th percentile of the 10 ms frames' levels (voices) minus the 10th (the background), in dB.
    It also follows the voices' band in the stream: ``quiet_s`` is how long that band has been
    within ``quiet_db`` of its quietest moment in the last ``FLOOR_S``."""

    def __init__(self, window_s: float = 10.0, least_s: float = 1.0, quiet_db: float = QUIET_DB) -> None:
        self._levels: deque[float] = deque(maxlen=round(window_s * 100))
        self._spread: tuple[float | None] | None = None  # ``snr_db`` of these levels, once asked
        self._least = round(least_s * 100)
        self._quiet_db = quiet_db
        self._rest = np.zeros(0)
        self._powers: deque[float] = deque(maxlen=SMOOTH)  # the band's last powers, to average
        self._band: deque[float] = deque(maxlen=round(FLOOR_S * 100))  # its averaged levels, dB
        self._quiet = 0  # frames
        self._frames = 0  # frames of the stream fed
        self._stretches: deque[tuple[int, int | None]] = deque(maxlen=256)  # the band's (rise, fall), frames

    def feed(self, samples: np.ndarray, *, stream: bool = True) -> None:
        """Samples in int16 units, in any chunk sizes; not of the stream (``stream=False``: sound
        heard between streams), they count for the table's levels but not for its pauses."""
        x = np.concatenate([self._rest, np.asarray(samples, dtype=np.float64)])
        n = len(x) // FRAME
        self._rest = x[n * FRAME:]
        if not n:
            return
        frames = x[: n * FRAME].reshape(n, FRAME)
        rms = np.sqrt(np.mean(frames**2, axis=1))
        self._levels.extend((20 * np.log10(rms + 1.0)).tolist())
        self._spread = None
        if not stream:
            return
        first, self._frames = self._frames, self._frames + n
        spectrum = np.abs(np.fft.rfft(frames * _WINDOW, 2 * FRAME, axis=1)) ** 2
        for i, power in enumerate(spectrum[:, _IN_BAND].sum(axis=1) / FRAME):
            self._powers.append(float(power))
            if len(self._powers) < SMOOTH:  # a shorter average dips lower than the background
                continue
            level = 10 * np.log10(sum(self._powers) / SMOOTH + 1.0)
            self._band.append(level)
            floor = min(self._band) if len(self._band) >= FLOOR_LEAST_S * 100 else None
            quiet = floor is not None and level < floor + self._quiet_db
            self._quiet = self._quiet + 1 if quiet else 0
            self._follow(floor is not None and not quiet, first + i)

    def _follow(self, loud: bool, frame: int) -> None:
        """Where the band's loud stretches begin (as early as the average that rose can have
        begun) and end."""
        was_loud = bool(self._stretches) and self._stretches[-1][1] is None
        if loud and not was_loud:
            self._stretches.append((frame + 1 - SMOOTH, None))
        elif was_loud and not loud:
            self._stretches[-1] = (self._stretches[-1][0], frame)

    @property
    def snr_db(self) -> float | None:
        """None until a second of sound has been heard."""
        if self._spread is None:  # asked many times between two chunks of sound
            self._spread = (self._measure(),)
        return self._spread[0]

    def _measure(self) -> float | None:
        if len(self._levels) < self._least:
            return None
        low, high = np.percentile(np.fromiter(self._levels, float), [10, 95])
        return float(high - low)

    @property
    def quiet_s(self) -> float:
        """How long the voices' band has been back down to its background, up to the last sound
        fed (seconds)."""
        return self._quiet * FRAME / 16000

    @property
    def last_loud(self) -> float:
        """Where in the stream (seconds) the voices' band was last above its background: where a
        voice may have been."""
        return (self._frames - self._quiet) * FRAME / 16000

    def loud_since(self, t: float) -> tuple[tuple[float, float], ...]:
        """Where (start, end, in seconds) the voices' band was above its background since stream
        time ``t``; the last stretch ends at the sound fed if the band still is."""
        stretches = ((rise, self._frames if fall is None else fall) for rise, fall in self._stretches)
        return tuple((max(0, rise) * FRAME / 16000, fall * FRAME / 16000)
                     for rise, fall in stretches if fall * FRAME / 16000 > t)

    @property
    def levels(self) -> list[float]:
        """What the meter remembers of the table, to carry over to a new stream."""
        return list(self._levels)

    @levels.setter
    def levels(self, levels: Iterable[float]) -> None:
        self._levels.clear()
        self._levels.extend(levels)
        self._spread = None
        self._rest = np.zeros(0)

"""How much later one microphone's device hands over the sound of a moment than the other's,
measured from the voices both hear, and how the table is told (docs/voice.md, "Who said it").

Each device holds its sound a while before handing it over (a USB microphone a few milliseconds,
a Bluetooth one 0.1-0.3 s), and a chunk late because its device is slow looks like one on time:
arrivals cannot show it, so ``mics.TeamMics`` places B's sound by the lag ``Lag`` finds."""

from __future__ import annotations

from collections import deque

import numpy as np

from referee.audio import SAMPLE_RATE

APART = 80  # samples (5 ms): the two microphones' sound this far apart in time is together
LAG_MAX_S = 0.5  # the most one device's sound of a moment may come after the other's
LAG_WINDOW = 20  # chunks (2 s) of both microphones' sound that each measure of the lag is made on
LAG_EVERY = 5  # chunks (0.5 s) between measures
LAG_SURE = 2.2  # a lag is measured where it stands this many times above any other (noise: < 2.0)
LAG_BAND = (200.0, 4000.0)  # Hz: the voice's band, where the lag is looked for
LAG_KEPT = 5  # the last measures the lag is set from: the median of three or more that agree


class Lag:
    """How much later B's device hands over the sound of a moment than A's, beyond what their
    arrivals show: the same voice is found in both microphones' last ``LAG_WINDOW`` of sound,
    every half second, by cross-correlation (GCC-PHAT, ``delay``).  Independent noise at each
    microphone shows no lag; a noise heard by both shows the same one as a voice.  The lag is set
    where three or more of the last ``LAG_KEPT`` measures agree (``_agreed``), or before by one
    measure on a voice's first second (``placed``); it is known from then on (or from the start,
    kept from the last session, until a measure finds another), in step or not, and moved only
    by ``APART`` or more (a voice nearer one microphone reaches the other a few milliseconds
    later: the lag measured on each team's voices differs by that much)."""

    def __init__(self, known: bool) -> None:
        self._measured: deque[float] = deque(maxlen=LAG_KEPT)  # each with the lag it was made at
        self.known = known  # measured, or kept from the last session
        self.found = False  # measured on this session's sound (a kept one checked by it)
        self.restart()

    def restart(self) -> None:
        """The sound heard by both starts again (one microphone went on alone, or was dropped)."""
        self._pairs: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=LAG_WINDOW)
        self._new = 0

    def heard(self, a: np.ndarray, b: np.ndarray, lag: float) -> float | None:
        """Both microphones' sound of the same moments, B's placed ``lag`` earlier than its
        arrivals show: the lag to place it by from now on, when it is new or first known."""
        self._pairs.append((a, b))
        self._new += 1
        if len(self._pairs) < LAG_WINDOW or self._new < LAG_EVERY:
            return None
        self._new = 0
        a, b = (np.concatenate(sound) for sound in zip(*self._pairs))
        self._measure(a, b, lag)
        agreed = self._agreed()
        return None if agreed is None else self._settle(agreed, lag)

    def placed(self, a: np.ndarray, b: np.ndarray, lag: float) -> float | None:
        """Both microphones' sound from a voice's first chunk on, B's placed ``lag`` earlier,
        before the lag is found on this session's sound: the lag to place it by from now on,
        where this one measure finds it and it is new."""
        measured = self._measure(a, b, lag)
        return None if measured is None else self._settle(measured, lag)

    def _agreed(self) -> float | None:
        """The median of the most measures that agree (each within ``APART`` of one of them),
        where three or more do: two apart are not averaged into a lag neither showed."""
        groups = ([m for m in self._measured if abs(m - each) * SAMPLE_RATE < APART]
                  for each in self._measured)
        most = max(groups, key=len, default=[])
        return float(np.median(most)) if len(most) >= 3 else None

    def _settle(self, measured: float, lag: float) -> float | None:
        """A lag measured with B's sound placed by ``lag``: found, and known; returned where it
        is new (none was known, or it is ``APART`` or more from ``lag``)."""
        agrees = self.known and abs(measured - lag) * SAMPLE_RATE < APART
        self.known = self.found = True
        if agrees:
            return None
        self.restart()  # the sound heard so far was out of step by the difference
        return measured

    def _measure(self, a: np.ndarray, b: np.ndarray, lag: float) -> float | None:
        """Measure the lag on both microphones' sound, B's placed by ``lag``: the lag found, kept
        among the measures, or None."""
        # B's sound may be placed by a lag that is not its device's (kept from the last session,
        # another device's now): looked for far enough to find any lag within LAG_MAX_S
        found = delay(a, b, reach=LAG_MAX_S + abs(lag))
        if found is None or abs(lag + found) > LAG_MAX_S:
            return None
        self._measured.append(lag + found)
        return lag + found


def delay(a: np.ndarray, b: np.ndarray, reach: float = LAG_MAX_S) -> float | None:
    """How much later (s) ``b`` has the sound ``a`` has, within ``reach`` either way, where one
    lag stands out ``LAG_SURE`` times above all others (those within ``APART`` of it aside).
    Only the voice's band (``LAG_BAND``) is weighed: above and below it each microphone hears
    mostly its own noise, which makes lags stand out that are not there.  Each is first made to
    start and end at zero (the line between its ends taken away): where the sound is cut out,
    both step at the same moments, and in a rumble those steps stand out as a lag of 0."""
    a, b = (x - np.linspace(x[0], x[-1], len(x)) for x in (a, b))
    n = 1 << (len(a) + len(b)).bit_length()
    cross = np.conj(np.fft.rfft(a / 32768.0, n)) * np.fft.rfft(b / 32768.0, n)
    hz = np.fft.rfftfreq(n, 1 / SAMPLE_RATE)
    cross[(hz < LAG_BAND[0]) | (hz > LAG_BAND[1])] = 0
    most = round(reach * SAMPLE_RATE)
    whitened = np.fft.irfft(cross / (np.abs(cross) + 1e-12), n)
    by_lag = np.concatenate([whitened[-most:], whitened[:most + 1]])  # lags -most..most
    k = int(np.argmax(by_lag))
    others = np.concatenate([by_lag[:max(0, k - APART)], by_lag[k + APART + 1:]])
    # none in silence (nothing stands out of zeros), nor at the end of the range (farther?)
    stands_out = 0 < by_lag[k] and by_lag[k] >= LAG_SURE * others.max() and 0 < k < 2 * most
    return (k - most) / SAMPLE_RATE if stands_out else None


AT_PAR = "los dos entregan su sonido a la par"


def in_step(lag: float) -> str:
    """What the table is told when the two microphones' sound is put in step (``Lag``)."""
    said = apart(lag)
    return said if said == AT_PAR else f"{said}; ya los escucho a la par"


def apart(lag: float) -> str:
    """How much later B's microphone hands over its sound than A's, said to the table."""
    if abs(lag) * SAMPLE_RATE < APART:
        return AT_PAR
    return (f"el de B entrega su sonido {round(abs(lag) * 1000)} ms "
            f"{'después' if lag > 0 else 'antes'} que el de A")

"""One microphone's sound not passed on yet, placed in time by when its chunks came: the part
of ``mics.TeamMics`` that keeps each device's sound (the ``mics`` module docstring tells how)."""

from __future__ import annotations

from collections import deque

import numpy as np

from referee.audio import SAMPLE_RATE, AudioChunk

ALIGN_S = 10.0  # how far back the arrivals that place a microphone's sound in time go
LOST_S = 1.0  # a device whose chunks all came, for this long, LOST_MIN_S or more later than
LOST_MIN_S = 0.05  # its sound's placement shows, lost sound (jitter delays some chunks, not all)


class Sound:
    """One microphone's sound not passed on yet, placed in time by when it came (``mics``
    module docstring).  Sound it lost is a hole: what it heard before stays where it was, what
    after is placed that much later."""

    def __init__(self) -> None:
        self.lag = 0.0  # s: how much later than its arrivals show its sound was heard (``Lag``)
        self.clear()

    def clear(self) -> None:
        """Forget the sound, and when it was heard: what comes next is placed afresh."""
        self.pcm = np.zeros(0, dtype="<i2")
        self._taken = 0  # samples taken since placed afresh
        self._front = 0  # samples of time the first one waiting comes after: taken and lost
        self._heard = 0  # samples of time since placed afresh: received and lost
        self._holes: deque[tuple[int, int]] = deque()  # waiting: (samples taken by then, lost)
        # each chunk's arrival, the start it implies, and the samples received with it
        self._starts: deque[tuple[float, float, int]] = deque()

    def add(self, chunk: AudioChunk, arrival: float) -> bool:
        """Take a chunk come at ``arrival``: whether a loss was found by it (some sound was
        lost a while ago, and what came since was placed too early until now).  One the device
        says follows lost sound (``AudioChunk.lost``) places what follows by its own arrival."""
        received = self._taken + len(self.pcm)
        samples = len(chunk.pcm) // 2
        if chunk.lost and self._starts:
            self._lose(arrival - (self._heard + samples) / SAMPLE_RATE - self._started(), received)
        self.pcm = np.concatenate([self.pcm, np.frombuffer(chunk.pcm, dtype="<i2")])
        self._heard += samples
        self._starts.append((arrival, arrival - self._heard / SAMPLE_RATE, received + samples))
        while self._starts[0][0] < arrival - ALIGN_S:
            self._starts.popleft()
        since = [start for came, start, _ in self._starts if came > arrival - LOST_S]
        started = self._started()
        late = min(since) - started
        if len(since) == len(self._starts) or late < LOST_MIN_S:
            return False
        # lost after the last chunk that came on time (one did: the earliest start is its)
        self._lose(late, max(end for _, start, end in self._starts
                             if start - started < LOST_MIN_S))
        return True

    def _lose(self, seconds: float, at: int) -> None:
        """``seconds`` of sound lost after the first ``at`` samples received: a hole there,
        and each chunk after it placed by its arrival that much later."""
        lost = round(seconds * SAMPLE_RATE)
        if lost <= 0:
            return
        self._heard += lost
        self._starts = deque((came, start - lost / SAMPLE_RATE if end > at else start, end)
                             for came, start, end in self._starts)
        self._holes.append((at, lost))
        self._pass_holes()

    @property
    def on_time(self) -> bool:
        """Whether its last chunk came when its placement says it would: one that came
        ``LOST_MIN_S`` or more later may follow lost sound, and the placement is in doubt until
        a chunk comes on time again or ``LOST_S`` of late ones show the loss."""
        return not self._starts or self._starts[-1][1] - self._started() < LOST_MIN_S

    def _started(self) -> float:
        return min(start for _, start, _ in self._starts)

    def first_at(self) -> float:
        """When the first sample waiting was heard (on the arrivals' clock)."""
        return self._started() + self._front / SAMPLE_RATE - self.lag

    def before_hole(self) -> int:
        """How many samples wait before the next hole (all of them where none)."""
        return self._holes[0][0] - self._taken if self._holes else len(self.pcm)

    def waiting(self, samples: int) -> np.ndarray:
        """The first ``samples`` of time waiting (fewer where fewer wait), lost sound as
        silence."""
        parts, at = [], self._taken
        for hole_at, lost in self._holes:
            parts += [self.pcm[at - self._taken:hole_at - self._taken], np.zeros(lost, "<i2")]
            at = hole_at
        return np.concatenate([*parts, self.pcm[at - self._taken:]])[:samples]

    def take(self, samples: int) -> np.ndarray:
        taken, self.pcm = self.pcm[:samples], self.pcm[samples:]
        self._taken += len(taken)
        self._front += len(taken)
        self._pass_holes()
        return taken

    def _pass_holes(self) -> None:
        """The holes the sound taken has reached: the next sample waiting comes after them."""
        while self._holes and self._holes[0][0] <= self._taken:
            self._front += self._holes.popleft()[1]


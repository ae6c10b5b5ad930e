"""One microphone per team on two separate devices, heard as one stream.

Both microphones hear every voice at the table; the one that hears it loudest above its own
background tells which team spoke.  The stream passes on one microphone's sound, chosen chunk by
chunk as with a two-channel interface (``audio.Channels``), with both levels and backgrounds, so
the listener attributes each phrase to the team whose microphone heard it best.

Two devices do not start together, and each sends its sound as its own buffer fills: the k-th
chunk of one is not the sound of the k-th chunk of the other.  Paired in the order they come,
each cut from one microphone to the other would repeat or skip up to 0.2 s of sound, mid-word
(docs/voice.md, "Two devices out of step").  So each microphone's
sound is placed in time by when it came (``mic_sound.Sound``): a chunk may come late but never
before it was heard, so its stream started at the earliest (arrival − sound received until then)
over the last ``mic_sound.ALIGN_S``, which also follows a device clock a little faster or slower
than the other.
A device that loses some of its sound (the machine too busy to take it, a packet dropped) goes
on handing over its chunks when it always did, with less sound before them: where every chunk
of the last ``LOST_S`` came ``LOST_MIN_S`` or more later than that earliest (or where the device
says so, an overrun PortAudio reports, by its next chunk), the sound it lost is a hole after
the last chunk that came on time: what it heard before stays where it was, what after is placed
that much later.
The sound passed on is cut from both at the same moments, 0.1 s at a time; sound one microphone
heard before the other's first goes on alone, and sound of moments already passed on is dropped
(a fast clock's surplus, a late first chunk), so no moment is heard twice.

What arrivals cannot show is the difference between the two devices' own delays: a USB and a
Bluetooth microphone hand over the same moment 0.1-0.3 s apart.  Both microphones hear the same
voices, so that difference is measured from the sound itself (``mic_lag.Lag``) and B's sound placed that
much earlier or later.  Until it is measured on this session's sound, the first chunk of a voice
waits until both microphones have ``PLACE_S`` of sound after it, where the slower one's copy of the
voice is too, and the lag is measured on that sound before the voice goes on: heard out of step, a
first call said in front of the slower microphone would be given to the other team, whose
microphone heard it first (voices wait so for ``PLACE_TRIES`` chunks at most, in case one
microphone hears none).  Where a microphone's last chunk came late, the measure waits up to
``LOST_S`` more for a chunk on time or the loss to show: made on sound placed too early, it
would take the loss for the lag.  A lag kept from the last session places B's sound meanwhile
and is checked the same way: the devices under the same names may not be the ones it was
measured on (two of one model plugged the other way round), nor their delays the same.  Where
that measure finds nothing, the sound passed on is cut from one microphone to the other only
where a voice starts after none (``audio.Channels``): cut when the nearer one goes quiet, the end
of a phrase would be heard again from the slower one, and a second «envido» given to the other
team is a raise.

One that stops sending (unplugged and looked for again) does not hold the other back: the
other's sound goes on alone once it has sent nothing for ``QUIET_S``, and the phrases said
meanwhile go to the team the game allows, as with one microphone (the live one hears both
teams).  When it sends again it is placed in time afresh.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

import numpy as np

from referee.audio import CHUNK_S, SAMPLE_RATE, AudioChunk, AudioError, Channels
from referee.mic_lag import APART, Lag
from referee.mic_sound import LOST_S, Sound
from referee.microphone import MicSource

STEP = round(CHUNK_S * SAMPLE_RATE)  # samples of each microphone passed on at a time
QUIET_S = 0.3  # a microphone that sent nothing for this long is not waited for
PLACE_S = 1.0  # s of both microphones' sound after a voice starts that the lag is first measured on
PLACE_TRIES = 20  # voiced chunks (2 s of voice) held for it at most: one microphone may hear none
WAIT_S = 1.0  # how often the stream looks up when neither microphone sends anything


class TeamMics:
    """Two microphones (team A's, team B's) as one source of chunks with two levels."""

    def __init__(self, source_a: Iterable[AudioChunk], source_b: Iterable[AudioChunk], *,
                 clock: Callable[[], float] = time.monotonic, lag: float | None = None,
                 on_lag: Callable[[float], None] | None = None) -> None:
        """``lag``: how much later B's device hands over its sound, as last known (the ``lag``
        property; None: not known); ``on_lag`` is told each new one, and the first."""
        self.sources = (source_a, source_b)
        self._clock = clock  # what chunks' arrivals and a microphone's quiet are timed by
        self._on_lag = on_lag
        self._heard: queue.Queue[tuple[int, AudioChunk | AudioError, float]] = queue.Queue()
        self._sound = (Sound(), Sound())
        self._sound[1].lag = lag or 0.0
        self._lag = Lag(known=lag is not None)
        self._tries = PLACE_TRIES  # voiced chunks that may still wait for the lag (``_placing``)
        self._last = [0.0, 0.0]  # when each microphone's last chunk was taken (``clock``)
        self._came_at = [-math.inf, -math.inf]  # when each one's last chunk came
        self._until: float | None = None  # the moment the sound passed on reaches
        self._ended = [False, False]  # the microphones that have no more chunks
        self._t = 0.0
        self._channels = Channels()

    def stop(self) -> None:
        for source in self.sources:
            if isinstance(source, MicSource):
                source.stop()

    def drop_queued(self) -> None:
        """Forget the sound both microphones heard and nobody has read yet (``MicSource``): what
        waits here (each microphone's own queue is emptied into it as it comes)."""
        kept = []
        while True:
            try:
                entry = self._heard.get_nowait()
            except queue.Empty:
                break
            if entry[1] is END or isinstance(entry[1], AudioError):  # it says how a source ended
                kept.append(entry)
        for entry in kept:
            self._heard.put(entry)
        for sound in self._sound:
            sound.clear()
        self._lag.restart()

    @property
    def lag(self) -> float | None:
        """How much later (s) B's device hands over the sound of a moment than A's (``Lag``);
        None until known."""
        return self._sound[1].lag if self._lag.known else None

    def __iter__(self) -> Iterator[AudioChunk]:
        for mic, source in enumerate(self.sources):
            threading.Thread(target=_pump, args=(mic, source, self._heard, self._clock),
                             daemon=True).start()
        self._ended = [False, False]
        self._last = [self._clock()] * 2
        while not all(self._ended) or self._waiting():
            try:
                mic, item, arrival = (self._heard.get(timeout=QUIET_S if self._waiting() else WAIT_S)
                                      if not all(self._ended) else (0, END, self._clock()))
            except queue.Empty:  # what waits for a microphone gone quiet goes on without it
                yield from self._paired()
                continue
            if isinstance(item, AudioError):  # a microphone that does not retry failed
                self.stop()
                raise item
            yield from self.ended(mic) if item is END else self.arrived(mic, item, arrival)

    def arrived(self, mic: int, chunk: AudioChunk, arrival: float) -> Iterator[AudioChunk]:
        """A microphone's chunk, come at ``arrival`` (on ``clock``): the chunks that can go on
        now.  One that had gone quiet first passes on what it had left, alone, and is placed in
        time afresh."""
        sound = self._sound[mic]
        if arrival - self._came_at[mic] > QUIET_S:
            yield from self._flush(mic)
            sound.clear()
        self._came_at[mic] = arrival
        if sound.add(chunk, arrival):  # what both heard over the last second was out of step
            self._lag.restart()
        # Taken now, not when it came: a listener busy decoding leaves both microphones'
        # chunks waiting here, and neither has gone quiet.
        self._last[mic] = self._clock()
        yield from self._paired()

    def ended(self, mic: int) -> Iterator[AudioChunk]:
        """A microphone has no more chunks: the other's go on alone."""
        self._ended[mic] = True
        yield from self._paired()

    def _waiting(self) -> bool:
        return any(len(sound.pcm) for sound in self._sound)

    def _paired(self) -> Iterator[AudioChunk]:
        """What can go on: both microphones' sound of the same moments; one's sound from before
        the other's first, alone; and one's sound alone where the other has ended or has been
        quiet for ``QUIET_S``.  Sound of moments already passed on is dropped."""
        a, b = self._sound
        while True:
            self._drop_past(a)
            self._drop_past(b)
            if len(a.pcm) < STEP or len(b.pcm) < STEP:
                break
            apart = round((b.first_at() - a.first_at()) * SAMPLE_RATE)  # > 0: A's heard first
            if abs(apart) >= APART:
                yield self._alone(0 if apart > 0 else 1, min(abs(apart), STEP))
                continue
            placing = self._placing()
            if placing == "wait":
                break
            if placing == "go":
                yield self._both()
            # "placed": B's sound was moved, and the two are placed again
        now = self._clock()
        for mic in (0, 1):
            if self._ended[1 - mic] or now - self._last[1 - mic] > QUIET_S:
                yield from self._flush(mic)

    def _placing(self) -> Literal["go", "wait", "placed"]:
        """Whether both microphones' next chunk can go on: before the lag is found on this
        session's sound (a kept one too), a voice's first chunk waits until both have ``PLACE_S``
        of sound after it, and the lag is measured on that sound (module docstring); where it is
        found and new, B's sound is placed by it.  Where ``PLACE_TRIES`` voiced chunks found none
        (a microphone muted, or far from every voice), voices no longer wait: the talk's measures
        (``Lag.heard``) go on looking."""
        a, b = self._sound
        if self._lag.found or any(self._ended) or not self._tries:
            return "go"
        if not self._channels.talking((_level(a.pcm[:STEP]), _level(b.pcm[:STEP]))):
            return "go"
        span = STEP + round(PLACE_S * SAMPLE_RATE)
        held = min(len(a.pcm), len(b.pcm))
        if held < span:
            return "wait"
        if not (a.on_time and b.on_time) and held < span + round(LOST_S * SAMPLE_RATE):
            return "wait"  # measured now, a loss about to show would be taken for the lag
        lag = self._lag.placed(a.waiting(span), b.waiting(span), b.lag)
        if lag is None:  # none found, or the kept one
            self._tries -= 1
            return "go"
        self._place(lag)
        return "placed"

    def _place(self, lag: float) -> None:
        """B's sound is placed by ``lag`` from now on; the table is told."""
        self._sound[1].lag = lag
        if self._on_lag:
            self._on_lag(lag)

    def _flush(self, mic: int) -> Iterator[AudioChunk]:
        """All of one microphone's sound, alone (but what was passed on already)."""
        self._drop_past(self._sound[mic])
        while len(self._sound[mic].pcm):
            yield self._alone(mic, STEP)

    def _drop_past(self, sound: Sound) -> None:
        """Drop the sound of moments already passed on, from the other microphone (a device
        that came late, or back)."""
        if self._until is not None and len(sound.pcm):
            behind = round((self._until - sound.first_at()) * SAMPLE_RATE)
            if behind >= APART:
                sound.take(behind)

    def _both(self) -> AudioChunk:
        """Both microphones' next 0.1 s, as the chunk ``Channels`` hears, with both levels and
        backgrounds."""
        a, b = self._sound
        samples = min(STEP, a.before_hole(), b.before_hole())  # then the one with a hole waits
        self._until = a.first_at() + samples / SAMPLE_RATE
        pcm = (a.take(samples), b.take(samples))
        lag = self._lag.heard(*pcm, b.lag)
        if lag is not None:
            self._place(lag)
        levels = (_level(pcm[0]), _level(pcm[1]))
        channel, backgrounds = self._channels.hear(levels, in_step=self._lag.known)
        return self._chunk(pcm[channel], levels, backgrounds)

    def _alone(self, mic: int, samples: int) -> AudioChunk:
        """One microphone's sound alone: the other's level is NaN, so the listener does not take
        the other's team for it (one microphone hears both teams)."""
        sound = self._sound[mic]
        start = sound.first_at()
        pcm = sound.take(min(samples, sound.before_hole()))
        self._lag.restart()
        self._until = start + len(pcm) / SAMPLE_RATE
        levels = (_level(pcm), math.nan) if mic == 0 else (math.nan, _level(pcm))
        return self._chunk(pcm, levels, ())

    def _chunk(self, pcm: np.ndarray, levels: tuple[float, float],
               backgrounds: tuple[float, ...]) -> AudioChunk:
        chunk = AudioChunk(pcm.astype("<i2").tobytes(), self._t, levels, backgrounds)
        self._t += chunk.duration
        return chunk


class Devices:
    """Two devices whose chunks are handed to ``TeamMics`` as they came, with no threads: for a
    benchmark or a test that sets when each chunk comes."""

    def __init__(self, **options: Any) -> None:
        self.now = 0.0  # when the last chunk came
        self.mics = TeamMics([], [], clock=lambda: self.now, **options)

    def hand(self, came: Iterable[tuple[int, AudioChunk, float]]) -> list[AudioChunk]:
        """The stream made of chunks given as (microphone, chunk, when it came), taken in the
        order they came, then of the end of both."""
        heard = [chunk for chunk, _ in self.passed(came)]
        return heard + list(self.mics.ended(0)) + list(self.mics.ended(1))

    def passed(self, came: Iterable[tuple[int, AudioChunk, float]]
               ) -> Iterator[tuple[AudioChunk, float]]:
        """The stream as ``hand`` makes it, but for the end, each chunk with when it went on."""
        for mic, chunk, at in sorted(came, key=lambda entry: entry[2]):
            self.now = at
            yield from ((heard, at) for heard in self.mics.arrived(mic, chunk, at))


def _level(pcm: np.ndarray) -> float:
    """The RMS level of 16-bit sound, as ``audio.to_chunk`` gives it."""
    return float(np.sqrt(np.mean((pcm / 32767.0) ** 2))) if len(pcm) else 0.0


END = AudioChunk(b"", -1.0, ())  # a source has no more chunks (a microphone never ends)


def _pump(mic: int, source: Iterable[AudioChunk],
          heard: queue.Queue[tuple[int, AudioChunk | AudioError, float]],
          clock: Callable[[], float]) -> None:
    """A microphone's chunks, each with when it came (``clock``), then how it ended."""
    try:
        for chunk in source:
            heard.put((mic, chunk, clock()))
    except AudioError as err:  # one that does not retry (``keep_trying=False``): said, not lost
        heard.put((mic, err, clock()))
        return
    heard.put((mic, END, clock()))

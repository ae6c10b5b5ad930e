"""One microphone per team on two separate devices, heard as one stream.

Both microphones hear every voice at the table; the one that hears it loudest above its own
background tells which team spoke.  The stream passes on one microphone's sound, chosen chunk by
chunk as with a two-channel interface (``audio.Channels``), with both levels and backgrounds, so
the listener attributes each phrase to the team whose microphone heard it best.

Each microphone's chunks are paired with the other's in the order they come.  One that stops
sending (unplugged and looked for again) does not hold the other back: the other's chunks go on
alone once it has sent nothing for ``QUIET_S``, and the phrases said meanwhile go to the team the
game allows, as with one microphone (the live one hears both teams).  Two devices never keep
exactly the same time either: once ``MAX_AHEAD`` chunks of the faster one wait with none of the
slower, the oldest goes on alone, so the two stay within that many chunks of each other instead
of drifting apart all evening.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator

from referee.audio import AudioChunk, AudioError, Channels
from referee.microphone import MicSource

MAX_AHEAD = 2  # chunks of one microphone that wait for the other's before going on alone
QUIET_S = 0.3  # a microphone that sent nothing for this long is not waited for
WAIT_S = 1.0  # how often the stream looks up when neither microphone sends anything


class TeamMics:
    """Two microphones (team A's, team B's) as one source of chunks with two levels."""

    def __init__(self, source_a: Iterable[AudioChunk], source_b: Iterable[AudioChunk]) -> None:
        self.sources = (source_a, source_b)
        self._heard: queue.Queue[tuple[int, AudioChunk | AudioError]] = queue.Queue()
        self._waiting: tuple[deque[AudioChunk], deque[AudioChunk]] = (deque(), deque())
        self._last = [0.0, 0.0]  # when each microphone last sent something (time.monotonic)
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
                mic, item = self._heard.get_nowait()
            except queue.Empty:
                break
            if item is END or isinstance(item, AudioError):  # kept: it says how a source ended
                kept.append((mic, item))
        for entry in kept:
            self._heard.put(entry)
        for waiting in self._waiting:
            waiting.clear()

    def __iter__(self) -> Iterator[AudioChunk]:
        for mic, source in enumerate(self.sources):
            threading.Thread(target=_pump, args=(mic, source, self._heard), daemon=True).start()
        ended = [False, False]
        self._last = [time.monotonic()] * 2
        while not all(ended) or any(self._waiting):
            wait = QUIET_S if any(self._waiting) else WAIT_S
            try:
                mic, item = self._heard.get(timeout=wait) if not all(ended) else (0, END)
            except queue.Empty:  # what waits for a microphone gone quiet goes on without it
                yield from self._paired(ended)
                continue
            self._last[mic] = time.monotonic()
            if isinstance(item, AudioError):  # a microphone that does not retry failed
                self.stop()
                raise item
            if item is END:
                ended[mic] = True
            else:
                self._waiting[mic].append(item)
            yield from self._paired(ended)

    def _paired(self, ended: list[bool]) -> Iterator[AudioChunk]:
        """What can go on: pairs, then one microphone's chunks alone where the other has ended,
        has been quiet for ``QUIET_S`` or is ``MAX_AHEAD`` chunks behind."""
        a, b = self._waiting
        while a and b:
            yield self._merge(a.popleft(), b.popleft())
        now = time.monotonic()
        for mic, waiting in enumerate(self._waiting):
            other_gone = ended[1 - mic] or now - self._last[1 - mic] > QUIET_S
            while waiting and (other_gone or len(waiting) > MAX_AHEAD):
                chunk = waiting.popleft()
                yield self._merge(chunk, None) if mic == 0 else self._merge(None, chunk)

    def _merge(self, a: AudioChunk | None, b: AudioChunk | None) -> AudioChunk:
        """The chunk ``Channels`` hears, with both levels and backgrounds; a microphone that sent
        nothing has level NaN, so the listener does not take the other's team for it (one
        microphone hears both teams)."""
        levels = (max(a.levels) if a else math.nan, max(b.levels) if b else math.nan)
        heard: AudioChunk | None = a or b
        backgrounds: tuple[float, ...] = ()
        if a and b:
            channel, backgrounds = self._channels.hear(levels)
            heard = (a, b)[channel]
        assert heard is not None
        chunk = AudioChunk(heard.pcm, self._t, levels, backgrounds)
        self._t += chunk.duration
        return chunk


END = AudioChunk(b"", -1.0, ())  # a source has no more chunks (a microphone never ends)


def _pump(mic: int, source: Iterable[AudioChunk],
          heard: queue.Queue[tuple[int, AudioChunk | AudioError]]) -> None:
    try:
        for chunk in source:
            heard.put((mic, chunk))
    except AudioError as err:  # one that does not retry (``keep_trying=False``): said, not lost
        heard.put((mic, err))
        return
    heard.put((mic, END))


def channel_teams(specs: list[str] | None, channels: int) -> tuple[str, ...]:
    """Which team each microphone (or channel) is, as the listener takes them: none with one."""
    return ("A", "B") if channels == 2 or len(specs or []) == 2 else ()


def table_mics(specs: list[str] | None, channels: int = 1, *,
               keep_trying: bool = True) -> MicSource | TeamMics:
    """The microphones as the table plays with them, each said on the terminal: one, or one per
    team (``--mic`` twice: two devices, team A's first; or ``--channels 2``, two channels of one).
    With ``keep_trying=False`` a missing one is an AudioError instead of a retry."""
    from referee.device_status import print_status

    specs = specs or []
    if len(specs) > 2:
        raise AudioError("mic-too-many", "a lo sumo dos micrófonos, uno por equipo")
    if len(specs) == 2:
        return TeamMics(*(MicSource(spec, on_status=print_status(f"micrófono de {team}"),
                                    keep_trying=keep_trying) for spec, team in zip(specs, "AB")))
    return MicSource(specs[0] if specs else None, channels=channels,
                     on_status=print_status("micrófono"), keep_trying=keep_trying)

"""One microphone per team on two separate devices, heard as one stream.

Both microphones hear every voice at the table; the louder one tells which team spoke.  The
stream passes on the louder microphone's sound, with both levels, so the listener attributes each
phrase to the team whose microphone heard it best (as with a two-channel interface).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator

from referee.audio import AudioChunk, AudioError
from referee.microphone import MicSource

WAIT_S = 1.0  # how long to wait for the other microphone before going on with one


class TeamMics:
    """Two microphones (team A's, team B's) as one source of chunks with two levels."""

    def __init__(self, source_a: Iterable[AudioChunk], source_b: Iterable[AudioChunk]) -> None:
        self.sources = (source_a, source_b)
        self._queues: tuple[queue.Queue[AudioChunk | AudioError], ...] = (queue.Queue(), queue.Queue())
        self._t = 0.0

    def stop(self) -> None:
        for source in self.sources:
            if isinstance(source, MicSource):
                source.stop()

    def drop_queued(self) -> None:
        """Forget the sound both microphones heard and nobody has read yet (``MicSource``): what
        waits here (each microphone's own queue is emptied into it as it comes)."""
        for q in self._queues:
            while True:
                try:
                    item = q.get_nowait()
                except queue.Empty:
                    break
                if item is END or isinstance(item, AudioError):  # kept: it says how the source ended
                    q.put(item)
                    break

    def __iter__(self) -> Iterator[AudioChunk]:
        for source, q in zip(self.sources, self._queues):
            threading.Thread(target=_pump, args=(source, q), daemon=True).start()
        ended = [False, False]
        while not all(ended):
            got: list[AudioChunk | None] = [None, None]
            for i, q in enumerate(self._queues):
                item = None if ended[i] else _get(q)
                if isinstance(item, AudioError):  # a microphone that does not retry failed
                    self.stop()
                    raise item
                if item is END:
                    ended[i] = True
                elif item is not None:
                    got[i] = item
            if got[0] is not None or got[1] is not None:
                yield self._merge(got[0], got[1])

    def _merge(self, a: AudioChunk | None, b: AudioChunk | None) -> AudioChunk:
        level_a = max(a.levels) if a else 0.0
        level_b = max(b.levels) if b else 0.0
        louder = a if (a and (b is None or level_a >= level_b)) else b
        assert louder is not None
        chunk = AudioChunk(louder.pcm, self._t, (level_a, level_b))
        self._t += chunk.duration
        return chunk


END = AudioChunk(b"", -1.0, ())  # a source has no more chunks (a microphone never ends)


def _pump(source: Iterable[AudioChunk], q: queue.Queue[AudioChunk | AudioError]) -> None:
    try:
        for chunk in source:
            q.put(chunk)
    except AudioError as err:  # one that does not retry (``keep_trying=False``): said, not lost
        q.put(err)
        return
    q.put(END)


def _get(q: queue.Queue[AudioChunk | AudioError]) -> AudioChunk | AudioError | None:
    try:
        return q.get(timeout=WAIT_S)
    except queue.Empty:
        return None

"""The table's last minute of sound, kept in memory only: for the table to hear again what was
said when the referee heard nothing, or heard it otherwise («¿Qué se dijo?» on the tablet).  The
clips of what the referee heard are evidence kept with the game; this is the rest of the talk,
which is nobody's business once it is older than ``keep_s``: nothing of it is written anywhere
unless someone downloads it, or the table keeps what it heard again with the game
(``handed``, ``kept``).

It is the sound the listener hears (after the calibration takes the prompts out), the last
``keep_s`` seconds of it, by the clock: «the last 30 s» are what arrived in the last 30 seconds
(after a microphone was unplugged for a while, only what it heard since), and sound older than
``keep_s`` is dropped even while no new sound comes.
"""

from __future__ import annotations

import io
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from referee.asr.base import SAMPLE_RATE
from referee.audio import AudioChunk
from referee.evidence import write_wav

KEEP_S = 60  # seconds of the table's sound kept, by default
KEEP_MAX_S = 600  # the most that may be asked for (19 MB of sound)
REPLAYS = 3  # the last sounds handed over that the table may still keep with the game


class Replay(NamedTuple):
    """Some of the table's sound handed over to be heard again; ``id`` names it to keep it."""

    id: str
    wav: bytes
    seconds: float
    until: float  # when its sound ends (``time.time()``: the table's clock, for people to read)

    @property
    def said(self) -> str:
        """How long it is, for people: whole seconds, half a second or less as one."""
        return f"{max(1, round(self.seconds))} s"


class TableAudio:
    """The last ``keep_s`` seconds of the stream that passes through ``tap``; each time some of
    it is handed over, or kept with a game, ``told`` says so (the terminal: the table knows when
    it was listened to).  The last ``REPLAYS`` handed over may be kept with a game for
    ``keep_s`` seconds after, as they were heard."""

    def __init__(self, keep_s: float = KEEP_S,
                 told: Callable[[str], None] = lambda _: None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not 0 < keep_s <= KEEP_MAX_S:
            raise ValueError(f"se guardan de 1 a {KEEP_MAX_S} segundos del sonido de la mesa")
        self.keep_s = keep_s
        self._told, self._clock = told, clock
        self._limit = int(keep_s * SAMPLE_RATE) * 2  # bytes of 16-bit sound
        self._chunks: deque[tuple[float, bytes]] = deque()  # (when it came, its sound)
        self._size = 0
        self._replays: OrderedDict[str, tuple[float, Replay]] = OrderedDict()  # (when handed over)
        self._lock = threading.Lock()

    def tap(self, source: Iterable[AudioChunk]) -> Iterator[AudioChunk]:
        """The stream as it comes, each chunk kept on the way."""
        for chunk in source:
            self.keep(chunk.pcm)
            yield chunk

    def keep(self, pcm: bytes) -> None:
        with self._lock:
            self._chunks.append((self._clock(), pcm))
            self._size += len(pcm)
            while self._size - len(self._chunks[0][1]) >= self._limit:
                self._size -= len(self._chunks.popleft()[1])
            self._drop_old()

    def _drop_old(self) -> None:
        """Forget the sound that came ``keep_s`` ago or more, and what was handed over as long
        ago."""
        since = self._clock() - self.keep_s
        while self._chunks and self._chunks[0][0] <= since:
            self._size -= len(self._chunks.popleft()[1])
        while self._replays and next(iter(self._replays.values()))[0] <= since:
            self._replays.popitem(last=False)

    def last(self, seconds: float) -> Replay | None:
        """The sound that came in the last ``seconds`` (at most ``seconds`` of it), as a WAV; None
        when none did."""
        with self._lock:
            self._drop_old()
            since = self._clock() - seconds
            pcm = b"".join(part for came, part in self._chunks if came >= since)
        want = min(len(pcm), int(max(0.0, seconds) * SAMPLE_RATE) * 2)
        if not want:
            return None
        out = io.BytesIO()
        write_wav(out, pcm[len(pcm) - want:])
        replay = Replay(secrets.token_hex(8), out.getvalue(), want / 2 / SAMPLE_RATE, time.time())
        with self._lock:
            self._replays[replay.id] = (self._clock(), replay)
            while len(self._replays) > REPLAYS:
                self._replays.popitem(last=False)
        self._told(f"escucha: la tablet volvió a oír los últimos {replay.said} de la mesa")
        return replay

    def handed(self, replay_id: str) -> Replay | None:
        """What ``last`` handed over as ``replay_id``, while it may still be kept (``kept``)."""
        with self._lock:
            self._drop_old()
            handed = self._replays.get(replay_id)
        return None if handed is None else handed[1]

    def kept(self, replay: Replay, where: str) -> None:
        """``replay`` is kept ``where`` now (said on the terminal): it is not kept twice."""
        with self._lock:
            self._replays.pop(replay.id, None)
        self._told(f"escucha: la tablet guardó {where} los {replay.said} de la mesa que volvió "
                   "a oír")

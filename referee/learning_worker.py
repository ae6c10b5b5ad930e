"""The relearning of ``serve --learn`` in a process of its own.

PocketSphinx holds Python's GIL for the whole of an alignment, so a relearning in the listener's
process held back every chunk of sound that came meanwhile.  Here it runs in a child process that
opens the store by its path (SQLite lets it read while the scoreboard writes), keeps the
alignments of its last relearning (``alignment.Alignments``) and answers one request at a time.  It
runs at a lower priority (``NICE``): where the cores are busy, the listener is given them first.
If it dies, the next relearning starts another; it ends with the program.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from referee.asr import learn as voice_learning
from referee.asr.base import RecognizerError

_SPAWN = multiprocessing.get_context("spawn")  # a fork would copy the listener's threads' locks
NICE = 10  # how much lower the worker's priority is than the listener's


@dataclass(frozen=True)
class Relearned:
    """What a relearning in the worker gave back."""

    learned: voice_learning.Learned
    until: int  # the newest phrase of play used: its row in the store
    cpu_s: float  # CPU seconds the worker took


class LearningWorker:
    """``learning.learn_from`` on the store at ``db_path``, run in a child process."""

    def __init__(self, db_path: Path, models_dir: Path, model_dir: Path, min_conf: float) -> None:
        self._args = (Path(db_path), Path(models_dir), Path(model_dir), min_conf)
        self._process: Any = None
        self._conn: Connection | None = None

    def learn(self) -> Relearned:
        """Relearn now and wait for it; ``RecognizerError`` when it could not."""
        conn = self._conn
        if conn is None or not self._alive():
            conn = self._start()
        try:
            conn.send("learn")
            reply = conn.recv()
        except (EOFError, OSError) as err:
            self._process.join(1.0)  # gone: its exit code, once reaped
            code = self._process.exitcode
            self.close()
            raise RecognizerError("learning-died", "el proceso que aprende las voces se cerró "
                                  f"(código {code}); lo vuelvo a arrancar") from err
        if isinstance(reply, str):
            raise RecognizerError("learning", reply)
        return reply

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._alive() else None

    def close(self) -> None:
        """End the worker (its alignments go with it)."""
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            self._process.terminate()
            self._process.join(5.0)
        self._process = self._conn = None

    def _alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def _start(self) -> Connection:
        self.close()
        ours, theirs = _SPAWN.Pipe()
        self._process = _SPAWN.Process(target=work, args=(theirs, *self._args),
                                       name="voice-learning", daemon=True)
        self._process.start()
        theirs.close()
        self._conn = ours
        return ours


def work(conn: Connection, db_path: Path, models_dir: Path, model_dir: Path,
         min_conf: float) -> None:
    """The worker: a relearning for each request, until the other end closes."""
    from referee.asr.alignment import Alignments
    from referee.learning import learn_from
    from web_scoreboard.store import Store, StoreError

    with contextlib.suppress(OSError):
        os.nice(NICE)
    store: Store | None = None
    alignments = Alignments()
    while True:
        try:
            conn.recv()
        except (EOFError, OSError):
            return
        cpu = time.process_time()
        try:
            store = store or Store(db_path)
            learned, until = learn_from(store, models_dir, model_dir, min_conf, alignments)
            reply: Relearned | str = Relearned(learned, until, time.process_time() - cpu)
        except (RecognizerError, StoreError, OSError, ValueError) as err:
            reply = getattr(err, "message", None) or str(err)
        conn.send(reply)

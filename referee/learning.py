"""While ``serve --learn`` runs: the referee learns the table's voices from the game being played.

Every minute (and once at the start) it counts the phrases of play it could learn from that are
newer than the saved calibration (``referee.asr.learn``: accepted and heard surely, or confirmed
with a tap).  With enough of them it adapts the model again on all of them plus the calibration's
recordings, in a process of its own (``referee.learning_worker``: the listener is not held back),
saves that as the table's calibration, and hands it to the running recognizer, which takes it at
the next pause.  Learning never stops the scoreboard: trouble is logged and retried.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape

from referee.asr import learn as voice_learning
from referee.asr.adapt import Alignments
from referee.asr.base import RecognizerError
from referee.learning_worker import LearningWorker

MIN_NEW = 30  # new phrases of play before learning again
EVERY_S = 60.0


class TableLearner:
    """Learns from the scoreboard's store into the models folder, for one Sphinx recognizer."""

    def __init__(self, store: Any, models_dir: Path, recognizer: Any, log: Callable[[str], None],
                 *, min_new: int = MIN_NEW, min_conf: float = voice_learning.LEARN_CONF,
                 on_learned: Callable[[], None] = lambda: None) -> None:
        """``on_learned`` is called after each new calibration is handed to the recognizer."""
        self.store = store
        self.models_dir = models_dir
        self.recognizer = recognizer
        self.log = log
        self.min_new = min_new
        self.min_conf = min_conf
        self.on_learned = on_learned
        self._said: str | None = None
        self._worker = LearningWorker(store.path, models_dir, recognizer.model_dir, min_conf)
        self.cpu_s = 0.0  # CPU seconds the last relearning took, in the worker

    def step(self) -> bool:
        """Learn once if there is enough new play; True if a new calibration was taken."""
        note = voice_learning.note(self.models_dir)
        since = max(float(note.get("learned_until", 0.0)), float(note.get("forgotten_at", 0.0)))
        new = heard_phrases(self.store, self.min_conf, after=since)
        if len(new) < self.min_new:
            return False
        relearned = self._worker.learn()
        self.cpu_s = relearned.cpu_s
        path = voice_learning.save(self.models_dir, self.recognizer.model_dir, relearned.learned,
                                   relearned.until)
        self.recognizer.use_means(path)
        self.log(f"escucha: aprendí las voces de la mesa de {describe(relearned.learned)}; "
                 "ya las uso")
        self.on_learned()
        return True

    def close(self) -> None:
        """End the learning's process."""
        self._worker.close()

    @property
    def pid(self) -> int | None:
        """The learning process's, while it runs."""
        return self._worker.pid

    def run(self, every_s: float = EVERY_S) -> None:
        """Learn every ``every_s`` seconds for as long as the program runs."""
        while True:
            try:
                self.step()
                self._said = None
            except (RecognizerError, OSError, ValueError) as err:
                message = getattr(err, "message", str(err))
                if message != self._said:  # the same trouble is said once
                    self._said = message
                    self.log(f"escucha: no pude aprender las voces todavía: {escape(message)}")
            time.sleep(every_s)

    def start(self, every_s: float = EVERY_S) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(every_s,), name="voice-learning",
                                  daemon=True)
        thread.start()
        return thread


def heard_phrases(store: Any, min_conf: float = voice_learning.LEARN_CONF, after: float = 0.0,
                  ) -> list[voice_learning.HeardPhrase]:
    """The accepted heard items of every game in the store, heard after ``after``, that can be
    learned from, each with where its clip is kept (``stored_clip`` reads it).  Only those are
    read: the check for new play every minute does not go through every evening kept."""
    items = (voice_learning.HeardPhrase(row.at, row.status, row.reason, row.text, row.extra,
                                        None, row.clip_id)
             for row in store.heard_with("accepted", after) if row.clip_id)
    return [item for item in items if voice_learning.learnable(item, min_conf)]


def phrases_to_learn(store: Any, models_dir: Path, min_conf: float = voice_learning.LEARN_CONF,
                     ) -> list[voice_learning.HeardPhrase]:
    """What ``learn_from`` learns from: the learnable phrases heard since the calibration was
    last forgotten or a player taken out of it (``forgotten_at`` in its note)."""
    forgotten = float(voice_learning.note(models_dir).get("forgotten_at", 0.0))
    return heard_phrases(store, min_conf, after=forgotten)


def stored_clip(store: Any) -> Callable[[voice_learning.HeardPhrase], bytes | None]:
    """How ``voice_learning.samples`` reads a heard item's clip from the store."""
    def clip(item: voice_learning.HeardPhrase) -> bytes | None:
        found = store.clip(item.clip_id) if item.clip_id else None
        return found[0] if found else None

    return clip


def learn_from(store: Any, models_dir: Path, model_dir: Path,
               min_conf: float = voice_learning.LEARN_CONF, alignments: Alignments | None = None,
               ) -> tuple[voice_learning.Learned, float]:
    """Adapt on everything learnable in the store (since the last ``voices forget``) and the
    calibration's recordings; also the time of the newest phrase used.  ``alignments``: those of
    the last relearning, kept."""
    phrases = phrases_to_learn(store, models_dir, min_conf)
    heard = voice_learning.samples(phrases, min_conf, clip=stored_clip(store))
    learned = voice_learning.learn(model_dir, models_dir, heard, alignments)
    return learned, max((p.at for p in phrases), default=0.0)


def describe(learned: voice_learning.Learned) -> str:
    """«35 frases del juego y 34 de la calibración (40 s de voz)»."""
    return (f"{learned.heard} frases del juego"
            + (f" y {learned.prompts} de la calibración" if learned.prompts else "")
            + f" ({learned.stats.frames / 100:.0f} s de voz)")

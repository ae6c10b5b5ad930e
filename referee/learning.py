"""While ``serve --learn`` runs: the referee learns the table's voices from the game being played.

Every minute (and once at the start) it counts the phrases of play it could learn from that were
heard after the saved calibration's (``referee.asr.learn``: accepted and heard surely, or confirmed
with a tap), by the store's row ids (``marks``): the clock of an offline machine may be wrong
and be set later.  With enough of them it adapts the model again on all of them plus the calibration's
recordings, in a process of its own (``referee.learning_worker``: the listener is not held back),
saves that as the table's calibration, and hands it to the running recognizer, which takes it at
the next pause.  Learning never stops the scoreboard: trouble is logged and retried.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape

from referee.asr import learn as voice_learning
from referee.asr.alignment import Alignments
from referee.asr.base import RecognizerError
from referee.asr.calibration_folder import write_note
from referee.asr.play_phrases import LEARN_CONF, HeardPhrase, learnable, samples
from referee.learning_worker import LearningWorker

MIN_NEW = 30  # new phrases of play before learning again
EVERY_S = 60.0
STORE_NAME = "voice_learning_store"  # the store's own name (its meta), for the note's marks


class TableLearner:
    """Learns from the scoreboard's store into the models folder, for one Sphinx recognizer."""

    def __init__(self, store: Any, models_dir: Path, recognizer: Any, log: Callable[[str], None],
                 *, min_new: int = MIN_NEW, min_conf: float = LEARN_CONF,
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
        learned, forgotten = marks(self.store, self.models_dir)
        new = heard_phrases(self.store, self.min_conf, after=max(learned, forgotten))
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


def heard_phrases(store: Any, min_conf: float = LEARN_CONF, after: int = 0,
                  ) -> list[HeardPhrase]:
    """The accepted heard items of every game in the store, heard after its row ``after``, that
    can be learned from, each with where its clip is kept (``stored_clip`` reads it).  Only those
    are read: the check for new play every minute does not go through every evening kept."""
    items = (HeardPhrase(row.at, row.status, row.reason, row.text, row.extra,
                                        None, row.clip_id, row.id)
             for row in store.heard_with("accepted", after) if row.clip_id)
    return [item for item in items if learnable(item, min_conf)]


def phrases_to_learn(store: Any, models_dir: Path, min_conf: float = LEARN_CONF,
                     ) -> list[HeardPhrase]:
    """What ``learn_from`` learns from: the learnable phrases heard since the calibration was
    last forgotten or a player taken out of it (``marks``)."""
    return heard_phrases(store, min_conf, after=marks(store, models_dir)[1])


def marks(store: Any, models_dir: Path) -> tuple[int, int]:
    """The heard rows of ``store`` up to which play was learned from and forgotten, as the
    calibration's note says them (0: none).  Row ids only grow, whatever the clock said when
    they were heard.  The note is placed in the store
    here, and written again, once: a forgetting not yet placed is the newest row heard (what
    was heard since, before the learner's next look, is forgotten too: never too little); a note
    of another store (the data folder emptied) learned nothing of this one, and forgot all of it
    heard so far if it forgot any play; a note of before marks were row ids, dated by the clock,
    is read by the rows' dates."""
    note = voice_learning.note(models_dir)
    ours = _store_name(store)
    newest = store.last_heard("accepted")
    if note.get("heard_store") == ours:
        learned = int(note.get("learned_until_heard", 0))
        forgotten = int(note.get("forgotten_until_heard", 0))
    elif "heard_store" in note:
        forgot = note.get("forget_pending") or note.get("forgotten_until_heard")
        learned, forgotten = 0, newest if forgot else 0
    else:  # of before marks were row ids: dated by the clock
        learned = _last_until(store, float(note.get("learned_until", 0.0)))
        forgotten = _last_until(store, float(note.get("forgotten_at", 0.0)))
    if note.get("forget_pending"):
        forgotten = max(forgotten, newest)
    placed = {key: value for key, value in note.items()
              if key not in ("learned_until", "forget_pending")}
    placed.update(heard_store=ours, learned_until_heard=learned, forgotten_until_heard=forgotten)
    if placed != note and (newest or any(note.get(key) for key in _PLACED_BY)):
        write_note(models_dir, placed)  # (an empty store and a note of no play: nothing to say)
    return learned, forgotten


_PLACED_BY = ("heard_store", "forget_pending", "learned_until", "forgotten_at")


def _last_until(store: Any, at: float) -> int:
    """The newest accepted row dated at or before ``at`` (0: none, or no date)."""
    return store.last_heard("accepted", at_most=at) if at else 0


def _store_name(store: Any) -> str:
    """The store's own name, made the first time it is asked for: a store made anew (its row
    ids starting again at 1) is told from the one the note's marks are of."""
    name = store.get_meta(STORE_NAME)
    if name is None:
        name = uuid.uuid4().hex
        store.set_meta(STORE_NAME, name)
    return str(name)


def stored_clip(store: Any) -> Callable[[HeardPhrase], bytes | None]:
    """How ``referee.asr.play_phrases.samples`` reads a heard item's clip from the store."""
    def clip(item: HeardPhrase) -> bytes | None:
        found = store.clip(item.clip_id) if item.clip_id else None
        return found[0] if found else None

    return clip


def learn_from(store: Any, models_dir: Path, model_dir: Path,
               min_conf: float = LEARN_CONF, alignments: Alignments | None = None,
               ) -> tuple[voice_learning.Learned, int]:
    """Adapt on everything learnable in the store (since the last ``voices forget``) and the
    calibration's recordings; also the newest phrase's row in the store (what ``save`` notes as
    learned until).  ``alignments``: those of the last relearning, kept."""
    phrases = phrases_to_learn(store, models_dir, min_conf)
    heard = samples(phrases, min_conf, clip=stored_clip(store))
    learned = voice_learning.learn(model_dir, models_dir, heard, alignments)
    return learned, max((p.heard_id for p in phrases), default=0)


def describe(learned: voice_learning.Learned) -> str:
    """«35 frases del juego y 34 de la calibración (40 s de voz)»."""
    return (f"{learned.heard} frases del juego"
            + (f" y {learned.prompts} de la calibración" if learned.prompts else "")
            + f" ({learned.stats.frames / 100:.0f} s de voz)")

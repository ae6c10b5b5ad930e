"""Learning the table's voices from play: what the referee heard surely and the game accepted, or a
person confirmed with a tap, is taken as said, and adapts the model the way a calibration does
(``referee.asr.adapt``), with no prompts.  The calibration's own recordings, when there are any,
are kept and learned from too, so play only adds to them.

Where things live: the heard items and their clips are in the scoreboard's store (its ``extra``
says where the words lie in the clip; ``play_phrases`` picks and cuts them); the prompts under
``<models>/voice-calibration/prompts`` (``kept_recordings``); the result is the calibration itself
(``calibration_folder.save_calibration``), whose note says up to which heard item of play it
learned, and up to which one play was forgotten: by the store's row ids, which only grow, not by
the clock, which an offline machine may have wrong and have set later (``referee.learning.marks``
reads them).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from referee.asr.adapt import Stats, calibrate
from referee.asr.alignment import Alignments
from referee.asr.calibration_folder import calibration_dir, save_calibration, write_note
from referee.asr.kept_recordings import prompts_dir, save_prompts, saved_prompts


def calibrated_narrow(models_dir: Path) -> bool:
    """Whether the table's calibration was made on speech heard through a narrow line
    (``referee.band``): a microphone that sounds like a telephone, which the calibration then
    hears nearly as well as a full one.  Its note says so (``save``); a calibration saved before
    notes said it is judged by its kept prompts."""
    said = note(models_dir).get("narrow")
    if isinstance(said, bool):
        return said
    return narrow_voices(saved_prompts(models_dir))


def narrow_voices(voices: Sequence[Sequence[tuple[bytes, str]]]) -> bool:
    """Whether recordings (one list of (pcm, text) per voice), heard one after another, came
    through a narrow line."""
    from referee.band import narrow_sound

    return narrow_sound(pcm for voice in voices for pcm, _ in voice)


# -- learning ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Learned:
    means: np.ndarray
    stats: Stats
    prompts: int  # calibration recordings used
    heard: int  # phrases of play used
    narrow: bool  # the speech adapted on came through a narrow line (``referee.band``)


def learn(model_dir: Path, models_dir: Path, heard: Sequence[tuple[bytes, str]],
          alignments: Alignments | None = None) -> Learned:
    """Adapted means from the calibration recordings (if any) and the phrases of play (one more
    voice: the table as a whole).  Raises ``RecognizerError`` when there is too little speech.
    ``alignments``: those of the last relearning, kept (``alignment.Alignments``)."""
    prompts = saved_prompts(models_dir)
    voices = [*prompts, list(heard)] if heard else prompts
    means, stats = calibrate(model_dir, voices, alignments)
    return Learned(means, stats, sum(len(v) for v in prompts), len(heard), narrow_voices(voices))


def calibrate_prompts(models_dir: Path, model_dir: Path,
                      voices: Sequence[Sequence[tuple[bytes, str]]],
                      names: Sequence[str] = ()) -> tuple[Path, Stats]:
    """Calibrate on prompts just recorded (one list of (pcm, text) per voice) and keep them, the
    players' ``names`` and the result as the table's calibration; where it was saved, and its
    statistics.  Learned until 0: ``serve --learn`` adds what it hears in play on top of these.
    ``RecognizerError`` when there is too little speech, OSError when the disk will not keep it."""
    means, stats = calibrate(model_dir, voices)
    save_prompts(models_dir, voices, names)
    said = sum(len(v) for v in voices)
    learned = Learned(means, stats, said, 0, narrow_voices(voices))
    return save(models_dir, model_dir, learned, learned_until=0), stats


def note(models_dir: Path) -> dict[str, Any]:
    """The saved calibration's note (empty when there is none)."""
    try:
        info = json.loads((calibration_dir(models_dir) / "info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


# What the note says of play, kept when a calibration is saved anew: the store its heard row ids
# are of, up to which one play is forgotten, and a forgetting not yet placed among them (``forget``
# has no store at hand: ``referee.learning.marks`` places it at the newest row heard).  When play
# was forgotten is noted for people to read.
PLAY_NOTES = ("heard_store", "forgotten_until_heard", "forget_pending", "forgotten_at")


def save(models_dir: Path, model_dir: Path, learned: Learned, learned_until: int) -> Path:
    """Save learned means as the table's calibration, noting the newest heard item of play
    learned from (``learned_until``: its row in the store, 0 for none) and whether its speech
    came through a narrow line."""
    kept = {key: value for key, value in note(models_dir).items() if key in PLAY_NOTES}
    return save_calibration(models_dir, model_dir, learned.means, learned.stats,
                            prompts=learned.prompts, heard=learned.heard, narrow=learned.narrow,
                            learned_until_heard=learned_until, **kept)


def forget(models_dir: Path) -> bool:
    """Delete the calibration and its recordings; play heard so far is not learned from again.
    True if there was one; with none, nothing is touched."""
    folder = calibration_dir(models_dir)
    had = (folder / "means").is_file() or prompts_dir(models_dir).is_dir()
    if not had and not folder.is_file():  # nothing to forget: nothing touched
        return False
    store = note(models_dir).get("heard_store")
    if folder.is_dir():  # (a file in its place fails below, and is said)
        shutil.rmtree(folder)
    write_note(models_dir, {**({"heard_store": store} if store else {}),
                            "forget_pending": True, "forgotten_at": time.time()})
    return had


def forget_play(models_dir: Path) -> None:
    """Play heard until now is not learned from again (``serve --learn``, ``voices learn``): a
    player left, their calls are in it, and the referee does not tell voices apart.  The
    calibration and the recordings kept stay."""
    write_note(models_dir, {**note(models_dir), "forget_pending": True,
                            "forgotten_at": time.time()})


__all__ = ["PLAY_NOTES", "Learned", "forget", "forget_play", "learn", "narrow_voices", "note",
           "save"]

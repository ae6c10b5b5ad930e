"""Learning the table's voices from play: what the referee heard surely and the game accepted, or a
person confirmed with a tap, is taken as said, and adapts the model the way a calibration does
(``referee.asr.adapt``), with no prompts.  The calibration's own recordings, when there are any,
are kept and learned from too, so play only adds to them.

Where things live: the heard items and their clips are in the scoreboard's store (its ``extra``
says where the words lie in the clip); the prompts under ``<models>/voice-calibration/prompts``;
the result is the calibration itself (``adapt.save_calibration``), whose note says up to which
heard item of play it learned, and up to which one play was forgotten: by the store's row ids,
which only grow, not by the clock, which an offline machine may have wrong and have set later
(``referee.learning.marks`` reads them).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import time
import wave
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from models.folders import replace_folder
from referee import clip_codec
from referee.asr.adapt import (
    Alignments,
    Stats,
    calibrate,
    calibration_dir,
    save_calibration,
    write_note,
)
from referee.asr.base import SAMPLE_RATE
from referee.doubt import CONFIRMED, confirmed_as_longer
from referee.evidence import write_wav
from referee.names import clean_name, name_key

LEARN_CONF = 0.8  # heard at least this surely (and accepted by the game) = taken as said
PAD_S = 0.2  # audio kept either side of the words
QUIET_S = 0.3  # a phrase learned from has this much quiet either side...
QUIET_RATIO = 0.1  # ...below this fraction of the words' loudness (RMS): said on its own
MAX_PHRASES = 600  # the most recent phrases learned from (bounds the time a relearning takes)
NAME_FILE = "nombre.txt"  # a kept player's name, in their recordings' folder
NAME_MAX = 30  # characters of a player's name


@dataclass(frozen=True)
class HeardPhrase:
    """One stored heard item, as learning needs it."""

    at: float  # UNIX time it was heard, for people to read: the clock may have been wrong
    status: str
    reason: str | None
    text: str
    extra: dict[str, Any]
    wav: bytes | None  # its clip, or None where ``samples`` is told how to find it
    clip_id: str | None = None  # where its clip is kept
    heard_id: int = 0  # its row in the store: the order it was heard in (ids only grow)


def learnable(item: HeardPhrase, min_conf: float = LEARN_CONF) -> bool:
    """Accepted by the game and heard surely (every word of its phrase), or confirmed by a
    person; with its words located.  Not an answer the table turned into its opposite with a tap
    (``changed`` ``swap``), nor a call, number or look-alike, however sure, confirmed as the longer
    call it ended («confirmado a mano: era «falta envido»», «… era «me voy al mazo»»): its words
    were misheard."""
    if item.status != "accepted" or "speech" not in item.extra or item.extra.get("changed") == "swap":
        return False
    if confirmed_as_longer(item.reason):
        return False
    sure = item.extra.get("phrase_confidence", item.extra.get("confidence", 0.0))
    return item.reason == CONFIRMED or float(sure) >= min_conf


def cut(item: HeardPhrase, clip: bytes) -> bytes:
    """The words of a heard item, from its ``clip``, with a little audio either side, as 16 kHz
    mono PCM; empty when they were not said on their own."""
    start, end = item.extra["speech"]
    return words_of(_pcm(clip), float(start), float(end))


def words_of(pcm: bytes, start: float, end: float) -> bytes:
    """The words at ``start..end`` (seconds into ``pcm``) with ``PAD_S`` either side; empty when
    they were not said on their own (``said_alone``)."""
    if not said_alone(pcm, start, end):
        return b""
    a = max(0, int((start - PAD_S) * SAMPLE_RATE)) * 2
    b = max(a, int((end + PAD_S) * SAMPLE_RATE)) * 2
    return pcm[a:b]


def said_alone(pcm: bytes, start: float, end: float) -> bool:
    """True if the words at ``start..end`` (seconds into ``pcm``) were said on their own, with
    quiet either side: not a call heard inside a longer sentence, where chatter mistaken for a
    call would teach the model the wrong sounds."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)

    def rms(a: float, b: float) -> float:
        part = x[max(0, int(a * SAMPLE_RATE)):max(0, int(b * SAMPLE_RATE))]
        return float(np.sqrt(np.mean(part**2))) if len(part) else 0.0

    words = rms(start, end)
    before, after = rms(start - QUIET_S, start - 0.05), rms(end + 0.05, end + QUIET_S)
    return words > 0 and max(before, after) < QUIET_RATIO * words


def samples(items: Iterable[HeardPhrase], min_conf: float = LEARN_CONF,
            clip: Callable[[HeardPhrase], bytes | None] = lambda item: item.wav,
            ) -> list[tuple[bytes, str]]:
    """(pcm, text) of the learnable phrases, each utterance once (one utterance of two calls is
    stored as two items with the same clip), the ``MAX_PHRASES`` heard last (by their rows in
    the store, then their times: a clock set back dates the newest before older ones), oldest
    first.  ``clip`` finds an item's clip (its ``wav`` unless told otherwise): asked newest
    first, and only until those phrases are found, so that a store of many evenings is not read
    whole each time the table is learned."""
    out: dict[tuple[float, str], tuple[bytes, str]] = {}
    found = 0
    for item in sorted(items, key=lambda i: (i.heard_id, i.at), reverse=True):
        key = (float(item.extra.get("t", item.at)), item.text)
        if found == MAX_PHRASES:
            break
        if key in out or not learnable(item, min_conf) or not (wav := clip(item)):
            continue
        out[key] = (cut(item, wav), item.text)
        found += bool(out[key][0])
    return [s for s in reversed(out.values()) if s[0]]


def _pcm(clip: bytes) -> bytes:
    """A clip's samples (FLAC, or WAV as the calibration's recordings and older clips are), or
    nothing where it is not 16 kHz mono."""
    decoded = clip_codec.decode(clip)
    return decoded[0] if decoded is not None and decoded[1] == SAMPLE_RATE else b""


# -- the calibration's own recordings ------------------------------------------------------------
def prompts_dir(models_dir: Path) -> Path:
    return calibration_dir(models_dir) / "prompts"


def save_prompts(models_dir: Path, voices: Sequence[Sequence[tuple[bytes, str]]],
                 names: Sequence[str] = ()) -> None:
    """Keep a calibration's recordings (one folder per player, files named by what they say, as
    ``voices calibrate --wav-dir`` reads them), and each player's name where ``names`` gives one,
    replacing the ones kept before.  The new set is written whole beside the old one before it
    takes its place: a failure on the way leaves the old set as it was."""
    root = prompts_dir(models_dir)
    work = root.with_name(f".{root.name}.nuevo")
    shutil.rmtree(work, ignore_errors=True)
    try:
        work.mkdir(parents=True)
        for k, utts in enumerate(voices, 1):
            folder = work / f"jugador-{k}"
            folder.mkdir()
            for n, (pcm, text) in enumerate(utts, 1):
                write_wav(folder / f"{text.replace(' ', '_')}-{n}.wav", pcm)
            _write_name(folder, names[k - 1] if k <= len(names) else "")
        replace_folder(work, root)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def prompt_text(path: Path) -> str:
    """What a recording says, from its name: its words, joined by ``_`` (as ``save_prompts``
    names them), ``-`` or spaces, and after a last ``-`` the take's number, if any
    (``_numbered``): ``vale_cuatro-2.wav``, ``vale-cuatro.wav``, ``vale cuatro.wav`` → ``vale
    cuatro``.  In the case written; whether it is a phrase is the reader's question."""
    words = _numbered(path.stem)[0]
    return " ".join(words.replace("_", " ").replace("-", " ").split())


def _numbered(stem: str) -> tuple[str, int]:
    """A name and the number it ends with after a ``-`` (0 for none): ``jugador-3`` → (jugador,
    3), ``treinta-y-tres-2`` → (treinta-y-tres, 2), ``son-buenas`` → (son-buenas, 0)."""
    head, dash, number = stem.rpartition("-")
    return (head, int(number)) if dash and number.isdecimal() else (stem, 0)


def _number(path: Path) -> int:
    """The number a kept player's folder or recording ends with: where it came among them
    (``jugador-3`` → 3, ``vale_cuatro-2.wav`` → 2)."""
    return _numbered(path.stem)[1]


def _players_recordings(models_dir: Path) -> list[list[Path]]:
    """The kept recordings' files, one list per player in the order the players were
    calibrated (``jugador-2`` before ``jugador-10``), each in the order they were said."""
    folders = [p for p in prompts_dir(models_dir).glob("*") if p.is_dir()]
    out = []
    for folder in sorted(folders, key=lambda p: (_number(p), p.name)):
        files = sorted(folder.glob("*.wav"), key=lambda f: (_number(f), f.name))
        if files:
            out.append(files)
    return out


def player_name(name: str, others: Iterable[str] = ()) -> str:
    """A name as it is kept (``names.clean_name``: composed, one line, spaces collapsed); ValueError
    in words for one longer than ``NAME_MAX`` characters, one made only of digits (``voices
    forget --player 2`` is the second player), or the name of one of the ``others`` (in any case
    or Unicode form, ``names.same_name``: neither could be picked by it)."""
    said = clean_name(name)
    if len(said) > NAME_MAX:
        raise ValueError(f"el nombre es muy largo: hasta {NAME_MAX} letras")
    if said.isdecimal():
        raise ValueError(f"«{said}» es un número y se confunde con el jugador {int(said)}: poné "
                         "un nombre con letras")
    if said and name_key(said) in {name_key(other) for other in others}:
        raise ValueError(f"ya hay un jugador que se llama {said}: poné otro nombre (con la "
                         "inicial del apellido, por ejemplo)")
    return said


def _write_name(folder: Path, name: str) -> None:
    """Keep a player's name in their folder (none: no name kept)."""
    file = folder / NAME_FILE
    if name:
        file.write_text(player_name(name) + "\n", encoding="utf-8")
    else:
        file.unlink(missing_ok=True)


def _read_name(folder: Path) -> str:
    try:
        return clean_name(folder.joinpath(NAME_FILE).read_text(encoding="utf-8"))[:NAME_MAX]
    except (OSError, UnicodeDecodeError):
        return ""


def player_names(models_dir: Path) -> list[str]:
    """Each kept player's name, in the order of ``saved_prompts`` ("" for one not named)."""
    return [_read_name(files[0].parent) for files in _players_recordings(models_dir)]


def name_player(models_dir: Path, player: int, name: str) -> str:
    """Give the kept ``player`` (1 = the first) a name, or with "" take theirs away; the name
    as kept.  ValueError in words for no such player or a name ``player_name`` refuses (another
    kept player's among them); OSError when the disk will not keep it."""
    voices = _players_recordings(models_dir)
    if not 1 <= player <= len(voices):
        raise ValueError(f"no hay un jugador {player} entre las voces calibradas guardadas")
    others = [_read_name(files[0].parent) for k, files in enumerate(voices, 1) if k != player]
    said = player_name(name, others)
    _write_name(voices[player - 1][0].parent, said)
    return said


def voice_of(player: int, name: str) -> str:
    """«la voz de Juan», or of one not named «la voz del jugador 2»."""
    return f"la voz de {name}" if name else f"la voz del jugador {player}"


def kept_voices(models_dir: Path) -> int:
    """How many players' calibration recordings are kept (``save_prompts``), without reading them."""
    return len(_players_recordings(models_dir))


class KeptPlayer(NamedTuple):
    folder: Path
    phrases: int  # recordings kept
    seconds: float  # of sound
    name: str  # "" for one not named


def kept_players(models_dir: Path) -> list[KeptPlayer]:
    """Each kept player, in the order of ``saved_prompts``."""
    out = []
    for files in _players_recordings(models_dir):
        seconds = 0.0
        for f in files:
            with contextlib.suppress(OSError, wave.Error, EOFError), wave.open(str(f)) as w:
                seconds += w.getnframes() / w.getframerate()
        out.append(KeptPlayer(files[0].parent, len(files), seconds, _read_name(files[0].parent)))
    return out


def saved_prompts(models_dir: Path) -> list[list[tuple[bytes, str]]]:
    """The kept calibration recordings, one list per player (the order of ``voice_sample``)."""
    return saved_players(models_dir)[0]


def saved_players(models_dir: Path) -> tuple[list[list[tuple[bytes, str]]], list[str]]:
    """The kept calibration recordings, one list per player, and the players' names, read
    together (``saved_prompts``, ``player_names``)."""
    players = _players_recordings(models_dir)
    return ([[(_pcm(f.read_bytes()), prompt_text(f)) for f in files] for files in players],
            [_read_name(files[0].parent) for files in players])


def voice_sample(models_dir: Path, player: int, phrases: int = 3) -> bytes | None:
    """The first ``phrases`` recordings kept of a calibrated ``player`` (1 = the first), one
    after another with a short pause, as a WAV: for the table to tell whose voice it is before
    removing it.  None when no such player is kept."""
    voices = _players_recordings(models_dir)
    if not 1 <= player <= len(voices):
        return None
    pause = bytes(2 * int(0.3 * SAMPLE_RATE))
    out = io.BytesIO()
    write_wav(out, pause.join(_pcm(f.read_bytes()) for f in voices[player - 1][:phrases]))
    return out.getvalue()


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
    ``alignments``: those of the last relearning, kept (``adapt.Alignments``)."""
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


__all__ = ["CONFIRMED", "LEARN_CONF", "PLAY_NOTES", "HeardPhrase", "KeptPlayer", "Learned", "cut",
           "forget", "forget_play", "kept_players", "kept_voices", "learn", "learnable", "name_player",
           "narrow_voices", "note", "player_name", "player_names", "prompt_text", "prompts_dir",
           "said_alone", "samples", "save", "save_prompts", "saved_players", "saved_prompts",
           "voice_of", "voice_sample", "words_of"]

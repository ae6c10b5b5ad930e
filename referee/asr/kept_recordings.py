"""The calibration's own recordings, kept under ``<models>/voice-calibration/prompts`` one folder
per player, files named by what they say, and each player's name."""

from __future__ import annotations

import contextlib
import io
import shutil
import wave
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from models.folders import replace_folder
from referee.asr.base import SAMPLE_RATE
from referee.asr.calibration_folder import calibration_dir
from referee.asr.play_phrases import clip_samples
from referee.evidence import write_wav
from referee.names import clean_name, name_key

NAME_FILE = "nombre.txt"  # a kept player's name, in their recordings' folder
NAME_MAX = 30  # characters of a player's name


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
    return ([[(clip_samples(f.read_bytes()), prompt_text(f)) for f in files] for files in players],
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
    write_wav(out, pause.join(clip_samples(f.read_bytes()) for f in voices[player - 1][:phrases]))
    return out.getvalue()

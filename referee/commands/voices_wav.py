"""The recordings of a 'voices calibrate --wav-dir' folder: one WAV a phrase, named for what
it says."""

from __future__ import annotations

from pathlib import Path

from referee.asr import kept_recordings
from referee.audio import AudioError
from referee.calibration_prompts import voiceless
from referee.phrases import grammar_phrases, normalize
from referee.wav import read_pcm


def from_wav_dir(folder: Path) -> list[tuple[bytes, str]]:
    """(pcm, text) for every WAV of the folder (``.wav`` or ``.WAV``), each named after the
    phrase it says (``said_in_name``); a name that is not a whole phrase the referee knows is
    refused, naming the files.  Hidden files (a Mac's ``._truco.wav``) are not recordings, and
    a recording without a sound, or with no voice in it (``calibration_prompts.voiceless``:
    silence, or nearly), is left out, saying so."""
    if not folder.is_dir():
        raise AudioError("wav-missing", f"no encuentro la carpeta {folder}")
    files = sorted(f for f in folder.iterdir()
                   if f.suffix.lower() == ".wav" and not f.name.startswith(".") and f.is_file())
    if not files:
        raise AudioError("wav-missing", f"no hay archivos .wav en {folder}")
    said = {f: said_in_name(f) for f in files}
    unknown = [f.name for f, text in said.items() if text is None]
    if unknown:
        named = ("no se llama como lo que dice" if len(unknown) == 1
                 else "no se llaman como lo que dicen")
        raise AudioError("wav-names", f"en {folder}, {_some(unknown)} {named}: cada archivo se "
                         "llama con la frase que dice (truco.wav, vale_cuatro.wav, "
                         "treinta_y_tres-2.wav)")
    read = [(f.name, _read_or_why(f), text) for f, text in said.items() if text]
    broken = [pcm for _, pcm, _ in read if isinstance(pcm, AudioError)]
    if broken:  # every one named at once, not one per try
        some, them = ("un .wav", "lo") if len(broken) == 1 else (f"{len(broken)} .wav", "los")
        raise AudioError("wav-broken", f"en {folder} hay {some} que no puedo leer: "
                         f"{_some([b.message for b in broken], '; ')}. Arregla{them}, o saca{them} "
                         f"de la carpeta y calibrá sin {'él' if them == 'lo' else 'ellos'}")
    return _with_voice(folder, [(name, pcm, text) for name, pcm, text in read
                                if isinstance(pcm, bytes)])


def _with_voice(folder: Path, read: list[tuple[str, bytes, str]]) -> list[tuple[bytes, str]]:
    """(pcm, text) of the recordings ``read`` (name, pcm, text) that have a voice in them; those
    without a sound (0 s) or with no voice (``voiceless``: silence, or nearly) are named and
    left out; none left is an AudioError."""
    silent = [name for name, pcm, _ in read if not pcm]
    if silent:
        empty = "no tiene sonido (dura" if len(silent) == 1 else "no tienen sonido (duran"
        print(f"En {folder} salteo {_some(silent)}: {empty} 0 segundos).", flush=True)
    quiet = [name for name, pcm, _ in read if pcm and voiceless(pcm)]
    if quiet:
        none = "no tiene voz: es" if len(quiet) == 1 else "no tienen voz: son"
        print(f"En {folder} salteo {_some(quiet)}: {none} silencio, o casi.", flush=True)
    if len(silent) + len(quiet) == len(read):
        lacking = "voz" if quiet else "sonido"
        raise AudioError("wav-empty", f"en {folder} ningún .wav tiene {lacking}")
    return [(pcm, text) for name, pcm, text in read if pcm and name not in quiet]


def _read_or_why(path: Path) -> bytes | AudioError:
    """A WAV's samples (``read_pcm``), or why it cannot be read."""
    try:
        return read_pcm(path)
    except AudioError as err:
        return err


def said_in_name(path: Path) -> str | None:
    """The phrase a WAV's name says (``kept_recordings.prompt_text``: ``vale_cuatro-2.wav``,
    ``son-buenas.wav``, ``Veintidos.WAV``), spelled as the phrase table spells it; None for a
    name that is not one whole phrase of it («son», «grabación 0»)."""
    return _PHRASES.get(normalize(kept_recordings.prompt_text(path)))


_PHRASES = {normalize(phrase): phrase for phrase in grammar_phrases()}


def _some(names: list[str], joined: str = ", ") -> str:
    """«a.wav, b.wav, c.wav y 2 más»."""
    return joined.join(names[:3]) + (f" y {len(names) - 3} más" if len(names) > 3 else "")

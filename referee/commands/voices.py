"""Calibrá el reconocedor a las voces de tu mesa: el programa te pide que digas cada canto y unos
números (un minuto, más o menos), y con eso ajusta el modelo acústico de Sphinx a cómo suenan
ustedes. 'listen' y 'serve' la usan solos cuando escuchan con Sphinx (si bajaste el modelo de Vosk,
usan Vosk: arrancalos con --recognizer sphinx para usar la calibración). Mientras juegan, 'serve' la
sigue ajustando con lo que oyó seguro y lo que confirmaron en la tablet; 'voices learn' hace lo
mismo con las partidas ya jugadas, y 'voices forget' la borra ('voices forget --player N' saca
sólo la voz de un jugador que se fue; 'voices list' dice qué jugadores hay, y 'voices name
--player N --name Juan' le pone nombre a uno)."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from models.catalog import SPHINX_ES
from models.paths import fetch_command, models_dir, user_data_dir
from referee.asr import learn as voice_learning
from referee.asr.adapt import calibration_dir
from referee.asr.base import RecognizerError
from referee.asr.find import find_model
from referee.audio import AudioChunk, AudioError
from referee.calibration_prompts import (
    NOTHING_HEARD,
    PHRASE_MAX_S,
    PLAY_FORGOTTEN,
    PROMPT_TIMEOUT_S,
    PROMPTS,
    PhraseCapture,
    unfitted,
    voiceless,
)
from referee.cli import INTERRUPTED
from referee.commands import values
from referee.device_status import NARROW_CALIBRATION
from referee.mics import table_mics
from referee.names import clean_name, same_name
from referee.phrases import grammar_phrases, normalize
from referee.wav import read_pcm

VOSK_FIRST = ("Ojo: la calibración es para el reconocedor Sphinx, y como tenés el modelo de Vosk, "
              "'listen' y 'serve' escuchan con Vosk. Para jugar con la calibración, arrancalos con "
              "--recognizer sphinx.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("calibrate", "learn", "forget", "list", "name"),
                        metavar="ACCIÓN",
                        help="calibrate = grabar y calibrar; learn = aprender de las partidas "
                        "jugadas; forget = borrar la calibración; list = qué calibración hay y "
                        "de qué jugadores guarda las grabaciones; name = ponerle nombre a uno")
    parser.add_argument("--mic", "--device", dest="mic", metavar="NOMBRE|NÚMERO", action="append",
                        help="qué micrófono usar (ver 'truco-referee devices'); si no, el de "
                             "siempre. Dos veces = un micrófono por equipo, como en 'serve': a cada "
                             "uno se lo oye por el que más fuerte lo oye")
    parser.add_argument("--channels", type=int, default=1, choices=(1, 2),
                        help="2 = un micrófono (canal) por equipo, como en 'serve'")
    parser.add_argument("--players", type=values.at_least_one, metavar="N",
                        help="cuántos de la mesa se calibran, uno después del otro (por defecto "
                             "1; con --wav-dir, uno por carpeta)")
    parser.add_argument("--add", action="store_true",
                        help="con calibrate: sumar jugadores nuevos a los ya calibrados (sólo ellos "
                             "dicen los cantos; se calibra con sus voces y las guardadas), en vez "
                             "de empezar de cero")
    parser.add_argument("--player", metavar="N|NOMBRE",
                        help="con forget: sacar sólo la voz del jugador N (el N-ésimo calibrado, "
                             "como lo numera 'voices list', o el que se llama así; sus grabaciones "
                             "están en <modelos>/voice-calibration/prompts/jugador-N) y calibrar "
                             "de nuevo con las de los demás; con name: a quién ponerle nombre")
    parser.add_argument("--name", action="append", metavar="NOMBRE",
                        help="con name: el nombre del jugador (\"\" se lo saca); con calibrate: "
                             "el de cada jugador que se calibra, en orden (se repite)")
    parser.add_argument("--wav-dir", metavar="CARPETA", action="append",
                        help="usar WAVs ya grabados en vez del micrófono: cada archivo se llama como "
                             "lo que dice (truco.wav, vale_cuatro.wav, treinta_y_tres-2.wav); "
                             "una carpeta por jugador (se repite)")
    values.add_models_dir(parser)
    parser.add_argument("--data-dir", type=Path, metavar="CARPETA",
                        help="dónde guarda 'serve' sus datos: con learn, las partidas; con dos "
                             "micrófonos, cuánto tarda cada uno (por defecto la de siempre)")


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
    """The phrase a WAV's name says (``learn.prompt_text``: ``vale_cuatro-2.wav``,
    ``son-buenas.wav``, ``Veintidos.WAV``), spelled as the phrase table spells it; None for a
    name that is not one whole phrase of it («son», «grabación 0»)."""
    return _PHRASES.get(normalize(voice_learning.prompt_text(path)))


_PHRASES = {normalize(phrase): phrase for phrase in grammar_phrases()}


def _some(names: list[str], joined: str = ", ") -> str:
    """«a.wav, b.wav, c.wav y 2 más»."""
    return joined.join(names[:3]) + (f" y {len(names) - 3} más" if len(names) > 3 else "")


def capture_one(chunks: Iterator[AudioChunk], timeout_s: float = PROMPT_TIMEOUT_S,
                longest_s: float = PHRASE_MAX_S) -> tuple[bytes | None, str]:
    """The next spoken phrase on the stream (``PhraseCapture``), or None and why not."""
    capture = PhraseCapture(timeout_s, longest_s)
    for chunk in chunks:
        got = capture.feed(chunk.pcm)
        if got is not None:
            return got
    return capture.end()


def from_mic(specs: list[str] | None, players: int = 1, channels: int = 1,
             data_dir: Path | None = None,
             names: list[str] | None = None) -> list[list[tuple[bytes, str]]]:
    """Ask each player, in turn (by their name, where ``names`` gives it), for each prompt and
    record it: one list per player.

    The microphone is opened before the first prompt, and a missing or lost one is an AudioError,
    not a retry: nobody is asked to speak to a microphone that is not there.  Two devices' lag is
    kept in ``data_dir`` for `serve` (``mics.lag_options``)."""
    mic = table_mics(specs, channels, keep_trying=False, data_dir=data_dir)
    chunks = iter(mic)
    voices: list[list[tuple[bytes, str]]] = []
    try:
        next(chunks, None)  # opens the microphone, or raises why it cannot
        print("Hablá como en la mesa, a la distancia de siempre y con el ruido de siempre: "
              "calibrá donde juegan. Si no te oigo, sigo con la próxima.")
        for player in range(1, players + 1):
            name = (names or [])[player - 1:player]
            if players > 1 or name:
                who = name[0] if name else f"Jugador {player}"
                _wait_for(f"{who} ({player} de {players}): cuando estés listo, apretá Enter.")
            out: list[tuple[bytes, str]] = []
            for k, text in enumerate(PROMPTS, 1):
                print(f"[{k}/{len(PROMPTS)}] Decí: «{text}»", flush=True)
                mic.drop_queued()  # what was said before the prompt showed is not its answer
                pcm, missed = capture_one(chunks)
                if pcm is None:
                    print(f"   {missed}; sigo", flush=True)
                    continue
                out.append((pcm, text))
            voices.append(out)
    finally:
        mic.stop()
    return voices


def _wait_for(message: str) -> None:
    print(message, flush=True)
    if sys.stdin.isatty():
        input()


def cannot_save(root: Path) -> str | None:
    """Why a calibration cannot be kept in the models folder ``root``, found out by writing
    there before anyone speaks (and leaving nothing behind); None when it can."""
    folder = calibration_dir(root)
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return not_saved(err)
    finally:
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()
    return None


def not_saved(err: OSError) -> str:
    """A calibration the disk would not keep, in words, and what to do."""
    return (f"no puedo guardar la calibración en {err.filename}: {values.said(err)}; arreglá "
            "eso, o usá otra carpeta de modelos con --models-dir")


# Each option, the actions it goes with, and how it is used: given with another action it is
# refused, not ignored (a «forget --players 3» does not forget everyone).
TAKE_ONE_OUT = "para sacar la voz de un jugador, 'voices forget --player N'"
OPTION_ACTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "player": (("forget", "name"), "'voices forget --player N'"),
    "name": (("calibrate", "name"), "'voices name --player N --name Juan'"),
    "players": (("calibrate",), f"'voices calibrate --players 4'; {TAKE_ONE_OUT}"),
    "add": (("calibrate",), f"'voices calibrate --add' suma a los ya calibrados; {TAKE_ONE_OUT}"),
    "wav_dir": (("calibrate",), "'voices calibrate --wav-dir CARPETA'"),
    "mic": (("calibrate",), "'voices calibrate --mic N'"),
}


def refused_option(args: argparse.Namespace) -> str | None:
    """Why the options given do not go together (``OPTION_ACTIONS``, an empty --player,
    --players against the folders of --wav-dir); None when they do."""
    for option, (actions, use) in OPTION_ACTIONS.items():
        if getattr(args, option) not in (None, False) and args.action not in actions:
            return f"--{option.replace('_', '-')} va con {' o '.join(actions)}: {use}."
    if args.player is not None and not args.player.strip():  # not «forget» of everyone
        return ("--player vacío: decí qué jugador, con su número o su nombre ('voices list' "
                "los muestra).")
    if args.wav_dir and args.players and args.players != len(args.wav_dir):
        return (f"--players {args.players} con {len(args.wav_dir)} --wav-dir: con WAVs, cada "
                "jugador es una carpeta; un --wav-dir por jugador.")
    return None


def run(args: argparse.Namespace) -> int:
    root = models_dir(args.models_dir)
    refused = refused_option(args)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    if args.action == "list":
        return list_voices(root)
    if args.action == "name":
        return name_player(root, args.player, args.name)
    player = kept_player(root, args.player) if args.player else None  # with forget: one of them
    if args.player and player is None:
        return 2
    if args.action == "forget" and player is None:
        return forget(root, lambda had: "Borré la calibración; lo oído hasta ahora no se vuelve "
                      "a usar para aprender." if had else "No había calibración.")
    try:
        choice = find_model(root, "sphinx")
    except RecognizerError as err:  # a damaged model: what is wrong with it and how to mend it
        print(f"No puedo arrancar el reconocedor: {err.message}", file=sys.stderr)
        return 2
    if choice.english:
        print("Para calibrar hace falta el modelo de Sphinx en español: "
              f"bajalo con '{fetch_command(root, SPHINX_ES.name)}'.", file=sys.stderr)
        return 2
    problem = cannot_save(root)
    if problem:  # said before a minute of recording or learning, not after
        doing = {"learn": "aprender", "forget": "sacar esa voz"}.get(args.action, "calibrar")
        print(f"No puedo {doing}: {problem}", file=sys.stderr)
        return 2
    # with the Vosk model there, plain 'listen' and 'serve' run Vosk, and the calibration is Sphinx's
    vosk_first = find_model(root).kind == "vosk"
    users = ("'listen --recognizer sphinx' y 'serve --recognizer sphinx'" if vosk_first
             else "'listen' y 'serve'")
    if args.action == "learn":
        return learn_from_games(args, root, choice.path, users)
    if player is not None:
        return remove_player(player, root, choice.path)
    if vosk_first:  # said before anyone speaks, not after a minute of recording
        print(VOSK_FIRST, flush=True)
    return calibrate_from_recordings(args, root, choice.path, users)


def calibrate_from_recordings(args: argparse.Namespace, root: Path, model_dir: Path,
                              users: str) -> int:
    """Record the prompts (or read them from WAVs), calibrate, and keep the calibration; with
    ``--add``, on the kept recordings of the players calibrated before too."""
    kept, kept_names = voice_learning.saved_players(root) if args.add else ([], [])
    if args.add and not kept:  # said before a minute of recording
        print("No hay grabaciones de una calibración a las que sumar jugadores: calibrá sin --add.",
              file=sys.stderr)
        return 2
    names = players_named(args.name or (), kept_names)
    if names is None:
        return 2
    heard = len(args.wav_dir) if args.wav_dir else args.players or len(names) or 1
    if len(names) > heard:
        print(f"Hay {len(names)} nombres para {_players(heard)}: un --name por jugador.",
              file=sys.stderr)
        return 2
    replaced = 0 if args.add else voice_learning.kept_voices(root)
    if replaced:  # said before a minute of recording
        print(f"Ojo: esto reemplaza la calibración de {_players(replaced)}; con --add, los que "
              "se calibran ahora se suman a ellos.", flush=True)

    def recorded() -> list[list[tuple[bytes, str]]]:
        voices = ([from_wav_dir(Path(d)) for d in args.wav_dir] if args.wav_dir
                  else from_mic(args.mic, heard, args.channels, args.data_dir or user_data_dir(),
                                names))
        said = sum(len(v) for v in voices)
        if not said:  # every prompt silent or noise: nothing to calibrate with
            raise AudioError("nothing-heard", NOTHING_HEARD)
        before = f" y las de {len(kept)} ya calibrad{'a' if len(kept) == 1 else 'as'}" if kept else ""
        print(f"Calibrando con {said} frases de {len(voices)} "
              f"{'voz' if len(voices) == 1 else 'voces'}{before}…", flush=True)
        return [*kept, *voices]

    instead = f" en lugar de la de {_players(replaced)}" if replaced else ""
    return fit_and_keep(root, model_dir, recorded, [*kept_names, *names],
                        lambda path, seconds: f"Listo: {seconds:.0f} s de voz. Guardé la "
                        f"calibración en {path}{instead}; {users} la usan solos ('voices forget' "
                        "la borra).")


def players_named(given: Iterable[str], kept: list[str]) -> list[str] | None:
    """The names of the players calibrated now (``--name``, in order), as kept; None, said why,
    for an empty one or one ``learn.player_name`` refuses (another's, ``kept`` among them)."""
    names: list[str] = []
    for name in given:
        try:
            said = voice_learning.player_name(name, [*kept, *names])
        except ValueError as err:
            print(f"--name: {err}", file=sys.stderr)
            return None
        if not said:
            print("--name vacío: decí el nombre de cada jugador ('--name Juan'), o ninguno y "
                  "después 'voices name --player N --name Juan'.", file=sys.stderr)
            return None
        names.append(said)
    return names


def _players(n: int) -> str:
    return f"{n} {'jugador' if n == 1 else 'jugadores'}"


def list_voices(root: Path) -> int:
    """Say whether the voices are calibrated, on how much speech, and whose recordings are
    kept, numbered as 'voices forget --player N' takes them."""
    means = calibration_dir(root) / "means"
    if not means.is_file():
        print(f"No hay calibración de las voces en {root}: 'voices calibrate' la hace.")
        return 0
    info = voice_learning.note(root)
    made = time.strftime("%d/%m/%Y %H:%M", time.localtime(means.stat().st_mtime))
    print(f"Calibración de las voces: {means} (del {made}; {info.get('speech_s', '?')} s de voz: "
          f"{info.get('prompts', 0)} frases de la calibración y {info.get('heard', 0)} del juego)")
    if voice_learning.calibrated_narrow(root):
        print(NARROW_CALIBRATION)
    players = voice_learning.kept_players(root)
    if not players:
        print("No guarda grabaciones de ningún jugador (aprendió sólo del juego).")
        return 0
    print("Jugadores con sus grabaciones guardadas ('voices forget --player N' saca uno, "
          "'voices name --player N --name Juan' le pone nombre):")
    for n, player in enumerate(players, 1):
        name = f"{player.name}: " if player.name else ""
        print(f"  {n}. {name}{player.phrases} frases, {player.seconds:.0f} s de grabación: "
              f"{player.folder}")
    return 0


def kept_player(root: Path, said: str | None) -> int | None:
    """The kept player ``said`` names (their number, as 'voices list' gives it, or their name,
    in any case or Unicode form: ``names.same_name``); None, said why, for none."""
    names = voice_learning.player_names(root)
    if said and said.strip().isdecimal() and 1 <= int(said) <= len(names):
        return int(said)
    found = [n for n, name in enumerate(names, 1) if said and name and same_name(name, said)]
    if len(found) == 1:
        return found[0]
    have = (f"hay {len(names)}: 'voices list' los muestra" if names
            else "no hay ninguna")
    who = (f"un jugador {said}" if not said or said.strip().isdecimal()
           else f"un solo jugador que se llame «{clean_name(said)}»")
    print(f"No hay {who} entre las voces calibradas guardadas ({have}); --player N o --player "
          "NOMBRE.", file=sys.stderr)
    return None


def name_player(root: Path, said: str | None, names: list[str] | None) -> int:
    """Give a kept player a name (or with "" take theirs away)."""
    if not said or names is None or len(names) != 1:
        print("Decí a quién y cómo: 'voices name --player N --name Juan'.", file=sys.stderr)
        return 2
    player = kept_player(root, said)
    if player is None:
        return 2
    try:
        name = voice_learning.name_player(root, player, names[0])
    except ValueError as err:
        print(f"No pude ponerle nombre: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"No pude guardar el nombre: {values.said(err)} ({err.filename})", file=sys.stderr)
        return 1
    print(f"El jugador {player} se llama {name}." if name
          else f"El jugador {player} ya no tiene nombre.")
    return 0


def remove_player(player: int, root: Path, model_dir: Path) -> int:
    """Delete one kept player's recordings and calibrate again on the others'; with nobody left,
    or too little of the others' speech to calibrate on, forget the calibration (theirs too:
    a calibration is its recordings and what was fitted on them)."""
    kept, names = voice_learning.saved_players(root)
    voice = voice_learning.voice_of(player, names[player - 1])
    del kept[player - 1], names[player - 1]
    if not kept:
        return forget(root, lambda _: f"Saqué {voice}, la única calibrada: borré la calibración.")
    try:
        voice_learning.forget_play(root)  # first: a running 'serve --learn' does not relearn it
    except OSError as err:
        print(f"No pude sacar {voice}: {not_saved(err)}", file=sys.stderr)
        return 1
    print(f"Calibrando de nuevo con las voces de {_players(len(kept))}…", flush=True)

    def too_little(why: str) -> int:
        return forget(root, lambda _: f"Saqué {voice}, pero con las grabaciones de los demás "
                      f"no alcanza para calibrar: {why}. Así que borré la calibración (y esas "
                      "grabaciones): el árbitro escucha sin calibración, y 'voices calibrate' hace "
                      f"una nueva. {PLAY_FORGOTTEN}")

    return fit_and_keep(root, model_dir, lambda: kept, names,
                        lambda path, seconds: f"Listo: saqué {voice}; {seconds:.0f} s de voz de "
                        f"los demás. Guardé la calibración en {path}. {PLAY_FORGOTTEN}",
                        too_little)


def forget(root: Path, done: Callable[[bool], str]) -> int:
    """Drop the calibration and its recordings; say so (``done``, given whether there was one)
    or why not."""
    try:
        had = voice_learning.forget(root)
    except OSError as err:
        print(f"No pude borrar la calibración: {values.said(err)} ({err.filename})",
              file=sys.stderr)
        return 1
    print(done(had))
    return 0


def fit_and_keep(root: Path, model_dir: Path,
                 voices: Callable[[], list[list[tuple[bytes, str]]]], names: list[str],
                 done: Callable[[Path, float], str],
                 too_little: Callable[[str], int] | None = None) -> int:
    """Calibrate on ``voices()`` (recorded, read or kept: one list of (pcm, text) per player)
    and keep it with them and the players' ``names``; say what was done (``done``, given where
    it was saved and the seconds of speech) or why not.  ``too_little``, if given, is what
    becomes of too little speech to calibrate on (given why), nothing being kept."""
    try:
        path, stats = voice_learning.calibrate_prompts(root, model_dir, voices(), names)
    except (AudioError, RecognizerError) as err:
        if too_little is not None and err.code == "calibration-short":
            return too_little(err.message)
        print(f"No pude calibrar: {err.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(cancelled(root), file=sys.stderr)
        return INTERRUPTED
    except OSError as err:
        print(f"No pude calibrar: {not_saved(err)}", file=sys.stderr)
        return 1
    print(done(path, stats.frames / 100))
    if left_out := unfitted(stats.said, stats.aligned):
        print(left_out)
    _say_narrow(root)
    return 0


def cancelled(root: Path) -> str:
    """A calibration stopped with Ctrl-C: nothing of it kept, what the table is left with, and
    that the next one starts over (it does not go on where this one stopped)."""
    kept = voice_learning.kept_voices(root)
    if (calibration_dir(root) / "means").is_file():
        left = f"sigue la calibración de antes{f', de {_players(kept)}' if kept else ''}"
    else:
        left = "no hay calibración"
    return (f"Calibración cancelada; no guardé nada de lo grabado ahora: {left}. La próxima "
            "'voices calibrate' empieza de nuevo, desde la primera frase del primer jugador.")


def learn_from_games(args: argparse.Namespace, root: Path, model_dir: Path, users: str) -> int:
    """Adapt to the table's voices from the games 'serve' kept (and the calibration's recordings)."""
    from referee.learning import describe, learn_from, phrases_to_learn
    from web_scoreboard.app import DB_NAME
    from web_scoreboard.store import Store, StoreError

    db = (args.data_dir or user_data_dir()) / DB_NAME
    if not db.is_file():
        print(f"No hay partidas guardadas en {db.parent}.", file=sys.stderr)
        return 2
    try:
        store = Store(db)
    except StoreError as err:
        print(f"No pude aprender: {err}", file=sys.stderr)
        return 2
    try:  # with no play to learn from, not a minute's refit on the recordings alone
        played = phrases_to_learn(store, root)
        learned, until = learn_from(store, root, model_dir) if played else (None, 0)
    except RecognizerError as err:
        print(f"No pude aprender: {err.message}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if learned is None or not learned.heard:
        print(f"No hay frases del juego de las que aprender en {db.parent}: se aprende de los "
              "cantos que 'serve' oyó seguro o que confirmaron en la tablet (desde la última vez "
              "que se borró la calibración o se sacó un jugador). No cambié nada.",
              file=sys.stderr)
        return 1
    try:
        path = voice_learning.save(root, model_dir, learned, learned_until=until)
    except OSError as err:
        print(f"No pude aprender: {not_saved(err)}", file=sys.stderr)
        return 1
    print(f"Listo: aprendí de {describe(learned)}. Guardé la calibración en {path}; "
          f"{users} la usan solos.")
    _say_narrow(root)
    return 0


def _say_narrow(root: Path) -> None:
    """Say a calibration made on speech that sounded like a telephone (``referee.band``): what
    it wins back, it wins through that line (docs/voice.md, "A microphone through a narrow
    line")."""
    if voice_learning.calibrated_narrow(root):
        print(NARROW_CALIBRATION)

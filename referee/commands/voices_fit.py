"""Fitting the calibration to the table's voices and keeping it: on recordings ('voices
calibrate'), on the games played ('voices learn'), and again on the others' when one player is
taken out ('voices forget --player N')."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from models.paths import user_data_dir
from referee.asr import kept_recordings
from referee.asr import learn as voice_learning
from referee.asr.base import RecognizerError
from referee.asr.calibration_folder import calibration_dir
from referee.audio import AudioError
from referee.calibration_prompts import NOTHING_HEARD, PLAY_FORGOTTEN, unfitted
from referee.cli import INTERRUPTED
from referee.commands import values
from referee.commands.voices_mic import PlayersStopped, from_mic, player_label
from referee.commands.voices_players import forget
from referee.commands.voices_wav import from_wav_dir
from referee.device_status import NARROW_CALIBRATION


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


def calibrate_from_recordings(args: argparse.Namespace, root: Path, model_dir: Path,
                              users: str) -> int:
    """Record the prompts (or read them from WAVs), calibrate, and keep the calibration; with
    ``--add``, on the kept recordings of the players calibrated before too."""
    kept, kept_names = kept_recordings.saved_players(root) if args.add else ([], [])
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
    replaced = 0 if args.add else kept_recordings.kept_voices(root)
    if replaced:  # said before a minute of recording
        print(f"Ojo: esto reemplaza la calibración de {_players(replaced)}; con --add, los que "
              "se calibran ahora se suman a ellos.", flush=True)

    stopped: list[int] = []  # Ctrl-C in a later player's turn: how many had finished, kept

    def recorded() -> list[list[tuple[bytes, str]]]:
        try:
            voices = ([from_wav_dir(Path(d)) for d in args.wav_dir] if args.wav_dir
                      else from_mic(args.mic, heard, args.channels,
                                    args.data_dir or user_data_dir(), names))
        except PlayersStopped as stop:
            if not any(stop.finished):  # nobody finished, or said a phrase: nothing to keep
                raise
            voices = stop.finished
            stopped.append(len(voices))
            print(f"Ctrl-C en el turno de {player_label(len(voices) + 1, names)}: guardo sólo las "
                  f"voces de los que terminaron ({_labels(range(1, len(voices) + 1), names)}); "
                  "otro Ctrl-C y no guardo nada.", flush=True)
        said = sum(len(v) for v in voices)
        if not said:  # every prompt silent or noise: nothing to calibrate with
            raise AudioError("nothing-heard", NOTHING_HEARD)
        before = f" y las de {len(kept)} ya calibrad{'a' if len(kept) == 1 else 'as'}" if kept else ""
        print(f"Calibrando con {said} frases de {len(voices)} "
              f"{'voz' if len(voices) == 1 else 'voces'}{before}…", flush=True)
        return [*kept, *voices]

    instead = f" en lugar de la de {_players(replaced)}" if replaced else ""

    def done(path: Path, seconds: float) -> str:
        left = f" {_left_out(stopped[0], heard, names)}" if stopped else ""
        return (f"Listo: {seconds:.0f} s de voz. Guardé la calibración en {path}{instead}; {users} "
                f"la usan solos ('voices forget' la borra).{left}")

    code = fit_and_keep(root, model_dir, recorded, [*kept_names, *names], done)
    return INTERRUPTED if stopped and code == 0 else code


def _left_out(finished: int, players: int, names: list[str]) -> str:
    """Who a calibration stopped with Ctrl-C kept (the ``finished`` first of the ``players``),
    who not, and how to add them."""
    rest = players - finished
    others = _labels(range(finished + 2, players + 1), names)
    add = "'voices calibrate --add" + (f" --players {rest}' las suma" if rest > 1 else "' la suma")
    return (f"Guardé las voces de {_labels(range(1, finished + 1), names)}, que dijeron todas sus "
            f"frases; la de {player_label(finished + 1, names)} no (lo que grabó hasta el Ctrl-C "
            f"no lo guardé){f', ni la de {others}' if others else ''}: {add}.")


def _labels(players: Iterable[int], names: list[str]) -> str:
    """«Ana», «Ana y Jugador 2», «Ana, Jugador 2 y Jugador 3»."""
    said = [player_label(player, names) for player in players]
    return ", ".join(said[:-1]) + f" y {said[-1]}" if len(said) > 1 else "".join(said)


def players_named(given: Iterable[str], kept: list[str]) -> list[str] | None:
    """The names of the players calibrated now (``--name``, in order), as kept; None, said why,
    for an empty one or one ``kept_recordings.player_name`` refuses (another's, ``kept`` among
    them)."""
    names: list[str] = []
    for name in given:
        try:
            said = kept_recordings.player_name(name, [*kept, *names])
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


def remove_player(player: int, root: Path, model_dir: Path) -> int:
    """Delete one kept player's recordings and calibrate again on the others'; with nobody left,
    or too little of the others' speech to calibrate on, forget the calibration (theirs too:
    a calibration is its recordings and what was fitted on them)."""
    kept, names = kept_recordings.saved_players(root)
    voice = kept_recordings.voice_of(player, names[player - 1])
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
    kept = kept_recordings.kept_voices(root)
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

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
import sys
from pathlib import Path

from models.catalog import SPHINX_ES
from models.paths import fetch_command, models_dir
from referee.asr.base import RecognizerError
from referee.asr.find import find_model
from referee.commands import values
from referee.commands.voices_fit import (
    calibrate_from_recordings,
    cannot_save,
    learn_from_games,
    remove_player,
)
from referee.commands.voices_players import forget, kept_player, list_voices, name_player

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

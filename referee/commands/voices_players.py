"""The kept calibration and its players: what there is ('voices list'), a player picked by number
or name and named ('voices name'), and forgetting it all ('voices forget')."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from referee.asr import kept_recordings
from referee.asr import learn as voice_learning
from referee.asr.calibration_folder import calibration_dir
from referee.commands import values
from referee.device_status import NARROW_CALIBRATION
from referee.names import clean_name, same_name


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
    players = kept_recordings.kept_players(root)
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
    names = kept_recordings.player_names(root)
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
        name = kept_recordings.name_player(root, player, names[0])
    except ValueError as err:
        print(f"No pude ponerle nombre: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"No pude guardar el nombre: {values.said(err)} ({err.filename})", file=sys.stderr)
        return 1
    print(f"El jugador {player} se llama {name}." if name
          else f"El jugador {player} ya no tiene nombre.")
    return 0


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

"""Aplica un registro escrito de la mesa, línea por línea, y muestra el resultado.

Cada línea es un evento: «set flor on», «hand», «A1: envido», «B1: quiero», «A1: veintiocho»,
«A1 plays 7o», «round B», «hand A», «A1 shows 7o 1o», «A1: me voy al mazo».  Lo dicho pasa por la
misma interpretación que usa el micrófono: «turco» no es truco.  Una línea rechazada no cambia
nada y se sigue con la próxima.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from pathlib import Path

from referee.replay import ReplayResult, replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="ARCHIVO",
                        help="el registro de la mesa (un evento por línea; - para stdin)")
    parser.add_argument("--json", action="store_true", help="imprimir el resultado en JSON")


OPEN_ERRORS: dict[int, str] = {
    errno.ENOENT: "no existe",
    errno.EISDIR: "es una carpeta, no un archivo",
    errno.EACCES: "no tengo permiso para leerlo",
}


def read_text(data: bytes) -> str:
    """A log's text: UTF-8, else Latin-1 (a log saved by an older editor), which reads any byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_log(name: str) -> list[str]:
    """The lines of a log file (``-`` for stdin)."""
    if name == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        return (read_text(buffer.read()) if buffer else sys.stdin.read()).splitlines()
    return read_text(Path(name).read_bytes()).splitlines()


def run(args: argparse.Namespace) -> int:
    try:
        lines = read_log(args.file)
    except OSError as err:
        why = OPEN_ERRORS.get(err.errno or 0, err.strerror or str(err))
        print(f"no puedo abrir {args.file}: {why}", file=sys.stderr)
        return 1
    result = replay(lines)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(summary(result))
    return 0


def summary(result: ReplayResult) -> str:
    data = result.to_dict()
    score = data["score"]
    lines = []
    for hand in data["hands"]:
        got = ", ".join(f"{cat} {team}+{pts}" for cat in ("envido", "flor", "truco")
                        for team, pts in hand[cat].items() if pts)
        lines.append(f"mano {hand['number']} (es mano {hand['mano'] or 'pica-pica'}): {got or 'sin puntos'}")
    for r in result.rejected:
        lines.append(f"línea {r.line} rechazada: «{r.text}» — {r.reason}")
    winner = data["winner"]
    lines.append(f"tanteador: A {score['A']} — B {score['B']}"
                 + (f"; ganó {winner}" if winner else "; la partida sigue"))
    return "\n".join(lines)

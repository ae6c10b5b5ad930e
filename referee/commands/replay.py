"""Aplica un registro escrito de la mesa, línea por línea, y muestra el resultado.

Cada línea es un evento: «set flor on», «hand», «A1: envido», «B1: quiero», «A1: veintiocho»,
«A1 plays 7o», «round B», «hand A», «A1 shows 7o 1o», «A1: me voy al mazo».  Lo dicho pasa por la
misma interpretación que usa el micrófono: «turco» no es truco.  Una línea rechazada no cambia
nada y se sigue con la próxima.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import json
import sys
from pathlib import Path

from referee.commands import values
from referee.replay import Rejection, ReplayResult, replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="ARCHIVO",
                        help="el registro de la mesa (un evento por línea; - para leerlo de la entrada "
                        "estándar)")
    parser.add_argument("--json", action="store_true", help="imprimir el resultado en JSON")


OPEN_ERRORS: dict[int, str] = {
    **values.SYSTEM_ERRORS,
    errno.ENOENT: "no existe",
    errno.EACCES: "no tengo permiso para leerlo",
}


class NotText(ValueError):
    """A log that is not text (binary, or UTF-16); ``why`` completes «ARCHIVO …»."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def read_text(data: bytes) -> list[str]:
    """A log's lines: each in UTF-8, else Latin-1 (a line added by an older editor: one such line
    does not turn the «veintidós» of the others into «veintidÃ³s»); no byte-order mark (two logs
    pasted together carry one inside).

    Latin-1 reads any byte, so a NUL (no text log has one) is what gives away a UTF-16 or binary
    file: raises ``NotText`` for those rather than replay garbage.
    """
    if b"\0" in data:
        raise NotText("está en UTF-16: guardalo como UTF-8" if is_utf16(data)
                      else "no parece un registro de texto")
    return [decoded(line).replace("\ufeff", "") for line in data.splitlines()]


def decoded(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def is_utf16(data: bytes) -> bool:
    """A UTF-16 byte-order mark, or NULs in most odd (or even) bytes and not in the others."""
    if data.startswith(UTF16_BOMS):
        return True
    half = len(data) // 4
    return (data[1::2].count(0) > half) != (data[::2].count(0) > half)


def read_log(name: str) -> list[str]:
    """The lines of a log file (``-`` for stdin)."""
    if name != "-":
        return read_text(Path(name).read_bytes())
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer:
        return read_text(buffer.read())
    return [line.replace("\ufeff", "") for line in sys.stdin.read().splitlines()]


def run(args: argparse.Namespace) -> int:
    try:
        lines = read_log(args.file)
    except OSError as err:
        why = values.said(err, OPEN_ERRORS)
        print(f"no puedo abrir {args.file}: {why}", file=sys.stderr)
        return 1
    except NotText as err:
        shown = "la entrada estándar" if args.file == "-" else args.file
        print(f"{shown} {err.why}", file=sys.stderr)
        return 1
    result = replay(lines)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(summary(result))
    if not result.table.lines:
        print(nothing_applied(result), file=sys.stderr)
    return 0


def nothing_applied(result: ReplayResult) -> str:
    """The notice that the log changed nothing, and why."""
    why = "se rechazaron todas" if result.rejected else "el registro no tiene eventos"
    return f"No se aplicó ninguna línea: {why}."


def summary(result: ReplayResult) -> str:
    data = result.to_dict()
    score = data["score"]
    lines = []
    for hand in data["hands"]:
        got = ", ".join(f"{cat} {team}+{pts}" for cat in ("envido", "flor", "truco")
                        for team, pts in hand[cat].items() if pts)
        lines.append(f"mano {hand['number']} (es mano {hand['mano'] or 'pica-pica'}): {got or 'sin puntos'}")
    lines += [rejected_line(r) for r in result.rejected]
    winner = data["winner"]
    chicos = data["chicos"] if data["settings"].get("match") else None
    lines.append(f"tanteador: A {score['A']} — B {score['B']}"
                 + (f"; chicos: A {chicos['A']} — B {chicos['B']}" if chicos else "")
                 + (f"; ganó {winner}" if winner else "; la partida sigue"))
    return "\n".join(lines)


def rejected_line(r: Rejection) -> str:
    """«línea N rechazada: …», quoting the line only if the reason does not start with it."""
    if names_line(r.reason, r.text):
        return f"línea {r.line} rechazada: {r.reason}"
    return f"línea {r.line} rechazada: «{r.text}» — {r.reason}"


def names_line(reason: str, text: str) -> bool:
    """Whether a reason starts with the line it refuses, as the engine writes it («A1: truco: …»,
    «««blah»: …»): the same words, maybe in other case or spacing."""
    if reason.startswith(f"«{text}»:"):
        return True
    squeezed = "".join(reason.split()).casefold()
    return squeezed.startswith("".join(text.split()).casefold() + ":")

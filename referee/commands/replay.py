"""Aplica un registro escrito de la mesa, línea por línea, y muestra el resultado.

Cada línea es un evento: «set flor sí» o «set a 15» (una regla), «mano» (se reparte),
«A1: envido», «B1: quiero», «A1: veintiocho», «A1 juega 7o», «vuelta B» o «vuelta parda»,
«mano A», «envido A», «A1 muestra 7o 1o», «puntos A +2», «A1: me voy al mazo».  También se leen
en inglés («hand», «A1 plays 7o», «round B», «set points 15»).  Lo dicho pasa por la misma
interpretación que usa el micrófono: «turco» no es truco.  Una línea rechazada no cambia nada y se sigue con la próxima.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import json
import re
import sys
from pathlib import Path
from typing import Any

from engine import Adjust, Team
from referee.commands import values
from referee.replay import Rejection, ReplayResult, replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="ARCHIVO", type=file_name,
                        help="el registro de la mesa (un evento por línea; - para leerlo de la entrada "
                        "estándar)")
    parser.add_argument("--json", action="store_true", help="imprimir el resultado en JSON")


def file_name(text: str) -> str:
    """A log's file name: not an empty one (which would name the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("falta el nombre del archivo (o - para la entrada estándar)")
    return text


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
# What no text log has: the control characters but tab, line feed, form feed and carriage return.
NOT_TEXT = r"[\x00-\x08\x0b\x0e-\x1f\x7f]"
NOT_TEXT_BYTES = re.compile(NOT_TEXT.encode())
# What is not shown of a line back on the terminal: every control character but tab (C1 ones too,
# which a Latin-1 line can hold), as «�».
CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
PAST_ASCII_CONTROLS = re.compile(r"[\x7f-\x9f]")  # those ``json.dumps`` writes as they are


def read_text(data: bytes) -> list[str]:
    """A log's lines: each in UTF-8, else Latin-1 (a line added by an older editor: one such line
    does not turn the «veintidós» of the others into «veintidÃ³s»); no byte-order mark (two logs
    pasted together carry one inside).

    Latin-1 reads any byte, so a control character no text log has (a NUL, an escape) is what
    gives away a UTF-16 or binary file: raises ``NotText`` for those rather than replay garbage.
    """
    if NOT_TEXT_BYTES.search(data):
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
    text = sys.stdin.read()
    if re.search(NOT_TEXT, text):
        raise NotText("no parece un registro de texto")
    return [line.replace("\ufeff", "") for line in text.splitlines()]


def run(args: argparse.Namespace) -> int:
    try:
        lines = read_log(args.file)
    except OSError as err:
        why = values.said(err, OPEN_ERRORS)
        print(f"no puedo abrir {shown(args.file)}: {why}", file=sys.stderr)
        return 1
    except NotText as err:
        name = "la entrada estándar" if args.file == "-" else shown(args.file)
        print(f"{name} {err.why}", file=sys.stderr)
        return 1
    result = replay(lines)
    if args.json:
        print(PAST_ASCII_CONTROLS.sub(escaped, json.dumps(result.to_dict(), ensure_ascii=False, indent=2)))
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
    """Each hand's points, the corrections where they were made, the refusals and the score."""
    data = result.to_dict()
    score = data["score"]
    corrections = result.corrections()
    lines = [correction_line(adjust) for dealt, adjust in corrections if dealt == 0]
    for number, (hand, mazo) in enumerate(zip(data["hands"], result.mazo_extra(), strict=True),
                                          start=1):
        lines.append(hand_line(hand, mazo))
        lines += [correction_line(adjust) for dealt, adjust in corrections if dealt == number]
    lines += [rejected_line(r) for r in result.rejected]
    winner = data["winner"]
    chicos = data["chicos"] if data["settings"].get("match") else None
    lines.append(f"tanteador: A {score['A']} — B {score['B']}"
                 + (f"; chicos: A {chicos['A']} — B {chicos['B']}" if chicos else "")
                 + (f"; ganó {winner}" if winner else "; la partida sigue"))
    return "\n".join(lines)


def hand_line(hand: dict[str, Any], mazo: dict[Team, int]) -> str:
    """«mano 2 (es mano B1): envido A+2, truco A+1»; the extra point of leaving in the first
    round, which the game counts as envido, as what it is."""
    got = {"mazo en primera": mazo,
           "envido": {team: pts - mazo[team] for team, pts in hand["envido"].items()},
           "flor": hand["flor"], "truco": hand["truco"]}
    points = ", ".join(f"{what} {team}+{pts}" for what, by_team in got.items()
                       for team, pts in by_team.items() if pts)
    who = f"es mano {hand['mano']}" if hand["mano"] else "pica-pica"
    return f"mano {hand['number']} ({who}): {points or 'sin puntos'}"


def correction_line(adjust: Adjust) -> str:
    return f"corrección: {adjust.team} {adjust.delta:+d}"


def rejected_line(r: Rejection) -> str:
    """«línea N rechazada: …», quoting the line only if the reason does not start with it."""
    if names_line(r.reason, r.text):
        return f"línea {r.line} rechazada: {shown(r.reason)}"
    return f"línea {r.line} rechazada: «{shown(r.text)}» — {shown(r.reason)}"


def shown(text: str) -> str:
    """Text from the input as it can be shown on a terminal: no control characters."""
    return CONTROLS.sub("\ufffd", text)


def escaped(control: re.Match[str]) -> str:
    """A control character as JSON escapes it."""
    return f"\\u{ord(control.group()):04x}"


def names_line(reason: str, text: str) -> bool:
    """Whether a reason starts with the line it refuses, as the engine writes it («A1: truco: …»,
    «««blah»: …»): the same words, maybe in other case or spacing."""
    if reason.startswith(f"«{text}»:"):
        return True
    squeezed = "".join(reason.split()).casefold()
    return squeezed.startswith("".join(text.split()).casefold() + ":")

"""Aplica un registro escrito de la mesa, línea por línea, y muestra el resultado.

Cada línea es un evento: «set flor sí» o «set a 15» (una regla), «mano» o «mano nueva» (se
reparte), «A1: envido», «B1: quiero», «A1: veintiocho», «A1 juega 7o», «vuelta B» o «vuelta parda»,
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
from typing import Any, BinaryIO

from engine import Adjust, Event, Show, Team
from referee.commands import values
from referee.replay import TEAMS, Rejection, ReplayResult, replay


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
    errno.EBADF: "está cerrada",
}


class NotText(ValueError):
    """A log that is not text (binary, or UTF-16); ``why`` completes «ARCHIVO …»."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # a ZIP with files, an empty one
HEAD_SIZE = 1 << 16  # what is read first to tell a file that is no log
# What no text log has: the control characters but tab, line feed, form feed and carriage return.
NOT_TEXT = r"[\x00-\x08\x0b\x0e-\x1f\x7f]"
NOT_TEXT_BYTES = re.compile(NOT_TEXT.encode())
# What is not shown of a line back on the terminal: every control character but tab (C1 ones too,
# which a Latin-1 line can hold), as «�».
CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
PAST_ASCII_CONTROLS = re.compile(r"[\x7f-\x9f]")  # those ``json.dumps`` writes as they are


def read_text(file: BinaryIO) -> list[str]:
    """A log's lines: each in UTF-8, else Windows-1252 (Latin-1 and the quotes and dashes of
    Windows, a line added by an older editor: one such line does not turn the «veintidós» of
    the others into «veintidÃ³s»); no byte-order mark (two logs pasted together carry one inside).

    Latin-1 reads any byte, so a control character no text log has (a NUL, an escape) is what
    gives away a UTF-16 or binary file: raises ``NotText`` for those rather than replay garbage,
    from the file's first block when it is there (a photo or the evidence ZIP is not read whole).
    """
    head = file.read(HEAD_SIZE)
    not_text(head)
    data = head + file.read()
    not_text(data)
    return [decoded(line).replace("\ufeff", "") for line in data.splitlines()]


def not_text(data: bytes) -> None:
    """Raises ``NotText`` when ``data`` is no text log, saying what it is where it can."""
    if data.startswith(ZIP_SIGNATURES):
        raise NotText("es un ZIP (la evidencia de la tablet trae adentro el registro, "
                      "partida-N.txt): descomprimilo y pasá ese archivo")
    if NOT_TEXT_BYTES.search(data):
        raise NotText("está en UTF-16: guardalo como UTF-8" if is_utf16(data)
                      else "no parece un registro de texto")


def decoded(line: bytes) -> str:
    for encoding in ("utf-8", "cp1252"):
        try:
            return line.decode(encoding)
        except UnicodeDecodeError:
            pass
    return line.decode("latin-1")  # the 5 bytes Windows-1252 leaves out


def is_utf16(data: bytes) -> bool:
    """A UTF-16 byte-order mark, or NULs in most odd (or even) bytes and not in the others."""
    if data.startswith(UTF16_BOMS):
        return True
    half = len(data) // 4
    return (data[1::2].count(0) > half) != (data[::2].count(0) > half)


TYPING_HINT = "Escribí las líneas del registro, una por renglón; terminá con Ctrl-D."


def at_a_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (a stand-in without ``isatty`` is not)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def read_log(name: str) -> list[str]:
    """The lines of a log file (``-`` for stdin)."""
    if name != "-":
        with open(name, "rb") as file:
            return read_text(file)
    if sys.stdin is None:  # started with its standard input closed
        raise OSError(errno.EBADF, "standard input closed")
    if at_a_terminal(sys.stdin):  # not piped: someone is to type the log, and is told how
        print(TYPING_HINT, file=sys.stderr)
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer:
        return read_text(buffer)
    text = sys.stdin.read()
    if re.search(NOT_TEXT, text):
        raise NotText("no parece un registro de texto")
    return [line.replace("\ufeff", "") for line in text.splitlines()]


def run(args: argparse.Namespace) -> int:
    name = "la entrada estándar" if args.file == "-" else shown(args.file)
    try:
        lines = read_log(args.file)
    except OSError as err:
        print(f"no puedo abrir {name}: {values.said(err, OPEN_ERRORS)}", file=sys.stderr)
        return 1
    except NotText as err:
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


LEFT_OUT = "se anotan los puntos que la partida había dejado afuera"


def summary(result: ReplayResult) -> str:
    """Each hand's points, the corrections where they were made, the refusals and the score.

    Points the end of the game had left out and a later event gave back (a correction, a false
    show, rules.md §5) are said with that event, not as if the hand had scored them then."""
    data = result.to_dict()
    score = data["score"]
    events = result.table.game.events
    later = result.scored_later()
    corrections = result.corrections()
    lines = [correction_line(adjust, later.get(i, [])) for dealt, i, adjust in corrections
             if dealt == 0]
    for number, (hand, mazo) in enumerate(zip(data["hands"], result.mazo_extra(), strict=True),
                                          start=1):
        shows = sorted({item["event"] for item in hand["scored_later"]
                        if not isinstance(events[item["event"]], Adjust)})
        lines.append(hand_line(hand, mazo)
                     + "".join(show_part(events[i], later[i]) for i in shows))
        lines += [correction_line(adjust, later.get(i, [])) for dealt, i, adjust in corrections
                  if dealt == number]
    lines += [aside_line(aside, data["settings"]["players"]) for aside in data["set_aside"]]
    lines += [rejected_line(r) for r in result.rejected]
    winner = data["winner"]
    chicos = data["chicos"] if data["settings"].get("match") else None
    lines.append(f"tanteador: A {score['A']} — B {score['B']}"
                 + (f"; chicos: A {chicos['A']} — B {chicos['B']}" if chicos else "")
                 + (f"; ganó {winner}" if winner else "; la partida sigue"))
    return "\n".join(lines)


def hand_line(hand: dict[str, Any], mazo: dict[Team, int]) -> str:
    """«mano 2 (es mano B1): envido A+2, truco A+1», the points scored when the hand was; the
    extra point of leaving in the first round, which the game counts as envido, as what it is."""
    def now(category: str, team: Team) -> int:
        return hand[category][team] - sum(item["points"] for item in hand["scored_later"]
                                          if (item["category"], item["team"]) == (category, team))
    got = {"mazo en primera": mazo,
           "envido": {team: now("envido", team) - mazo[team] for team in TEAMS},
           "flor": {team: now("flor", team) for team in TEAMS},
           "truco": {team: now("truco", team) for team in TEAMS}}
    points = ", ".join(f"{what} {team}+{pts}" for what, by_team in got.items()
                       for team, pts in by_team.items() if pts)
    who = f"es mano {hand['mano']}" if hand["mano"] else "pica-pica"
    return f"mano {hand['number']} ({who}): {points or 'sin puntos'}"


def aside_line(aside: dict[str, Any], players: int) -> str:
    """«mano 1: los tantos del envido no se oyeron; falta decir quién lo ganó («envido A» o
    «envido B»)»: points the score does not hold yet."""
    duel = f" {aside['seats'][0]}" if len(aside["seats"]) < players else ""  # pica-pica
    told = " o ".join(f"«envido {team}{duel}»" for team in TEAMS)
    what = "de la flor no se oyeron; falta decir quién la ganó" if aside["contest"] == "flor" \
        else "del envido no se oyeron; falta decir quién lo ganó"
    return f"mano {aside['hand']}: los tantos {what} ({told})"


def given_back(points: list[tuple[str, Team, int]]) -> str:
    """«se anotan los puntos que la partida había dejado afuera: truco B+2»."""
    return f"{LEFT_OUT}: " + ", ".join(f"{what} {team}+{pts}" for what, team, pts in points)


def show_part(event: Event, points: list[tuple[str, Team, int]]) -> str:
    """What a false show that reopened the game gave back, said after the hand's points."""
    shown_by = f"la muestra de {event.seat}" if isinstance(event, Show) else "la muestra"
    return f"; tras {shown_by}, {given_back(points)}"


def correction_line(adjust: Adjust, points: list[tuple[str, Team, int]]) -> str:
    """«corrección: A -1», with what it gave back when it reopened the game."""
    return (f"corrección: {adjust.team} {adjust.delta:+d}"
            + (f"; {given_back(points)}" if points else ""))


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

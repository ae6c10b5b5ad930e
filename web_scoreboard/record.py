"""A stored game to keep: as a table log (docs/replay.md), to check with ``truco-referee
replay`` (the rules it was played with as ``set`` lines, then every line applied, in order; a
header of comments says which game it is and how it stood), and with its evidence (everything the
referee heard and saw, with each clip and picture) for a dispute settled away from the table."""

from __future__ import annotations

import csv
import html
import io
import re
import time
import unicodedata
import zipfile
from collections.abc import Callable, Iterable
from typing import IO, Any

from referee import clip_codec
from web_scoreboard.store import GameRow, HeardRow

# What became of each heard item, in words.
STATUS = {"accepted": "aplicado", "unsure": "dudoso", "rejected": "rechazado", "undone": "deshecho",
          "kept": "guardado a mano"}
COLUMNS = ("n", "fecha y hora", "de", "equipo", "oído", "estado", "anotado", "motivo", "confianza",
           "archivo")
# a clip's or picture's file, by its type
EXTENSION = {clip_codec.WAV: "wav", clip_codec.FLAC: "flac", "image/jpeg": "jpg"}
WHEN = "%d/%m/%Y %H:%M:%S"  # a heard item's date and time, as read in the Río de la Plata
# What starts a formula in a spreadsheet cell (Excel, LibreOffice): = + - @, also after blanks
# a spreadsheet trims, or a tab or CR itself. Such a text cell is kept as text with a leading «'»
# (OWASP's «CSV injection»), a number as is.
FORMULA_START = re.compile(r"[\t\r]|[ \t\r\n]*[=+\-@]")
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def file_name(game_id: int) -> str:
    return f"partida-{game_id}.txt"


def replay_file(game: GameRow, names: dict[str, str], rules: list[str], lines: list[str],
                snap: dict[str, Any]) -> str:
    """The text of a game's log: a header (its teams' ``names``, and how it stands in ``snap``,
    its Table's snapshot), its ``rules`` lines, its ``lines``."""
    score = snap.get("score", {})
    standing = ", ".join(f"{names[t]} {score.get(t, 0)}" for t in ("A", "B"))
    winner = snap.get("winner")
    started = time.strftime("%d/%m/%Y %H:%M", time.localtime(game.created_at))
    won = f"; ganó {names[winner]}" if winner in names else ""
    again = f"truco-referee replay {file_name(game.id)}"
    header = [f"# Partida {game.id}, empezada el {started}: {standing}{won}",
              f"# A = {names['A']}, B = {names['B']}. Para volver a jugarla: {again}"]
    return "\n".join([*header, *rules, *lines]) + "\n"


def evidence_name(game_id: int) -> str:
    return f"partida-{game_id}-evidencia.zip"


def evidence_zip(out: IO[bytes], game_id: int, names: dict[str, str], log: str,
                 heard: Iterable[HeardRow],
                 clip: Callable[[str], tuple[bytes, str] | None]) -> None:
    """Write into ``out`` a zip of a game's table ``log`` (``replay_file``), ``oido.csv`` (one
    row per thing ``heard`` or seen, oldest first, naming its file), ``index.html`` (the same
    rows, each clip to play and each picture to see in any browser, with nothing else needed)
    and each one's clip or picture (``clip`` finds it by id), one at a time."""
    folder = f"partida-{game_id}"
    table = io.StringIO()
    rows = csv.writer(table)
    rows.writerow(COLUMNS)
    page: list[list[str]] = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{folder}/{file_name(game_id)}", log)
        files: dict[str, str] = {}  # clip id → its file: the items of one phrase share its sound
        for n, item in enumerate(heard, 1):
            kept = files.get(item.clip_id or "", "")
            found = clip(item.clip_id) if item.clip_id and not kept else None
            if found is not None:  # stored as is: deflate gains little on sound and pictures
                kept = f"evidencia/{n:04d}-{_slug(item.text)}.{EXTENSION.get(found[1], 'bin')}"
                zf.writestr(f"{folder}/{kept}", found[0], zipfile.ZIP_STORED)
                files[item.clip_id or ""] = kept
            sure = item.extra.get("confidence")
            row = [str(n), time.strftime(WHEN, time.localtime(item.at)),
                   _source(item), names.get(item.team or "", ""),
                   item.text, STATUS.get(item.status, item.status), item.line or "",
                   item.reason or "", f"{float(sure):.2f}" if isinstance(sure, int | float) else "",
                   kept]
            rows.writerow([_cell(value) for value in row])
            page.append(row)
        zf.writestr(f"{folder}/oido.csv", "\ufeff" + table.getvalue())  # the BOM: read as UTF-8
        zf.writestr(f"{folder}/index.html", evidence_page(game_id, names, page))


def evidence_page(game_id: int, names: dict[str, str], rows: list[list[str]]) -> str:
    """The evidence's ``oido.csv`` rows as a page to open from the unzipped folder: each file
    played or shown in its row (``<audio>``, ``<img>``), no script, nothing from outside."""
    def cell(value: str, column: str) -> str:
        if column != "archivo" or not value:
            return f"<td>{html.escape(value)}</td>"
        src = html.escape(value, quote=True)
        shown = (f'<img src="{src}" alt="la foto" width="240">' if value.endswith(".jpg") else
                 f'<audio controls preload="none" src="{src}"></audio>')
        return f'<td>{shown}<br><a href="{src}">{html.escape(value.split("/")[-1])}</a></td>'

    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "\n".join("<tr>" + "".join(cell(v, c) for v, c in zip(row, COLUMNS, strict=True))
                     + "</tr>" for row in rows)
    teams = html.escape(f"{names.get('A', 'A')} y {names.get('B', 'B')}")
    log = html.escape(file_name(game_id), quote=True)
    return f"""<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Partida {game_id}: lo que oyó y vio el árbitro</title>
<style>body{{font-family:sans-serif;margin:1em}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:4px;vertical-align:top;text-align:left}}</style>
</head><body>
<h1>Partida {game_id}: {teams}</h1>
<p>Todo lo que el árbitro oyó y vio, en orden, con su audio o su foto. Lo anotado está en <a href="{log}">{log}</a> (se vuelve a jugar con <code>truco-referee replay</code>).</p>
<table><thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody></table>
</body></html>
"""


def _source(item: HeardRow) -> str:
    """Where a heard item came from, in words: the camera, the voice referee, or the table's
    sound a tablet kept («¿Qué se dijo?»)."""
    return "cámara" if item.extra.get("seen") else "mesa" if item.status == "kept" else "voz"


def _cell(value: str) -> str:
    """A cell of ``oido.csv`` that a spreadsheet shows as written: text that would start a
    formula (``=``, ``+``, ``-``, ``@``, even after spaces, tabs or line breaks) gets a leading
    ``'``; a number (``-0.5``) stays one."""
    if FORMULA_START.match(value) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


def _slug(text: str) -> str:
    """A file name's part from what was heard, in plain ASCII so that any unzipper keeps it
    (accents folded, the rest a «-»): «¿Tenés envido?» → ``tenes-envido``."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.lower())
                     if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:40].rstrip("-") or "nada"

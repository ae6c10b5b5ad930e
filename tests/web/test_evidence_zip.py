"""A game's evidence zip (``web_scoreboard.record.evidence_zip``): names any unzipper keeps, a
``oido.csv`` a spreadsheet does not run, and the day of each thing heard."""

from __future__ import annotations

import csv
import io
import re
import time
import zipfile
from typing import Any

from referee import clip_codec
from web_scoreboard.record import evidence_zip
from web_scoreboard.store import HeardRow

NAMES = {"A": "Nosotros", "B": "Ellos"}
UTF8_NAMES = 0x800  # bit 11 of a zip member's flags: its name is UTF-8, not the old code page
NOON = time.mktime((2026, 12, 7, 12, 0, 0, 0, 0, -1))


def heard(n: int, text: str, *, at: float = NOON, team: str | None = "A", reason: str = "",
          clip: bool = True, **extra: Any) -> HeardRow:
    return HeardRow(id=n, game_id=7, at=at, status="accepted", text=text, line=None,
                    reason=reason or None, team=team, clip_id=f"c{n}" if clip else None,
                    extra=extra)


def unzipped(items: list[HeardRow], names: dict[str, str] = NAMES) -> zipfile.ZipFile:
    out = io.BytesIO()
    evidence_zip(out, 7, names, "hand\n", items,
                 lambda clip_id: (clip_id.encode(), clip_codec.WAV))
    return zipfile.ZipFile(io.BytesIO(out.getvalue()))


def csv_rows(zf: zipfile.ZipFile) -> list[list[str]]:
    return list(csv.reader(io.StringIO(zf.read("partida-7/oido.csv").decode("utf-8-sig"))))


def page_cells(zf: zipfile.ZipFile) -> list[str]:
    return re.findall(r"<td>([^<]*)</td>", zf.read("partida-7/index.html").decode())


def test_member_names_are_plain_ascii_and_the_page_still_shows_what_was_heard() -> None:
    """Unzippers that ignore the UTF-8 flag (older Windows Explorer, some Android file managers)
    would mangle «tenés»: the files are named in ASCII, accents folded, one per row."""
    said = ["¿Tenés envido?", "«Quiero» retruco, ñeri", "Ñandú ½ — vale 4", "¡¿…?!",
            "tenes envido", "a" * 39 + " b" * 5]
    with unzipped([heard(n, text) for n, text in enumerate(said, 1)]) as zf:
        assert all(not info.flag_bits & UTF8_NAMES for info in zf.infolist())
        assert all(name.isascii() for name in zf.namelist())
        files = [row[-1] for row in csv_rows(zf)[1:]]
        assert files == [
            "evidencia/0001-tenes-envido.wav", "evidencia/0002-quiero-retruco-neri.wav",
            "evidencia/0003-nandu-1-2-vale-4.wav", "evidencia/0004-nada.wav",
            "evidencia/0005-tenes-envido.wav", f"evidencia/0006-{'a' * 39}.wav"]
        assert all(f"partida-7/{name}" in zf.namelist() for name in files)
        page = zf.read("partida-7/index.html").decode()
        assert re.findall(r'src="([^"]+)"', page) == files  # each row's link finds its file
        assert [row[4] for row in csv_rows(zf)[1:]] == said  # what was heard, accents and all
        assert "<td>¿Tenés envido?</td>" in page and "<td>«Quiero» retruco, ñeri</td>" in page


def test_a_cell_that_would_be_a_formula_stays_text_and_numbers_stay_numbers() -> None:
    """A team name or heard text starting with = + - @ is not run by Excel or LibreOffice: a
    leading «'» keeps it text in the CSV; the page shows it as it was, and numbers are left be."""
    names = {"A": '=HYPERLINK("http://x.example","ganamos")', "B": "@Ellos"}
    items = [heard(1, "+54 11 truco", reason="-1+1 no es nada", clip=False, confidence=0.5),
             heard(2, "-2", team="B", clip=False, confidence=-0.25),
             heard(3, "\tquiero", team=None, clip=False)]
    with unzipped(items, names) as zf:
        rows = csv_rows(zf)[1:]
        assert [(row[3], row[4], row[7], row[8]) for row in rows] == [
            ("'=HYPERLINK(\"http://x.example\",\"ganamos\")", "'+54 11 truco", "'-1+1 no es nada",
             "0.50"),
            ("'@Ellos", "-2", "", "-0.25"),
            ("", "'\tquiero", "", "")]
        assert rows[0][0] == "1"
        cells = page_cells(zf)
        assert "=HYPERLINK(&quot;http://x.example&quot;,&quot;ganamos&quot;)" in cells
        assert "+54 11 truco" in cells and "@Ellos" in cells and "\tquiero" in cells


def test_a_formula_after_blanks_a_spreadsheet_trims_stays_text_too() -> None:
    """« =HYPERLINK(...)»: LibreOffice and Excel trim the blanks and run what follows, so spaces,
    tabs or line breaks before = + - @ get the «'» too; plain text after a space does not."""
    said = [' =HYPERLINK("http://x.example","ganamos")', "\t\t+54 11 truco", "\n@Ellos",
            "\r\n-1+1", "\rquiero", "  quiero", "\nvale cuatro"]
    items = [heard(n, text, clip=False) for n, text in enumerate(said, 1)]
    with unzipped(items) as zf:
        assert [row[4] for row in csv_rows(zf)[1:]] == [
            "'" + text for text in said[:5]] + said[5:]


def test_each_thing_heard_says_its_day_and_time() -> None:
    """A game past midnight, or a zip looked at weeks later: dd/mm/aaaa HH:MM:SS, in the CSV and
    the page."""
    before = time.mktime((2026, 12, 7, 23, 59, 58, 0, 0, -1))
    items = [heard(1, "truco", at=before, clip=False),
             heard(2, "quiero", at=before + 4, clip=False)]
    with unzipped(items) as zf:
        rows = csv_rows(zf)
        assert rows[0][1] == "fecha y hora"
        assert [row[1] for row in rows[1:]] == ["07/12/2026 23:59:58", "08/12/2026 00:00:02"]
        cells = page_cells(zf)
        assert "07/12/2026 23:59:58" in cells and "08/12/2026 00:00:02" in cells

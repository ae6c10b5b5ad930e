"""Is a model folder whole?  One answer for the recognizer finder, the recognizers themselves and
``truco-referee models check``: the files each kind needs, present and not empty, and for Sphinx the
files that pocketsphinx would otherwise die on (it exits the process from C on a broken ``mdef``
or a short ``transition_matrices``, before Python can catch anything).
"""

from __future__ import annotations

import functools
import struct
from pathlib import Path

from models.catalog import CATALOG
from models.decks import DECK_SIZE, face_count

# Files a model needs, each a tuple of alternatives (any one of them will do).
VOSK_FILES: tuple[tuple[str, ...], ...] = (
    ("am/final.mdl",), ("conf/mfcc.conf",), ("conf/model.conf",),
    ("graph/HCLG.fst", "graph/HCLr.fst"),
)
SPHINX_FILES: tuple[tuple[str, ...], ...] = (
    ("mdef",), ("means",), ("variances",), ("transition_matrices",), ("feat.params",),
    ("sendump", "mixture_weights"),
)
# The header of a text mdef, in order, after its version line "0.3".
MDEF_HEADER = ("n_base", "n_tri", "n_state_map", "n_tied_state", "n_tied_ci_state", "n_tied_tmat")
S3_BYTE_ORDER = 0x11223344


def missing_files(folder: Path, needed: tuple[tuple[str, ...], ...]) -> list[str]:
    """What is missing or empty in ``folder``, in words (``falta am/final.mdl``)."""
    problems = []
    for choices in needed:
        present = [folder / name for name in choices if (folder / name).is_file()]
        if not present:
            problems.append(f"falta {' o '.join(choices)}")
        elif all(p.stat().st_size == 0 for p in present):
            problems.append(f"{choices[0]} está vacío")
    return problems


def vosk_problems(folder: Path) -> list[str]:
    """What is wrong with a Vosk model folder; empty when it is whole."""
    return missing_files(folder, VOSK_FILES)


def sphinx_problems(folder: Path) -> list[str]:
    """What is wrong with a Sphinx acoustic model folder; empty when pocketsphinx can load it.
    A folder whose files have not changed is read once (the finder and the recognizer both ask,
    and the ``mdef`` is over a megabyte)."""
    problems = missing_files(folder, SPHINX_FILES)
    if problems:
        return problems
    stamps = tuple((name, *_stamp(folder / name)) for name in ("mdef", "transition_matrices"))
    return list(_file_problems(folder.resolve(), stamps))


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


@functools.lru_cache(maxsize=8)
def _file_problems(folder: Path, stamps: tuple[tuple[object, ...], ...]) -> tuple[str, ...]:
    """The checks of ``mdef`` and ``transition_matrices``, for files as ``stamps`` saw them."""
    return tuple(p for p in (mdef_problem(folder / "mdef"),
                             tmat_problem(folder / "transition_matrices")) if p)


def mdef_problem(path: Path) -> str | None:
    """Why a model definition (``mdef``) is unreadable, or None.  The text format is a version
    line, six counts (``26 n_base``…) and then one line per phone with its states."""
    data = path.read_bytes()
    if data.startswith(b"BMDF"):
        return None  # the binary format (the English model in the pocketsphinx wheel)
    lines = [line.split() for line in data.decode("latin-1").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    counts = _mdef_counts(lines)
    if counts is None:
        return "mdef no tiene el encabezado de un modelo de Sphinx"
    phones = counts["n_base"] + counts["n_tri"]
    if phones == 0 or counts["n_state_map"] % phones:
        return "mdef tiene cuentas que no cierran"
    width = 6 + counts["n_state_map"] // phones  # base lft rt p attrib tmat, the states, N
    rows = lines[1 + len(MDEF_HEADER):]
    whole = sum(1 for row in rows if len(row) == width and row[-1] == "N")
    if len(rows) != phones or whole != phones:
        return f"mdef está cortado o dañado ({whole} de {phones} fonemas)"
    return None


def _mdef_counts(lines: list[list[str]]) -> dict[str, int] | None:
    """The six counts of a text mdef's header, or None when it is not one."""
    header = lines[1:1 + len(MDEF_HEADER)]
    if not lines or lines[0] != ["0.3"] or len(header) != len(MDEF_HEADER):
        return None
    if any(row[1:] != [name] or not row[0].isdigit() for row, name in zip(header, MDEF_HEADER)):
        return None
    return {name: int(row[0]) for row, name in zip(header, MDEF_HEADER)}


def tmat_problem(path: Path) -> str | None:
    """Why ``transition_matrices`` is short, or None: an s3 file (a text header up to
    ``endhdr``, a byte-order word, four counts, the values, maybe a checksum)."""
    data = path.read_bytes()
    end = data.find(b"endhdr\n")
    if not data.startswith(b"s3\n") or end < 0:
        return "transition_matrices no es un archivo de Sphinx"
    body = data[end + len(b"endhdr\n"):]
    order = "<" if body[:4] == struct.pack("<I", S3_BYTE_ORDER) else ">"
    if len(body) < 20:
        return "transition_matrices está cortado"
    total = struct.unpack(f"{order}I", body[16:20])[0]
    checksum = 4 if b"chksum0 yes" in data[:end] else 0
    if len(body) < 20 + 4 * total + checksum:
        return "transition_matrices está cortado"
    return None


def acoustic_dir(root: Path, depth: int = 3) -> Path | None:
    """The first folder under ``root`` (depth-limited) with a Sphinx model definition (``mdef``)."""
    if (root / "mdef").is_file():
        return root
    if depth == 0 or not root.is_dir():
        return None
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        found = acoustic_dir(child, depth - 1)
        if found:
            return found
    return None


def _vosk(folder: Path) -> tuple[Path, list[str]]:
    return folder, vosk_problems(folder)


def _sphinx(folder: Path) -> tuple[Path, list[str]]:
    found = acoustic_dir(folder)
    if found is None:
        return folder, ["no hay un modelo acústico (falta mdef)"]
    return found, sphinx_problems(found)


def _deck(folder: Path) -> tuple[Path, list[str]]:
    faces = face_count(folder)
    return folder, [] if faces >= DECK_SIZE else [f"tiene {faces} de {DECK_SIZE} caras"]


INSPECTORS = {"vosk": _vosk, "sphinx": _sphinx, "deck": _deck}


def inspect(kind: str, folder: Path) -> tuple[Path, list[str]]:
    """The model inside ``folder`` (for Sphinx, its acoustic model folder) and what is wrong with
    it; no problems means whole."""
    return INSPECTORS[kind](folder)


def broken_message(kind: str, folder: Path, problems: list[str]) -> str:
    """What the person reads about a damaged model: what is wrong and how to fix it."""
    name = next((spec.name for spec in CATALOG.values() if spec.kind == kind), kind)
    return (f"el modelo de {kind.capitalize()} en {folder} está incompleto o dañado "
            f"({'; '.join(problems[:4])}); volvé a bajarlo con "
            f"'truco-referee models fetch --force {name}' o borrá esa carpeta")

"""Is a model folder whole?  One answer for the recognizer finder, the recognizers themselves and
``truco-referee models check``: the files each kind needs, present and not empty, and for Sphinx the
files that pocketsphinx would otherwise die on (it exits the process from C on a broken ``mdef``
or a short ``transition_matrices``, before Python can catch anything).  A fetched model is also
held to the sizes its fetch recorded (``fetched.json``): a file cut to half is still there and not
empty, but it is not the model that was fetched.
"""

from __future__ import annotations

import functools
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.catalog import CATALOG, ModelSpec
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


def judge(kind: str, folder: Path) -> tuple[Path, list[str]]:
    """``inspect``, plus every file gone or changed size since the fetch recorded it: the one
    judgement of 'models check' and the recognizer finder.  Each problem is told once."""
    path, problems = inspect(kind, folder)
    home = fetched_home(path)
    if home is None:
        return path, problems
    record = read_manifest(home)
    if record is None:
        return path, [*problems, "el registro de descarga está dañado"]
    told = {path / word for problem in problems for word in problem.split()}
    recorded = {name: size for name, size in (record.get("files") or {}).items()
                if home / name not in told}  # "falta am/final.mdl" is said by inspect already
    return path, problems + changed_files(home, recorded)


# -- the fetch record ------------------------------------------------------------------------------

MANIFEST = "fetched.json"


def fetched_home(path: Path, depth: int = 3) -> Path | None:
    """The fetched model folder ``path`` is in (the one with a ``fetched.json``), or None: for
    Sphinx the acoustic model lies a few folders down from it."""
    for folder in [path, *path.parents][:depth + 1]:
        if (folder / MANIFEST).exists():
            return folder
    return None


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The fetch record of a model folder: {} when there is none, None when it is unreadable."""
    path = folder / MANIFEST
    if not path.exists():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def file_sizes(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` (but the manifest) and its size, by relative path."""
    return {p.relative_to(folder).as_posix(): p.stat().st_size
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MANIFEST}


def changed_files(folder: Path, recorded: dict[str, int]) -> list[str]:
    """The files that are gone or changed size since the fetch recorded them."""
    now = file_sizes(folder)
    gone = [f"falta {name}" for name in recorded if name not in now]
    changed = [f"cambió {name}" for name, size in recorded.items()
               if name in now and now[name] != size]
    return gone + changed


@dataclass(frozen=True)
class Status:
    """What 'models check' says about one model: ``state`` is "ok", "missing" or "broken"."""

    state: str
    message: str

    @property
    def ok(self) -> bool:
        return self.state == "ok"


def check(spec: ModelSpec, models_dir: Path) -> Status:
    """Is the model there and whole?  The recognizer finder's judgement
    (``models.validate.judge``: the files it needs, and the sizes recorded when it was fetched)."""
    target = spec.target(models_dir)
    if not target.is_dir():
        optional = " (es opcional)" if spec.kind == "deck" else ""
        return Status("missing", f"no está{optional}; bajalo con 'truco-referee models fetch "
                      f"{spec.name}'")
    _, problems = judge(spec.kind, target)
    if problems:
        return Status("broken", f"está incompleto o dañado ({'; '.join(problems[:4])}); volvé a "
                      f"bajarlo con 'truco-referee models fetch --force {spec.name}'")
    record = read_manifest(target)
    if not record:
        return Status("ok", "está (copiado a mano: tiene los archivos que hacen falta)")
    return Status("ok", f"está, bajado de {record.get('url')} (sha256 "
                  f"{str(record.get('sha256'))[:12]}…), sin cambios desde entonces")


def broken_message(kind: str, folder: Path, problems: list[str]) -> str:
    """What the person reads about a damaged model: what is wrong and how to fix it."""
    name = next((spec.name for spec in CATALOG.values() if spec.kind == kind), kind)
    return (f"el modelo de {kind.capitalize()} en {folder} está incompleto o dañado "
            f"({'; '.join(problems[:4])}); volvé a bajarlo con "
            f"'truco-referee models fetch --force {name}' o borrá esa carpeta")

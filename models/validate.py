"""Is a model folder whole?  One answer for the recognizer finder, the recognizers themselves and
``truco-referee models check``: the files each kind needs, present and not empty, and for Sphinx the
files that pocketsphinx would otherwise die on (it exits the process from C on a broken ``mdef``
or a short ``transition_matrices``, before Python can catch anything); for those and the other
large files (``means``, ``variances``, ``sendump``) the counts in their headers say how long they
are, so that one cut short is told even when it was copied by hand.  A fetched model is also
held to the sizes its fetch recorded (``fetched.json``): a file cut to half is still there and not
empty, but it is not the model that was fetched.
"""

from __future__ import annotations

import functools
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.catalog import CATALOG, ModelSpec
from models.decks import DECK_SIZE, face_count
from models.paths import fetch_command

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
# The counts of an s3 file before its number of values: how many, and which one of them (if any)
# adds as many more (a file of Gaussians has a vector length per feature stream after its three).
S3_COUNTS: dict[str, tuple[int, int | None]] = {
    "transition_matrices": (3, None),  # matrices, states, states + 1
    "mixture_weights": (3, None),  # senones, streams, densities
    "means": (3, 1),  # codebooks, streams, densities
    "variances": (3, 1),
}
HEAD_BYTES = 1 << 16  # enough for the header of any of them


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
    read = [name for name in SPHINX_CHECKS if (folder / name).is_file()
            and not (name in READ_INSTEAD and (folder / READ_INSTEAD[name]).is_file())]
    stamps = tuple((name, *_stamp(folder / name)) for name in read)
    return list(_file_problems(folder.resolve(), stamps))


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


@functools.lru_cache(maxsize=8)
def _file_problems(folder: Path, stamps: tuple[tuple[object, ...], ...]) -> tuple[str, ...]:
    """The checks of ``SPHINX_CHECKS``, for files as ``stamps`` saw them."""
    checked = (SPHINX_CHECKS[str(name)](folder / str(name)) for name, *_ in stamps)
    return tuple(p for p in checked if p)


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


def s3_problem(path: Path) -> str | None:
    """Why an s3 file of the model (``S3_COUNTS``) is short, or None: a text header up to
    ``endhdr``, a byte-order word, the counts, the number of values, the values (4 bytes each),
    maybe a checksum."""
    name = path.name
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    end = head.find(b"endhdr\n")
    if not head.startswith(b"s3\n") or end < 0:
        return f"{name} no es un archivo de Sphinx"
    start = end + len(b"endhdr\n")
    order = "<" if head[start:start + 4] == struct.pack("<I", S3_BYTE_ORDER) else ">"
    words = head[start + 4:]
    counts, more_at = S3_COUNTS[name]
    if more_at is not None and len(words) >= 4 * (more_at + 1):
        counts += struct.unpack_from(f"{order}I", words, 4 * more_at)[0]
    if len(words) < 4 * (counts + 1):
        return f"{name} está cortado"
    total = struct.unpack_from(f"{order}I", words, 4 * counts)[0]
    checksum = 4 if b"chksum0 yes" in head[:end] else 0
    if path.stat().st_size < start + 4 * (1 + counts + 1 + total) + checksum:
        return f"{name} está cortado"
    return None


def sendump_problem(path: Path) -> str | None:
    """Why ``sendump`` (the mixture weights squeezed to a byte each) is short, or None: a header,
    the numbers of codewords and of senones, then a byte for each of them in each feature stream
    (``feature_count`` in the header).  One whose weights are clustered (``cluster_count`` above
    0) is laid out otherwise, and not measured."""
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    header = _sendump_header(head)
    if header is None:
        return "sendump no es un archivo de Sphinx"
    order, end, settings = header
    if settings.get("cluster_count", 0) or "feature_count" not in settings:
        return None
    if len(head) < end + 8:
        return "sendump está cortado"
    codewords, senones = struct.unpack_from(f"{order}ii", head, end)
    if path.stat().st_size < end + 8 + settings["feature_count"] * codewords * senones:
        return "sendump está cortado"
    return None


def _sendump_header(head: bytes) -> tuple[str, int, dict[str, int]] | None:
    """A sendump's byte order, where its header ends and the settings it states
    (``feature_count 3``): strings, each after its length, up to a length 0.  None when the
    header does not end."""
    if len(head) < 4:
        return None
    order = "<" if 0 < struct.unpack_from("<i", head)[0] < 1000 else ">"
    at = 0
    settings: dict[str, int] = {}
    while at + 4 <= len(head):
        length = struct.unpack_from(f"{order}i", head, at)[0]
        if length == 0:
            return order, at + 4, settings
        if length < 0:
            return None
        words = head[at + 4:at + 4 + length].decode("latin-1").rstrip("\0").split()
        if len(words) == 2 and words[1].isdigit():
            settings[words[0]] = int(words[1])
        at += 4 + length
    return None


# The files read to tell a whole Sphinx model from a damaged one, and how each is read.
SPHINX_CHECKS: dict[str, Callable[[Path], str | None]] = {
    "mdef": mdef_problem, "transition_matrices": s3_problem, "means": s3_problem,
    "variances": s3_problem, "sendump": sendump_problem, "mixture_weights": s3_problem,
}
READ_INSTEAD = {"mixture_weights": "sendump"}  # pocketsphinx reads a sendump when there is one


def acoustic_dir(root: Path, depth: int = 3) -> Path | None:
    """The first folder under ``root`` (depth-limited) with a Sphinx model definition (``mdef``)."""
    try:
        if (root / "mdef").is_file():
            return root
        if depth == 0 or not root.is_dir():
            return None
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except PermissionError:
        return None  # a folder this user may not enter holds no model it could load
    for child in children:
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
    judgement of 'models check' and the recognizer finder.  Each problem is told once; a file
    this user may not read is one (a model it cannot load), not an error."""
    try:
        return _judge(kind, folder)
    except OSError as err:
        why = "no tengo permiso" if isinstance(err, PermissionError) else err.strerror or str(err)
        return folder, [f"no puedo leer {err.filename or folder}: {why}"]


def _judge(kind: str, folder: Path) -> tuple[Path, list[str]]:
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
        return Status("missing", f"no está{optional}; bajalo con "
                      f"'{fetch_command(models_dir, spec.name)}'")
    _, problems = judge(spec.kind, target)
    if problems:
        return Status("broken", f"está incompleto o dañado ({'; '.join(problems[:4])}); volvé a "
                      f"bajarlo con '{fetch_command(models_dir, '--force', spec.name)}'")
    record = read_manifest(target)
    if not record:
        return Status("ok", "está (copiado a mano: tiene los archivos que hacen falta)")
    return Status("ok", f"está, bajado de {record.get('url')} (sha256 "
                  f"{str(record.get('sha256'))[:12]}…), sin cambios desde entonces")


def broken_message(kind: str, folder: Path, problems: list[str],
                   models_dir: Path | None = None) -> str:
    """What the person reads about a damaged model: what is wrong and how to fix it (fetching it
    again into ``models_dir``, when it is known)."""
    name = next((spec.name for spec in CATALOG.values() if spec.kind == kind), kind)
    return (f"el modelo de {kind.capitalize()} en {folder} está incompleto o dañado "
            f"({'; '.join(problems[:4])}); volvé a bajarlo con "
            f"'{fetch_command(models_dir, '--force', name)}' o borrá esa carpeta")

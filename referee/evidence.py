"""Evidence for disputes: every recognized call and every rejected look-alike, with its transcript,
confidence, time and a short WAV clip, kept in one folder the scoreboard serves by id.

Layout: ``<dir>/index.jsonl`` (one record per line) and ``<dir>/clips/<id>.wav``.  Ids are
``<session>-<n>`` (session = UTC start time, n = running number), so they never collide across
restarts and sort in the order things were said.

Evidence is kept beside the game, never in its way: a disk that fills up or fails while the
referee listens costs the evidence (said once), not the listening.

The clips are bounded like a dashcam's loop (``max_bytes``): past it, the oldest sessions' clips
are let go, whole sessions at a time, never the one in progress; their records stay in the index,
and a line ``{"let_go": <session>, ...}`` says when their clips went (``all()`` and ``get()`` give
those records with clip "").  The index itself is not bounded: it is what was heard, in text
(about 300 bytes a record, a few MB a year of evenings), and the record a dispute goes back to.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import threading
import time
import wave
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from models.syserrors import said
from referee.asr.base import SAMPLE_RATE
from referee.device_status import print_status
from referee.evidence_bound import (
    CLIP_ID,
    SESSION_FORMAT,
    Session,
    let_go_words,
    sessions_on_disk,
    size_words,
    unlink_all,
)

DEFAULT_MAX_MB = 1000  # what ``listen`` keeps of clips unless told otherwise: 1 GB
WAV_HEADER = 44  # bytes ``write_wav`` puts before the samples
# A session that kept a clip this recently is not let go: another ``listen`` may be recording it,
# or it is this evening's, before a restart.
LIVE_S = 3600.0


class EvidenceError(RuntimeError):
    """The evidence folder cannot be used; ``code`` is stable, ``message`` is for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Evidence:
    """One heard item and what the referee made of it."""

    id: str
    t: float  # seconds into the stream where the phrase ended
    text: str  # transcript of the utterance
    call: str | None  # canonical call, "puntos", or None for a look-alike
    points: int | None
    accepted: bool
    reason: str | None  # why it was not applied (or why it was, judged again); None: no reason
    confidence: float
    team: str | None
    clip: str  # file name under clips/, "" when no audio was kept (or it was let go)
    wall_time: float  # UNIX time it was recorded


class EvidenceStore:
    """Append-only store of evidence records and their clips, the clips kept under ``max_bytes``
    (0: no limit) by letting go of the oldest sessions'.  What the disk refuses to keep, and the
    clips let go, are told to ``on_trouble`` (once each; on standard error by default)."""

    def __init__(self, directory: str | Path,
                 on_trouble: Callable[[str], None] | None = None, max_bytes: int = 0) -> None:
        self.dir = Path(directory)
        self.clips_dir = self.dir / "clips"
        make_folder(self.clips_dir)
        self.index = self.dir / "index.jsonl"
        self.session = time.strftime(SESSION_FORMAT, time.gmtime())
        self.on_trouble = on_trouble or print_status("evidencia")
        self.max_bytes = max_bytes
        self._n = 0
        self._lock = threading.Lock()
        self._clips_bytes = 0  # the clips in the folder, as of the last look plus those kept since
        self._trim_at = max_bytes  # past this many, look again and let go of old sessions
        self._told_over = False
        self._told: set[tuple[str, str]] = set()  # what the disk refused, and why: said once
        if max_bytes:
            with self._lock:
                self._trim()

    def _next_id(self) -> str:
        while True:
            self._n += 1
            candidate = f"{self.session}-{self._n:05d}"
            if not (self.clips_dir / f"{candidate}.wav").exists():
                return candidate

    def record(
        self,
        *,
        t: float,
        text: str,
        call: str | None,
        points: int | None,
        accepted: bool,
        reason: str | None,
        confidence: float,
        team: str | None,
        clip_pcm: bytes = b"",
    ) -> Evidence:
        """Store one item (and its clip); returns the record.  A clip the disk refuses is left
        out (its record says no clip), a record it refuses is not kept: either is told."""
        with self._lock:
            ident = self._next_id()
            clip_name = self._keep_clip(f"{ident}.wav", clip_pcm) if clip_pcm else ""
            item = Evidence(ident, round(t, 3), text, call, points, accepted, reason,
                            round(confidence, 3), team, clip_name, time.time())
            self._append(json.dumps(asdict(item), ensure_ascii=False) + "\n")
            if clip_name:
                self._clips_bytes += WAV_HEADER + len(clip_pcm)
            if self.max_bytes and self._clips_bytes > self._trim_at:
                self._trim()
        return item

    def _keep_clip(self, name: str, pcm: bytes) -> str:
        """Write a clip; its name, or "" when the disk refused it (no half clip stays)."""
        path = self.clips_dir / name
        try:
            write_wav(path, pcm)
        except OSError as err:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            self._tell("el audio", err)
            return ""
        return name

    def _append(self, line: str, what: str = "lo oído") -> None:
        """Add a record's line to the index whole, or not at all (a line cut short is undone,
        so the next one starts on a line of its own)."""
        try:
            with self.index.open("ab", buffering=0) as fh:  # unbuffered: a failed write is seen
                end = fh.seek(0, os.SEEK_END)
                data = line.encode("utf-8")
                try:
                    if fh.write(data) != len(data):  # the disk took part of it: it is full
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.index))
                except OSError:
                    fh.truncate(end)
                    raise
        except OSError as err:
            self._tell(what, err)

    def _tell(self, what: str, err: OSError) -> None:
        """Say once what the disk refused (each thing, each reason): a read-only folder refuses
        the clip and the record of every call, which must not fill the terminal."""
        told = (what, said(err))
        if told in self._told:
            return
        self._told.add(told)
        self.on_trouble(f"no pude guardar {what} como evidencia en {self.dir}: {said(err)}; "
                        "el árbitro sigue escuchando sin guardarlo")

    def _trim(self) -> None:
        """Let go of the oldest sessions' clips, whole sessions, until the clips fit in
        ``max_bytes``: never this session's, nor one that kept a clip in the last ``LIVE_S``.
        Each session let go gets a line in the index; all of them, one message.  A folder that
        cannot be cleaned is said once, and no more is tried: the listening goes on."""
        try:
            sessions = sessions_on_disk(self.clips_dir)
        except OSError as err:
            return self._cannot_trim(err)
        total, now = sum(s.size for s in sessions), time.time()
        gone: list[Session] = []
        for old in sessions:
            if total <= self.max_bytes:
                break
            if old.name == self.session or now - old.newest < LIVE_S:
                continue
            freed, stuck = unlink_all(old.clips)
            total -= freed
            if stuck is not None:
                self._tell_let_go(gone)
                return self._cannot_trim(stuck)
            self._append(json.dumps({"let_go": old.name, "clips": len(old.clips),
                                     "bytes": old.size, "wall_time": time.time()}) + "\n",
                         "la nota de los audios borrados")
            gone.append(old)
        self._tell_let_go(gone)
        self._clips_bytes = total
        self._trim_at = self.max_bytes if total <= self.max_bytes else total + self.max_bytes // 10
        if total > self.max_bytes and not self._told_over:
            self._told_over = True
            self.on_trouble(f"los audios de la evidencia ocupan {size_words(total)}, más de "
                            f"{size_words(self.max_bytes)}, pero los que quedan son de esta sesión "
                            "o de hace menos de una hora: no los borro todavía")

    def _tell_let_go(self, gone: list[Session]) -> None:
        if gone:
            self.on_trouble(let_go_words(gone, self.max_bytes))

    def _cannot_trim(self, err: OSError) -> None:
        self._trim_at = sys.maxsize
        self.on_trouble(f"no pude borrar los audios viejos de la evidencia en {self.dir}: "
                        f"{said(err)}; el árbitro sigue escuchando, pero la carpeta puede pasar "
                        f"de {size_words(self.max_bytes)}")

    def all(self) -> list[Evidence]:
        """Every record, oldest first (with clip "" when its clip was let go)."""
        if not self.index.is_file():
            return []
        records: list[tuple[int, dict[str, Any]]] = []
        let_go: dict[str, int] = {}
        for pos, item in self._lines():
            if item is not None and "let_go" in item:
                let_go[item["let_go"]] = pos
            elif item is not None:
                records.append((pos, item))
        return [_evidence(item, pos, let_go) for pos, item in records]

    def get(self, ident: str) -> Evidence | None:
        return next((e for e in self.all() if e.id == ident), None)

    def _lines(self) -> Iterator[tuple[int, dict[str, Any] | None]]:
        """The index's whole lines: where each begins and what it says (None: not a record); a
        last line still being written is left for later."""
        start = 0
        with self.index.open("rb") as fh:
            for line in fh:
                if not line.endswith(b"\n"):
                    return
                yield start, _parsed(line)
                start += len(line)

    def clip_path(self, ident: str) -> Path | None:
        """The clip of a record, or None; ids are checked so a request cannot leave the folder."""
        if not CLIP_ID.match(ident):
            return None
        path = self.clips_dir / f"{ident}.wav"
        return path if path.is_file() else None


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        item = json.loads(line)
    except ValueError:
        return None
    return item if isinstance(item, dict) else None


def _evidence(item: dict[str, Any], pos: int, let_go: dict[str, int]) -> Evidence:
    """A record read from the index at ``pos``, without its clip if a later line let it go."""
    found = Evidence(**item)
    if found.clip and let_go.get(found.id.split("-")[0], -1) > pos:
        return replace(found, clip="")
    return found


def make_folder(path: Path) -> None:
    """Create ``path`` and its parents, or say in plain words why it cannot be done."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        blocker = _file_on_the_way(path)
        if blocker is not None:
            raise EvidenceError("evidence-not-folder",
                                f"{blocker} es un archivo, no una carpeta") from err
        raise EvidenceError("evidence-unwritable",
                            f"no puedo crear la carpeta {path}: {said(err)}") from err


def _file_on_the_way(path: Path) -> Path | None:
    """The file that stands where ``path`` or a folder on the way to it should be, if any."""
    for place in reversed((path, *path.parents)):
        try:
            if place.exists() and not place.is_dir():
                return place
        except OSError:  # a name too long, a link that loops: no file stands there
            return None
    return None


def write_wav(path: Path | BinaryIO, pcm: bytes, rate: int = SAMPLE_RATE) -> None:
    """16-bit mono ``pcm`` as a WAV file, at ``path`` or into an open binary file."""
    if isinstance(path, Path):  # opened here: ``wave`` given a name it cannot open prints a
        with path.open("wb") as fh:  # traceback as it goes (Python 3.11's ``Wave_write.__del__``)
            write_wav(fh, pcm, rate)
        return
    with wave.open(path, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)

"""Evidence for disputes: every recognized call and every rejected look-alike, with its transcript,
confidence, time and a short WAV clip, kept in one folder the scoreboard serves by id.

Layout: ``<dir>/index.jsonl`` (one record per line) and ``<dir>/clips/<id>.wav``.  Ids are
``<session>-<n>`` (session = UTC start time, n = running number), so they never collide across
restarts and sort in the order things were said.

Evidence is kept beside the game, never in its way: a disk that fills up or fails while the
referee listens costs the evidence (said once), not the listening.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import threading
import time
import wave
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from models.syserrors import said
from referee.asr.base import SAMPLE_RATE
from referee.device_status import print_status

_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9]{5}$")


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
    clip: str  # file name under clips/, "" when no audio was kept
    wall_time: float  # UNIX time it was recorded


class EvidenceStore:
    """Append-only store of evidence records and their clips.  What the disk refuses to keep is
    told to ``on_trouble`` (once a kind of trouble; on standard error by default)."""

    def __init__(self, directory: str | Path,
                 on_trouble: Callable[[str], None] | None = None) -> None:
        self.dir = Path(directory)
        self.clips_dir = self.dir / "clips"
        make_folder(self.clips_dir)
        self.index = self.dir / "index.jsonl"
        self.session = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.on_trouble = on_trouble or print_status("evidencia")
        self._n = 0
        self._lock = threading.Lock()

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

    def _append(self, line: str) -> None:
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
            self._tell("lo oído", err)

    def _tell(self, what: str, err: OSError) -> None:
        self.on_trouble(f"no pude guardar {what} como evidencia en {self.dir}: {said(err)}; "
                        "el árbitro sigue escuchando sin guardarlo")

    def all(self) -> list[Evidence]:
        """Every record, oldest first."""
        if not self.index.is_file():
            return []
        out = []
        for line in self.index.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(Evidence(**json.loads(line)))
        return out

    def get(self, ident: str) -> Evidence | None:
        return next((e for e in self.all() if e.id == ident), None)

    def clip_path(self, ident: str) -> Path | None:
        """The clip of a record, or None; ids are checked so a request cannot leave the folder."""
        if not _ID.match(ident):
            return None
        path = self.clips_dir / f"{ident}.wav"
        return path if path.is_file() else None


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
    with wave.open(str(path) if isinstance(path, Path) else path, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)

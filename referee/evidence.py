"""Evidence for disputes: every recognized call and every rejected look-alike, with its transcript,
confidence, time and a short WAV clip, kept in one folder the scoreboard serves by id.

Layout: ``<dir>/index.jsonl`` (one record per line) and ``<dir>/clips/<id>.wav``.  Ids are
``<session>-<n>`` (session = UTC start time, n = running number), so they never collide across
restarts and sort in the order things were said.
"""

from __future__ import annotations

import json
import re
import threading
import time
import wave
from dataclasses import asdict, dataclass
from pathlib import Path

from referee.asr.base import SAMPLE_RATE

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
    reason: str
    confidence: float
    team: str | None
    clip: str  # file name under clips/, "" when no audio was kept
    wall_time: float  # UNIX time it was recorded


class EvidenceStore:
    """Append-only store of evidence records and their clips."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.clips_dir = self.dir / "clips"
        make_folder(self.clips_dir)
        self.index = self.dir / "index.jsonl"
        self.session = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
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
        reason: str,
        confidence: float,
        team: str | None,
        clip_pcm: bytes = b"",
    ) -> Evidence:
        """Store one item (and its clip); returns the stored record."""
        with self._lock:
            ident = self._next_id()
            clip_name = ""
            if clip_pcm:
                clip_name = f"{ident}.wav"
                write_wav(self.clips_dir / clip_name, clip_pcm)
            item = Evidence(ident, round(t, 3), text, call, points, accepted, reason,
                            round(confidence, 3), team, clip_name, time.time())
            with self.index.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(asdict(item), ensure_ascii=False) + "\n")
        return item

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
        blocker = next((p for p in reversed((path, *path.parents)) if p.exists() and not p.is_dir()),
                       None)
        if blocker is not None:
            raise EvidenceError("evidence-not-folder",
                                f"{blocker} es un archivo, no una carpeta") from err
        raise EvidenceError("evidence-unwritable",
                            f"no puedo crear la carpeta {path}: {err.strerror or err}") from err


def write_wav(path: Path, pcm: bytes, rate: int = SAMPLE_RATE) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)

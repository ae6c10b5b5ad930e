"""The table of ``benchmarks.evening``: its sound made phrase by phrase from the shared corpus,
the taps, the page on the WebSocket, and each row measured."""

from __future__ import annotations

import csv
import gc
import random
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.speech_corpus import SPEECH, noises

STEP = 1600  # samples per chunk: 0.1 s, as a microphone hands them over
VOICE_RMS = 0.05  # a voice's level (about -26 dBFS)
PAUSE_S = (0.8, 4.0)  # silence between two phrases, drawn evenly
CALL_NOW = 0.4  # how often the next phrase is a call or number the game takes at that moment
TAP = 0.35  # how often a tap follows a phrase, where the hand leaves room for one
LEARN_EVERY_S = 60.0  # with --learn: how often it looks for new phrases to learn from (serve's)


@dataclass(frozen=True)
class Said:
    file: str
    label: str  # the corpus's: a call, "puntos:N", "quiero+retruco", or "none"


def corpus() -> list[Said]:
    """Every file of the corpus, synthetic and real, with its label."""
    out = []
    for manifest in ("manifest.csv", "real_manifest.csv"):
        with (SPEECH / manifest).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                out.append(Said(row["file"], row["label"].rstrip("?")))
    return out


@dataclass
class Stretch:
    """What was measured since the last row."""

    heard_s: list[float] = field(default_factory=list)  # each phrase's time to be written down
    sound_s: float = 0.0
    taken: int = 0  # calls and numbers said when the game took them
    written: int = 0  # of those, written down by the voice as said
    tapped: int = 0  # or written once the table confirmed it with a tap
    talk: int = 0  # phrases with no call (chatter, look-alikes)
    false: int = 0  # of those, phrases the voice wrote a call or number down from
    learned: int = 0  # times the voices were learned (``--learn``)
    learning_cpu_s: float = 0.0  # CPU those took, in both processes
    worker_cpu_s: float = 0.0  # of it, in the learning's process


class Page:
    """One tablet on the scoreboard's WebSocket, reading every snapshot as it comes."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.count = 0
        self.last_size = 0
        self.thread = threading.Thread(target=self._read, name="page", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                text = self.ws.receive_text()
                self.count += 1
                self.last_size = len(text)
        except Exception:  # noqa: BLE001 - the page is closed at the end of the evening
            return


class Evening:
    """The table's sound, made phrase by phrase from what the game takes, and the taps."""

    def __init__(self, service: Any, data_dir: Path, hours: float, every_min: float,
                 seed: int, snr: float) -> None:
        self.service = service
        self.data_dir = data_dir
        self.total_s = hours * 3600
        self.every_s = every_min * 60
        self.rng = random.Random(seed)
        self.items = corpus()
        self.noise = noises()[0]
        self.noise_at = 0
        self.noise_gain = VOICE_RMS / float(np.sqrt(np.mean(self.noise**2))) / 10 ** (snr / 20)
        self.t = 0.0
        self.won = 0
        self.stretch = Stretch()
        self.rows: list[dict[str, float]] = []
        self.page: Page | None = None
        self.learner: Any = None  # ``serve --learn``'s, asked every minute of table time
        self.learned = 0
        self._cpu_at = time.process_time()

    # -- the sound -----------------------------------------------------------------------------
    def sound(self) -> Iterator[Any]:
        """The evening's chunks, one phrase and its pause at a time; the taps and the rows
        between them (by then the listener has handed over what the pause ended)."""
        from referee.audio import to_chunk
        from referee.wav import read_wav

        next_row, next_learning = self.every_s, LEARN_EVERY_S
        while self.t < self.total_s:
            said, taken = self._next()
            before = self._voice_lines()
            voice = read_wav(SPEECH / said.file)[:, 0]
            voice = voice * (VOICE_RMS / (float(np.sqrt(np.mean(voice**2))) or 1e-9))
            pause = np.zeros(int(self.rng.uniform(*PAUSE_S) * 16000))
            frames = np.concatenate([voice, pause])
            frames = np.clip(frames + self._bed(len(frames)), -1.0, 1.0)
            for k in range(0, len(frames), STEP):
                yield to_chunk(frames[k:k + STEP, None], self.t)
                self.t += len(frames[k:k + STEP]) / 16000
            self.stretch.sound_s += len(frames) / 16000
            self._tap_doubts(said)
            self._judge(said, taken, before, self._voice_lines())
            self._tap()
            if self.learner is not None and self.t >= next_learning:
                cpu = time.process_time()
                if self.learner.step():
                    self.learned += 1
                    self.stretch.learned += 1
                    self.stretch.worker_cpu_s += self.learner.cpu_s
                    self.stretch.learning_cpu_s += time.process_time() - cpu + self.learner.cpu_s
                next_learning += LEARN_EVERY_S
            if self.t >= next_row:
                self.row()
                next_row += self.every_s

    def _bed(self, n: int) -> np.ndarray:
        """The room's noise, going on from where it was."""
        idx = (self.noise_at + np.arange(n)) % len(self.noise)
        self.noise_at = int((self.noise_at + n) % len(self.noise))
        return self.noise[idx] * self.noise_gain

    def _next(self) -> tuple[Said, bool]:
        """A call or number the game takes now (and True), or anything else said at a table."""
        if self.rng.random() < CALL_NOW:
            expected = self.service.expected()
            now = [s for s in self.items if s.label.split("+")[0] in expected]
            if now:
                return self.rng.choice(now), True
        return self.rng.choice(self.items), False

    def _tap_doubts(self, said: Said) -> None:
        """The table taps what waits as «dudoso», oldest first: confirmed where it is what was
        said, set aside where it is not (a declaration held waits for the one before it)."""
        from web_scoreboard.errors import ActionError

        meant = {call.removeprefix("puntos:") for call in said.label.split("+")}
        tried: set[int] = set()
        while waiting := [h for h in self.service.snapshot()["heard"]
                          if h["status"] == "unsure" and h["id"] not in tried]:
            item = waiting[-1]
            tried.add(item["id"])
            right = (item.get("line") or "").partition(": ")[2] in meant
            try:
                (self.service.confirm_heard if right else self.service.dismiss_heard)(item["id"])
            except (ActionError, ValueError):
                pass

    def _voice_lines(self) -> list[tuple[str, str]]:
        """The game's lines as they stand that the voice wrote down, alone or with a tap."""
        log = self.service.store.effective_log(self.service.game_id)
        return [(entry.origin, entry.line) for entry in log if entry.origin in ("voice", "confirm")]

    def _judge(self, said: Said, taken: bool, before: list[tuple[str, str]],
               after: list[tuple[str, str]]) -> None:
        """What was written down while a phrase and its pause were heard: the call or number
        said, where the game took it, by the voice alone or with a tap; any call or number by
        the voice alone, where none was said."""
        same = next((k for k, (a, b) in enumerate(zip(before, after)) if a != b),
                    min(len(before), len(after)))
        added = [(origin, line.split(": ", 1)[1]) for origin, line in after[same:] if ": " in line]
        first = said.label.split("+")[0].removeprefix("puntos:")
        if taken:
            self.stretch.taken += 1
            self.stretch.written += ("voice", first) in added
            self.stretch.tapped += ("confirm", first) in added
        elif said.label == "none":
            self.stretch.talk += 1
            self.stretch.false += any(origin == "voice" for origin, _ in added)

    def _tap(self) -> None:
        """A game won starts the next one; otherwise, now and then, a round won or a hand dealt,
        where the rules take it (a call pending or tantos awaited refuse it)."""
        from web_scoreboard.errors import ActionError

        snap = self.service.snapshot()
        if snap.get("winner"):
            self.won += 1
            self.service.new_game()
            return
        if self.rng.random() >= TAP:
            return
        hand = snap.get("hand")
        line = "hand" if not hand or hand.get("over") else f"round {self.rng.choice('AB')}"
        try:
            self.service.submit_line(line, origin="manual")
        except (ActionError, ValueError):
            pass

    # -- what is measured -----------------------------------------------------------------------
    def heard(self, took: float) -> None:
        self.stretch.heard_s.append(took)

    def row(self) -> None:
        now = time.process_time()
        s = self.stretch
        gc.collect()
        times = sorted(s.heard_s) or [0.0]
        row = {
            "minutes": self.t / 60, "won": self.won, "learned": self.learned,
            "phrases": len(s.heard_s), "taken": s.taken, "written": s.written, "tapped": s.tapped,
            "talk": s.talk, "false": s.false,
            "lines": self._count("events"), "heard": self._count("heard"),
            "rss_mb": _rss_mb(), "objects": len(gc.get_objects()),
            "rtf": (now - self._cpu_at + s.worker_cpu_s) / max(s.sound_s, 1e-9),
            "p50_ms": 1000 * statistics.median(times),
            "p95_ms": 1000 * times[min(len(times) - 1, int(0.95 * len(times)))],
            "max_ms": 1000 * times[-1],
            "store_mb": sum(p.stat().st_size for p in self.data_dir.glob("*.sqlite3*")) / 1e6,
            "snapshots": self.page.count if self.page else 0,
            "snapshot_kb": (self.page.last_size if self.page else 0) / 1000,
            "learning_s": s.learning_cpu_s / s.learned if s.learned else float("nan"),
            "learning_mb": (_rss_mb(self.learner.pid) if self.learner and self.learner.pid
                            else float("nan")),
        }
        self.rows.append(row)
        print(f"  {row['minutes']:>5.0f} min {row['won']:>5.0f} {row['learned']:>7.0f} "
              f"{row['phrases']:>7.0f} {share(row['written'], row['taken']):>7.1f}% "
              f"{share(row['tapped'], row['taken']):>6.1f}% "
              f"{row['false']:>5.0f} "
              f"{row['lines']:>6.0f} {row['heard']:>6.0f} {row['rss_mb']:>7.1f} "
              f"{row['objects']:>9.0f} {row['rtf']:>7.3f} {row['p50_ms']:>5.1f} / "
              f"{row['p95_ms']:>5.1f} / {row['max_ms']:>6.1f} {row['store_mb']:>7.1f} "
              f"{row['snapshots']:>9.0f} {row['snapshot_kb']:>8.1f}"
              + (f" {row['learning_s']:>10.1f} {row['learning_mb']:>8.1f}"
                 if self.learner is not None else ""), flush=True)
        self.stretch = Stretch()
        self._cpu_at = time.process_time()

    def _count(self, table: str) -> int:
        db = sqlite3.connect(f"file:{self.data_dir / 'scoreboard.sqlite3'}?mode=ro", uri=True)
        try:
            return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        finally:
            db.close()


def share(part: float, whole: float) -> float:
    """``part`` as a percentage of ``whole`` (0 of none)."""
    return 100 * part / max(whole, 1)


def _rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory (MB), from /proc: this one's unless told."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # it ended meanwhile
        return float("nan")
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


HEADER = (f"  {'table':>9} {'won':>5} {'learned':>7} {'phrases':>7} {'written':>8} {'+ tap':>7} "
          f"{'false':>5} "
          f"{'lines':>6} {'heard':>6} "
          f"{'RSS MB':>7} "
          f"{'objects':>9} {'CPU RTF':>7} {'written down p50 / p95 / max ms':>23} {'store MB':>7} "
          f"{'snapshots':>9} {'last KB':>8}")
LEARNING_HEADER = (f" {'learning s':>10} {'learn MB':>8}")  # with --learn: CPU seconds a
# relearning took, on average, and the learning process's resident memory

"""How late the listener hears while the voices are relearned: in its thread or in its own process.

    python -m benchmarks.learning_lag                  # 60 s of table talk for each way
    python -m benchmarks.learning_lag --seconds 120

First a short evening (``benchmarks.evening``, a quarter of an hour of table time unless told)
fills a store with play to learn from.  Then, for each way, corpus calls with pauses are fed to the listener in
real time, 0.1 s at a time as a microphone gives them, while the voices are relearned without a
pause, each relearning aligning every phrase again (a new table's steady load, at its worst):
``none`` (no learning), ``thread`` (``learning.learn_from`` in a thread of the listener's process,
as ``serve --learn`` did before) and ``process`` (``learning_worker.LearningWorker``, as it does
now).  PocketSphinx holds Python's GIL for a whole alignment, so a relearning in the listener's
process makes chunks wait.  Each row says how long after it was due each chunk was done (p50 /
p95 / max ms), the relearnings done meanwhile, and this process's CPU per second of sound.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from benchmarks import evening
from benchmarks.speech_corpus import SPEECH
from benchmarks.speech_listening import SPHINX_ES_DIR
from referee.asr.base import RecognizerError
from referee.audio import AudioChunk, to_chunk

STEP = 1600  # samples a microphone gives at a time: 0.1 s at 16 kHz
PAUSE_S = 0.8


def talk(seconds: float) -> np.ndarray:
    """Corpus calls one after another with pauses, ``seconds`` long."""
    from referee.wav import read_wav

    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        files = [SPEECH / r["file"] for r in csv.DictReader(fh) if r["group"] == "call"]
    pause = np.zeros(int(PAUSE_S * 16000), dtype=np.int16)
    out: list[np.ndarray] = []
    for file in files:
        out += [read_wav(file).reshape(-1), pause]  # mono
        if sum(len(x) for x in out) >= seconds * 16000:
            break
    return np.concatenate(out)[:int(seconds * 16000)]


def late_chunks(stream: np.ndarray, late: list[float]) -> Iterator[AudioChunk]:
    """The stream's chunks when a microphone would give them; how late each was done is noted
    when the listener asks for the next."""
    start = time.monotonic()
    for i in range(0, len(stream), STEP):
        due = start + (i + STEP) / 16000
        time.sleep(max(0.0, due - time.monotonic()))
        yield to_chunk(stream[i:i + STEP, None], i / 16000)
        late.append(time.monotonic() - due)


def relearning(way: str, store_path: Path,
               models_dir: Path) -> tuple[Callable[[], None], Callable[[], None]]:
    """One relearning of every phrase again, done the given way; and how to end that way."""
    from referee.learning import learn_from
    from referee.learning_worker import LearningWorker
    from web_scoreboard.store import Store

    if way == "thread":
        store = Store(store_path)

        def in_thread() -> None:
            learn_from(store, models_dir, SPHINX_ES_DIR)

        return in_thread, store.close
    worker = LearningWorker(store_path, models_dir, SPHINX_ES_DIR, 0.8)

    def in_process() -> None:
        worker.close()  # a new worker each time: it aligns every phrase again
        worker.learn()

    return in_process, worker.close


def measure(way: str, stream: np.ndarray, store_path: Path, models_dir: Path) -> dict[str, float]:
    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.listener import Listener

    listener = Listener(SphinxRecognizer(PhraseList.from_table(), SPHINX_ES_DIR), lambda u: None)
    late: list[float] = []
    done = threading.Event()
    relearned = [0]
    trouble: list[RecognizerError] = []
    learn, end = relearning(way, store_path, models_dir) if way != "none" else (None, None)

    def keep_learning() -> None:
        while not done.is_set() and not trouble:
            assert learn is not None
            try:
                learn()
                relearned[0] += 1
            except RecognizerError as err:  # too little play to learn from: said, not measured
                trouble.append(err)

    learner = threading.Thread(target=keep_learning, daemon=True)
    if learn is not None:
        learner.start()
        time.sleep(1.0)  # under way before the first chunk
    cpu = time.process_time()
    listener.run(late_chunks(stream, late))
    cpu = time.process_time() - cpu
    done.set()
    if learn is not None:
        learner.join()
        assert end is not None
        end()
    if trouble:
        raise trouble[0]
    ms = sorted(1000 * x for x in late)
    return {"p50": statistics.median(ms), "p95": ms[int(0.95 * (len(ms) - 1))], "max": ms[-1],
            "relearned": relearned[0], "rtf": cpu / (len(stream) / 16000)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="seconds of table talk heard for each way (default 60)")
    parser.add_argument("--play", type=float, default=15.0, metavar="MIN",
                        help="minutes of table time played to learn from (default 15)")
    args = parser.parse_args(argv)
    if not (SPEECH / "manifest.csv").is_file() or not (SPHINX_ES_DIR / "mdef").is_file():
        print(f"no speech corpus or Spanish model under {SPEECH.parent.resolve()}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        print(f"playing {args.play:g} minutes of table time to learn from...", flush=True)
        evening.run(evening.parse_args(["--hours", str(args.play / 60), "--every",
                                        str(args.play), "--data-dir", str(data)]))
        store_path = data / "scoreboard.sqlite3"
        stream = talk(args.seconds)
        print(f"{len(stream) / 16000:g} s of table talk heard in real time, 0.1 s chunks")
        print(f"  {'learning':>8} {'chunk done late p50 / p95 / max ms':>35} "
              f"{'relearnings':>11} {'CPU RTF':>7}")
        for way in ("none", "thread", "process"):
            try:
                row = measure(way, stream, store_path, Path(tmp) / f"models-{way}")
            except RecognizerError as err:
                print(f"could not learn from that play ({err.message}): play longer (--play)",
                      file=sys.stderr)
                return 2
            print(f"  {way:>8} {row['p50']:>17.1f} / {row['p95']:>5.1f} / {row['max']:>6.1f} "
                  f"{row['relearned']:>11.0f} {row['rtf']:>7.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

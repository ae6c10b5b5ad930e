"""An evening at the table: hours of talk heard by the referee as `serve` hears it, and whether it
holds up from the first game to the last: memory, the time a phrase takes to be written down, the
store, the page.

    python -m benchmarks.evening                      # 4 hours of table time, a row every 30 min
    python -m benchmarks.evening --hours 1 --every 10
    python -m benchmarks.evening --hours 1 --data-dir DIR   # keep the store, to look at it
    python -m benchmarks.evening --learn                    # learning the voices, as serve --learn
    python -m benchmarks.evening --snr 10                   # a noisy table

The table's sound is made as the evening goes, from the shared corpus (every voice, synthetic and
real): the calls and envido numbers the game takes at that moment, other calls, look-alikes and
chatter, each followed by a pause, over a quiet room's noise 30 dB under the voices.  It goes
through the pieces `serve` runs: the Spanish Sphinx recognizer told what the table expects, the
listener, the voice referee, the table's last minute of sound kept for «¿Qué se dijo?», and the
scoreboard with its SQLite store (in a temporary folder) and one page on its WebSocket.  It is
fed as fast as this machine decodes it.  The cards are tapped («round A», «hand») once a hand's
calls leave room for them, and a new game starts when one is won, as at a table.

Each row says: the games won so far; how many times the voices were learned (``--learn``, as
`serve --learn` does, looking every minute of table time); the phrases the listener handed to the
referee in the stretch since the last row (the calls it hands over early count apart from the
rest of their phrase); of the calls and numbers said there when the game took them, the share the
voice wrote down as said ("written"), and the phrases with no call (chatter, look-alikes) it wrote
a call or number down from ("false"), each judged by the lines the voice added while the phrase
and its pause were heard; the evening's log lines and things heard kept; the process's resident
memory and Python's live objects; the CPU per second of sound over the stretch (learning
included, in its process too); the time from a phrase handed over to its calls written down and
published (p50 / p95 / max); the store's size; the snapshots the page received, with the size of
the last one; and with ``--learn``, the CPU seconds a relearning took in the stretch, on average
(the listener's process and the learning's together), and the learning process's resident memory.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.evening_table import HEADER, LEARNING_HEADER, Evening, Page, share
from benchmarks.speech_corpus import SPEECH
from benchmarks.speech_listening import SPHINX_ES_DIR

PIN = "1357"


def run(args: argparse.Namespace) -> list[dict[str, float]]:
    from fastapi.testclient import TestClient

    from referee.asr.base import expect
    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.listener import Listener
    from referee.table_audio import TableAudio
    from referee.voice import VoiceReferee
    from web_scoreboard.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp)
        app = create_app(data_dir=data_dir, pin=PIN)
        service = app.state.service
        evening = Evening(service, data_dir, args.hours, args.every, args.seed, args.snr)
        recognizer = SphinxRecognizer(PhraseList.from_table(), SPHINX_ES_DIR)
        expect(recognizer, service.expected)
        referee = VoiceReferee(service, log=lambda line: None)

        def heard(utt: Any) -> None:
            start = time.perf_counter()
            referee(utt)
            evening.heard(time.perf_counter() - start)

        listener = Listener(recognizer, heard, on_revisions=referee.revise)
        if args.learn:
            from referee.learning import TableLearner

            evening.learner = TableLearner(service.store, Path(tmp) / "models", recognizer,
                                           log=lambda line: None)
        kept = TableAudio(60.0)
        service.table_audio = kept
        with TestClient(app) as client, client.websocket_connect("/ws") as ws:
            evening.page = Page(ws)
            print(HEADER + (LEARNING_HEADER if args.learn else ""), flush=True)
            try:
                listener.run(kept.tap(evening.sound()))
            finally:
                if evening.learner is not None:
                    evening.learner.close()
        return evening.rows


def summary(rows: list[dict[str, float]]) -> None:
    """What the voice wrote down over the evening, and how the last stretch compares with the
    first."""
    if not rows:
        return
    taken, written, tapped, talk, false = (
        sum(r[k] for r in rows) for k in ("taken", "written", "tapped", "talk", "false"))
    print(f"over {rows[-1]['minutes'] / 60:.1f} h: {taken:.0f} calls and numbers said when the game "
          f"took them, {share(written, taken):.1f}% written down by the voice as said, "
          f"{share(tapped, taken):.1f}% more with a tap; "
          f"{talk:.0f} phrases with no call (chatter, look-alikes), {false:.0f} of them had a call "
          f"or number written down ({false / (rows[-1]['minutes'] / 60):.1f} an hour)")
    relearnings = [r["learning_s"] for r in rows if not math.isnan(r["learning_s"])]
    if relearnings:
        print(f"learned the voices {rows[-1]['learned']:.0f} times, each relearning "
              f"{relearnings[0]:.1f} s of CPU in the first stretch that learned, "
              f"{relearnings[-1]:.1f} s in the last")
    if len(rows) < 2:
        return
    first, last = rows[0], rows[-1]
    minutes = last["minutes"] - first["minutes"]
    growth = (last["rss_mb"] - first["rss_mb"]) / minutes * 60
    print(f"from the first row to the last ({minutes:.0f} min of table time): resident memory "
          f"{first['rss_mb']:.1f} → {last['rss_mb']:.1f} MB"
          + (f" ({growth:+.1f} MB an hour)" if minutes >= 60 else "") + ", Python objects "
          f"{first['objects']:.0f} → {last['objects']:.0f}, CPU {first['rtf']:.3f} → "
          f"{last['rtf']:.3f} of real time, written down p95 {first['p95_ms']:.1f} → "
          f"{last['p95_ms']:.1f} ms; {last['won']:.0f} games won, {last['lines']:.0f} log lines, "
          f"{last['heard']:.0f} things heard kept with their clips ({last['store_mb']:.1f} MB)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=4.0, help="table time (default 4)")
    parser.add_argument("--every", type=float, default=30.0, metavar="MIN",
                        help="minutes of table time between rows (default 30)")
    parser.add_argument("--snr", type=float, default=30.0,
                        help="the voices above the room's noise, dB (default 30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--learn", action="store_true",
                        help="learn the table's voices while it plays, as `serve --learn` does")
    parser.add_argument("--data-dir", type=Path, metavar="DIR",
                        help="keep the evening's store there (an empty folder), to open it "
                        "afterwards with `truco-referee serve --no-mic --data-dir DIR`")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (SPEECH / "manifest.csv").is_file() or not (SPHINX_ES_DIR / "mdef").is_file():
        print(f"no speech corpus or Spanish model under {SPEECH.parent.resolve()}", file=sys.stderr)
        return 2
    print(f"{args.hours:g} h at a table, the voices {args.snr:g} dB above the room's noise, "
          f"seed {args.seed}; a row every {args.every:g} min of table time"
          + ("; learning the table's voices as it plays" if args.learn else ""))
    summary(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

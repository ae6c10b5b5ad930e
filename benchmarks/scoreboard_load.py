"""Scoreboard under load: many open pages, a steady stream of events, every snapshot checked.

    python -m benchmarks.scoreboard_load                 # 20 pages, 100 events/s, 60 s
    python -m benchmarks.scoreboard_load --seconds 10    # shorter run

The scoreboard runs as its own process (uvicorn, real SQLite store in a temporary folder, WAL and
synchronous=FULL).  This process opens the pages' WebSockets and posts events over HTTP at a fixed
pace, one after another, as a table would: whole hands in the log notation, and a new game when
one ends.  It prints how many snapshots each page got, whether they came in order with none
missing, and the delivery latency from posting an event to each page receiving its snapshot.
The per-client rate limit, meant for people tapping, is lifted for the one posting client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PIN = "1357"
SEQ = re.compile(r'"seq":(\d+)')
HANDS = [
    "hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas", "A1: truco", "B1: quiero",
    "round A", "round B", "round A",
    "hand", "B1: truco", "A1: quiero", "A1: retruco", "B1: no quiero",
    "hand", "A1: real envido", "B1: no quiero", "A1: me voy al mazo",
    "hand", "B1: envido", "A1: quiero", "B1: 27", "A1: 30", "B1: me voy al mazo",
]  # four hands, so that the mano is A1 again when the cycle starts over


@dataclass
class Page:
    """One open page: the sequence numbers it received and when."""

    seqs: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    sizes: int = 0
    last_text: str = ""


@dataclass
class Poster:
    sent_at: dict[int, float] = field(default_factory=dict)
    round_trips: list[float] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    new_games: int = 0
    events: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(port: int, data_dir: Path) -> None:
    """The server side (run in its own process by the benchmark)."""
    import uvicorn

    from engine import Settings
    from web_scoreboard import create_app
    from web_scoreboard.store import Store

    app = create_app(Settings(), Store(data_dir / "scoreboard.sqlite3"), pin=PIN, rate_limit=None)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def wait_ready(url: str, timeout: float = 20.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{url}/api/state")).status_code == 200:
                    return
            except httpx.TransportError:
                await asyncio.sleep(0.1)
    raise SystemExit("the scoreboard did not start")


async def listen(url: str, page: Page, ready: asyncio.Event, stop: asyncio.Event) -> None:
    import websockets

    async with websockets.connect(url, max_size=None) as ws:
        first = True
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except TimeoutError:
                continue
            now = time.perf_counter()
            match = SEQ.search(text if isinstance(text, str) else text.decode())
            if match:
                page.seqs.append(int(match.group(1)))
                page.times.append(now)
                page.sizes += len(text)
                page.last_text = str(text)
            if first:
                first = False
                ready.set()


async def post_events(url: str, rate: float, seconds: float, poster: Poster) -> None:
    """Post events at a fixed pace, one after another, for ``seconds``."""
    import httpx

    headers = {"X-Table-PIN": PIN}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as client:
        start = time.perf_counter()
        i = step = 0
        while (due := start + i / rate) < start + seconds:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            line = HANDS[step % len(HANDS)]
            step += 1
            sent = time.perf_counter()
            response = await client.post("/api/events", json={"line": line})
            poster.round_trips.append(time.perf_counter() - sent)
            i += 1
            if response.status_code != 200:
                poster.refused.append(f"{line}: {response.text}")
                continue
            body = response.json()
            poster.sent_at[body["seq"]] = sent
            poster.events += 1
            if body.get("winner"):
                sent = time.perf_counter()
                fresh = (await client.post("/api/games", json={})).json()
                poster.sent_at[fresh["seq"]] = sent
                poster.new_games += 1
                step = 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))] if ordered else 0.0


def check_pages(pages: list[Page], poster: Poster) -> tuple[list[str], list[float]]:
    """Problems found on the pages, and every delivery latency in seconds."""
    problems, latencies = [], []
    expected = sorted(poster.sent_at)
    for n, page in enumerate(pages):
        got = [s for s in page.seqs if s >= expected[0]] if expected else []
        if got != expected:
            missing = sorted(set(expected) - set(got))
            problems.append(f"page {n}: {len(got)} of {len(expected)} snapshots, "
                            f"missing {missing[:5]}, in order: {got == sorted(set(got))}")
        for seq, at in zip(page.seqs, page.times):
            if seq in poster.sent_at:
                latencies.append(at - poster.sent_at[seq])
    return problems, latencies


def run(args: argparse.Namespace) -> int:
    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="scoreboard-load-") as tmp:
        server = subprocess.Popen([sys.executable, "-m", "benchmarks.scoreboard_load", "--serve",
                                   "--port", str(port), "--data-dir", tmp])
        try:
            return asyncio.run(measure(args, base))
        finally:
            server.terminate()
            server.wait(timeout=10)


async def measure(args: argparse.Namespace, base: str) -> int:
    await wait_ready(base)
    pages = [Page() for _ in range(args.clients)]
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in pages]
    ws_url = base.replace("http", "ws", 1) + "/ws"
    listeners = [asyncio.create_task(listen(ws_url, p, r, stop)) for p, r in zip(pages, readies)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=20)
    print(f"scoreboard load: {args.clients} pages, {args.rate:g} events/s for {args.seconds:g} s",
          flush=True)
    poster = Poster()
    started = time.perf_counter()
    await post_events(base, args.rate, args.seconds, poster)
    elapsed = time.perf_counter() - started
    await asyncio.sleep(1.0)  # let the last snapshots arrive
    stop.set()
    await asyncio.gather(*listeners)
    return report(pages, poster, elapsed)


def report(pages: list[Page], poster: Poster, elapsed: float) -> int:
    problems, latencies = check_pages(pages, poster)
    posted = poster.events + poster.new_games
    delivered = sum(len(p.seqs) for p in pages)
    sizes = sum(p.sizes for p in pages) / max(1, delivered)
    final_ok = all(json.loads(p.last_text)["seq"] == max(poster.sent_at) for p in pages)
    ms = [x * 1000 for x in latencies]
    rtt = [x * 1000 for x in poster.round_trips]
    print(f"  events posted: {posted} in {elapsed:.1f} s ({posted / elapsed:.1f}/s), "
          f"new games: {poster.new_games}, refused: {len(poster.refused)}")
    print(f"  snapshots received: {delivered} over {len(pages)} pages, "
          f"mean size {sizes / 1024:.1f} KiB")
    print(f"  every page got every snapshot, in order: {'yes' if not problems else 'NO'}"
          f"; last snapshot on every page is the final state: {'yes' if final_ok else 'NO'}")
    print(f"  delivery latency (event posted -> page received): p50 {percentile(ms, .5):.1f} ms, "
          f"p95 {percentile(ms, .95):.1f} ms, p99 {percentile(ms, .99):.1f} ms, "
          f"max {max(ms, default=0):.1f} ms")
    print(f"  POST round trip: p50 {percentile(rtt, .5):.1f} ms, p95 {percentile(rtt, .95):.1f} ms")
    for line in problems[:10] + poster.refused[:5]:
        print(f"  ! {line}")
    return 0 if not problems and not poster.refused and final_ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scoreboard_load",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="open pages (default 20)")
    parser.add_argument("--rate", type=float, default=100.0, help="events per second (100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to post (60)")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.port, args.data_dir or Path(os.getcwd()))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

"""The camera's work per frame counted in instructions, which a loaded machine does not change.

    python -m benchmarks.cards_instructions --prepare BANK.npz
    valgrind --tool=callgrind python -m benchmarks.cards_instructions --bank BANK.npz --frames 60
    valgrind --tool=callgrind python -m benchmarks.cards_instructions --bank BANK.npz --frames 0

The first command builds the Fournier bank of the latency benchmark (``benchmarks.cards``,
``--mode calibrated --bank fournier-1878``) once, outside valgrind; the other two read the first N
of the latency frames at 640×480 with it, on one thread.  Callgrind's "summary" of the first,
less that of the second (which builds the frames and loads the bank but reads none), divided by N,
is the instructions a frame (docs/camera.md, "Speed, before each change").  valgrind is the
Debian package of that name."""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # a waiting OpenBLAS thread spins, and counts

import argparse
from pathlib import Path

import cv2

from benchmarks.cards import SHARED_CARDS, bank_of, latency_scenes
from referee.vision.bank import load_bank, save_bank
from referee.vision.faces import load_deck
from referee.vision.recognize import Recognizer

DECK = "fournier-1878"
FRAMES = 60  # the latency frames made, in both runs, so that making them is not counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--prepare", type=Path, metavar="BANK", help="build the bank into this file")
    group.add_argument("--bank", type=Path, help="the bank --prepare built")
    parser.add_argument("--frames", type=int, default=FRAMES, choices=range(FRAMES + 1),
                        metavar=f"0-{FRAMES}", help="latency frames to read (0: none)")
    args = parser.parse_args(argv)
    if not (SHARED_CARDS / DECK).is_dir():
        print(f"no deck at {SHARED_CARDS / DECK}: ../shared is needed")
        return 2
    cv2.setNumThreads(1)
    deck = load_deck(SHARED_CARDS / DECK)
    if args.prepare:
        save_bank(bank_of(deck), args.prepare)
        print(f"bank saved to {args.prepare}")
        return 0
    recognizer = Recognizer(load_bank(args.bank))
    scenes = latency_scenes(deck, (640, 480), FRAMES)  # all, whatever is read
    for scene in scenes[:args.frames]:
        recognizer.read(scene.image)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

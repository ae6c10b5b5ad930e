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
import numpy as np

from benchmarks.cards import SHARED_CARDS
from referee.vision.bank import build_bank, load_bank, save_bank
from referee.vision.faces import load_deck
from referee.vision.recognize import Recognizer
from referee.vision.scenes import SceneOptions, random_scene

DECK = "fournier-1878"
SEED = 1  # the bank's seed is the benchmark's default seed + 1000
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
        save_bank(build_bank([deck], augmented=10, seed=SEED + 1000), args.prepare)
        print(f"bank saved to {args.prepare}")
        return 0
    recognizer = Recognizer(load_bank(args.bank))
    rng = np.random.default_rng(99)  # the latency frames, as benchmarks.cards.latency makes them
    options = SceneOptions(width=640, height=480)
    scenes = [random_scene(deck, rng, options) for _ in range(FRAMES)]  # all, whatever is read
    for scene in scenes[:args.frames]:
        recognizer.read(scene.image)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Card camera benchmark on generated table scenes: accuracy, abstentions, precision and speed.

    python -m benchmarks.cards [--scenes 200] [--seed 1] [--mode both] [--deck DIR ...]
                               [--bank NAME] [--no-cues] [--no-figures]
                               [--no-figure-ranks] [--no-snap] [--far-card X] [--learn]

"calibrated" builds the bank from a deck's faces and tests on scenes of that same deck (the
product's main path: calibration to the players' own deck).  "held-out" builds the bank from one
deck and tests on the other (both ways; ``--bank`` keeps one).  Below the bank's confidence,
a 1-7 is still named when the cues read on it (pip count, ink colours, pinta) agree with the
bank's guess (``--no-cues`` turns that off; see referee/vision/cues.py), and a guessed figure of
unsure rank is read as "a figure of <suit>" when its pinta or its coin (oros) tells the suit
(``--no-figures``), or named when its picture tells the rank (shape, and the horse's brown) and
that rank agrees with the guessed one, or the suit is told without the bank: by the pinta on its
own or by the coin of oros (``--no-figure-ranks``).
Before the cues are read, each card's sides are snapped onto its edges in the full frame and the
card compared with the bank again there (``--no-snap`` reads it on the finder's outline).
A card-shaped outline the bank finds far from every card (below "not a card", 0.45) is still read
when its cues name it with the rank the bank guessed (``--far-card 0.45`` drops every such outline).
The envido figures are the envido check's (referee/vision/envido_check.py) on frames of 2-3 cards:
the envido value needs every outline in view named or read as a figure of a suit, and all the cards
shown; a claim is judged as the referee judges it (``verdict_hand``), with the number sung set to
the cards' envido ("honest") or to a number they do not make ("false").
With ``--learn`` the recognizer learns views of the scenes' deck from the cards it names as the
scenes go on (referee/vision/learned.py; a new recognizer for each test, and the second half of
the scenes reported apart); the latency is then timed after a first pass over its frames, each
frame read in turn with and without learning.
Scenes: 0-3 cards, tilt up to 40°, fingers, overlap, glare, JPEG.
"Easy" scenes are the target conditions: tilt ≤ 30° and ≤ 15 % of the card hidden.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as on the table's small computer

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from engine.cards import FIGURES, Card, envido_value, envido_values_made, is_possible_envido
from referee.vision.bank import Bank, build_bank
from referee.vision.envido_check import shown_hand, verdict_hand
from referee.vision.faces import Face, load_deck
from referee.vision.pintas import read_pintas
from referee.vision.reading import Reading, cue_image
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import Placed, Scene, SceneOptions, random_scene

SEED = 1  # the scenes' default seed
AUGMENTED = 10  # augmented views per card in the bank, by default

SHARED_CARDS = Path(__file__).resolve().parents[1].parent / "shared" / "cards"


@dataclass
class Tally:
    """Counts over the cards of many scenes."""

    cards: int = 0
    found: int = 0  # cards the finder outlined, named or not
    correct: int = 0
    suit_correct: int = 0
    answered: int = 0
    wrong: int = 0
    phantom: int = 0  # named cards where there is none
    by_cues: int = 0  # named below the bank's confidence because the cues agreed
    by_cues_wrong: int = 0
    figures_of: int = 0  # abstained but read as "a figure of <suit>" (enough for the envido)
    figures_of_wrong: int = 0  # ... where the card is not a figure of that suit (or no card)
    easy_cards: int = 0
    easy_abstained: int = 0
    easy_by_rank: dict[int, list[int]] = field(default_factory=dict)  # rank -> [cards, abstained]
    hands: int = 0
    hands_of_three: int = 0  # with two cards, the third (out of sight) may make the number
    envido_correct: int = 0
    envido_wrong: int = 0
    # claims checked as the referee does (verdict_hand): [right verdict, wrong verdict] per frame
    honest: list[int] = field(default_factory=lambda: [0, 0])
    false_claims: list[int] = field(default_factory=lambda: [0, 0])
    empty_frames: int = 0
    empty_frames_named: int = 0
    # easy cards outlined: how far the outline the cues are read on is from the card's corners
    # (card widths), and whether the pinta is read, right, at both ends of the card
    corner_errors: list[float] = field(default_factory=list)
    pinta_both_ends: int = 0
    latencies: list[float] = field(default_factory=list)

    def add_card(self, truth: Placed, reading: Reading | None) -> None:
        self.cards += 1
        named = reading.card if reading else None
        self.found += reading is not None
        if reading is not None and reading.figure_of is not None:
            self.figures_of += 1
            self.figures_of_wrong += (truth.card.rank not in FIGURES
                                      or truth.card.suit != reading.figure_of)
        easy = truth.tilt <= 30 and truth.occlusion <= 0.15
        self.easy_cards += easy
        self.easy_abstained += easy and named is None
        if easy:
            counts = self.easy_by_rank.setdefault(truth.card.rank, [0, 0])
            counts[0] += 1
            counts[1] += named is None
        if named is None:
            return
        self.answered += 1
        self.correct += named == truth.card
        self.wrong += named != truth.card
        if reading is not None and reading.by_cues:
            self.by_cues += 1
            self.by_cues_wrong += named != truth.card
        self.suit_correct += named.suit == truth.card.suit


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance in card widths, for the best corner order."""
    width = float(np.linalg.norm(truth[1] - truth[0]))
    return min(float(np.linalg.norm(np.roll(found, r, axis=0) - truth, axis=1).max())
               for r in range(4)) / width


def match(scene: Scene, readings: list[Reading]) -> tuple[list[Reading | None], list[Reading]]:
    """Pair true cards and readings (centre inside the card, closest corners first); the rest."""
    pairs = []
    for g, truth in enumerate(scene.cards):
        poly = truth.corners.reshape(-1, 1, 2).astype(np.float32)
        for r, reading in enumerate(readings):
            centre = tuple(float(v) for v in reading.corners.mean(axis=0))
            if cv2.pointPolygonTest(poly, centre, False) > 0:
                pairs.append((corner_error(reading.corners, truth.corners), g, r))
    found: list[Reading | None] = [None] * len(scene.cards)
    used: set[int] = set()
    for _, g, r in sorted(pairs):
        if found[g] is None and r not in used:
            found[g] = readings[r]
            used.add(r)
    return found, [r for i, r in enumerate(readings) if i not in used]


def score_scene(tally: Tally, scene: Scene, readings: list[Reading]) -> None:
    found, extra = match(scene, readings)
    for truth, reading in zip(scene.cards, found):
        tally.add_card(truth, reading)
        if reading is not None and truth.tilt <= 30 and truth.occlusion <= 0.15:
            tally.corner_errors.append(corner_error(reading.outline, truth.corners))
            ends = read_pintas(cue_image(reading, scene.image))
            tally.pinta_both_ends += ends == (truth.card.suit, truth.card.suit)
    tally.phantom += sum(1 for r in extra if r.card is not None)
    tally.figures_of_wrong += sum(1 for r in extra if r.figure_of is not None)
    if not scene.cards:
        tally.empty_frames += 1
        tally.empty_frames_named += any(r.card is not None for r in readings)
    if len(scene.cards) >= 2:
        tally.hands += 1
        tally.hands_of_three += len(scene.cards) == 3
        cards, _, _ = shown_hand(readings)
        # a card out of sight is no wrong envido value: only hands read whole are compared
        if cards is not None and len(cards) == len(scene.cards):
            same = envido_value(cards) == envido_value(t.card for t in scene.cards)
            tally.envido_correct += same
            tally.envido_wrong += not same
        truth = [t.card for t in scene.cards]
        for declared, counts in ((envido_value(truth), tally.honest),
                                 (false_claim(truth), tally.false_claims)):
            shown = verdict_hand(readings, declared)[0]
            if shown is not None:
                right = (declared in envido_values_made(shown)) == (declared in envido_values_made(truth))
                counts[0 if right else 1] += 1


def false_claim(cards: list[Card]) -> int:
    """A number these cards do not make: the next possible envido above their own (or below)."""
    made = envido_values_made(cards)
    lies = [v for v in range(34) if is_possible_envido(v) and v not in made]
    above = [v for v in lies if v > envido_value(cards)]
    return above[0] if above else max(lies)


def run_scenes(recognizer: Recognizer, deck: dict[Card, Face], count: int, seed: int,
               opts: SceneOptions, late: Tally | None = None) -> Tally:
    """Read ``count`` scenes in turn; ``late``, if given, also counts the second half of them
    (a recognizer that learns the deck as it reads has learned most of it by then)."""
    rng = np.random.default_rng(seed)
    tally = Tally()
    for i in range(count):
        scene = random_scene(deck, rng, opts)
        start = time.perf_counter()
        readings = recognizer.read(scene.image)
        tally.latencies.append(time.perf_counter() - start)
        score_scene(tally, scene, readings)
        if late is not None and i >= count // 2:
            score_scene(late, scene, readings)
        if (i + 1) % 50 == 0:
            print(f"  {i + 1}/{count} scenes", file=sys.stderr)
    return tally


def pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:5.1f}%" if den else "  n/a "


def report(name: str, t: Tally) -> None:
    named = t.answered + t.phantom
    print(f"\n== {name}")
    print(f"  cards in scenes            {t.cards}")
    print(f"  cards found (outlined)     {pct(t.found, t.cards)}")
    print(f"  card accuracy              {pct(t.correct, t.cards)}")
    print(f"  suit accuracy              {pct(t.suit_correct, t.cards)}")
    print(f"  envido-value accuracy      {pct(t.envido_correct, t.hands)}   (wrong envido: "
          f"{pct(t.envido_wrong, t.hands).strip()} of {t.hands} frames with 2-3 cards)")
    print(f"  envido verdict abstentions {pct(t.hands - t.envido_correct - t.envido_wrong, t.hands)}")
    for claim, declared, (right, wrong) in (
            ("honest claims", "their envido", t.honest),
            ("false claims", "a number they do not make", t.false_claims)):
        print(f"  {claim + ' judged':26s} {pct(right + wrong, t.hands)}   ({pct(wrong, t.hands).strip()} "
              f"wrongly; the envido check on each frame of 2-3 cards, declared = {declared})")
    print(f"    frames of three cards    {pct(t.hands_of_three, t.hands)}   (with two, a false claim is "
          "judged only if no third card could make the number)")
    print(f"  abstentions (all)          {pct(t.cards - t.answered, t.cards)}")
    print(f"  abstentions (easy)         {pct(t.easy_abstained, t.easy_cards)}   "
          f"(tilt <= 30 deg, <= 15% hidden; {t.easy_cards} cards)")
    print("    by rank (abstained/cards)  " + "  ".join(
        f"{rank}: {n[1]}/{n[0]}" for rank, n in sorted(t.easy_by_rank.items())))
    print(f"  precision when answering   {pct(t.correct, named)}   ({t.wrong} wrong, "
          f"{t.phantom} named where there was no card)")
    print(f"  empty frames with a card   {t.empty_frames_named}/{t.empty_frames}")
    if t.corner_errors:
        print(f"  outline corners off        {100 * statistics.median(t.corner_errors):5.1f}%   (median, "
              f"of a card's width; easy cards outlined, the outline the cues are read on)")
        print(f"  pinta read at both ends    {pct(t.pinta_both_ends, len(t.corner_errors))}   "
              "(easy cards outlined, the suit right)")
    print(f"  named by the cues          {pct(t.by_cues, t.cards)}   ({t.by_cues_wrong} wrong)")
    print(f"  read as a figure of a suit {pct(t.figures_of, t.cards)}   ({t.figures_of_wrong} wrong; "
          f"abstained cards, counted as abstentions above)")


def bank_of(deck: dict[Card, Face], augmented: int = AUGMENTED, seed: int = SEED) -> Bank:
    """The reference bank the benchmark builds from a deck (its views drawn with ``seed + 1000``)."""
    return build_bank([deck], augmented=augmented, seed=seed + 1000)


def latency_scenes(deck: dict[Card, Face], size: tuple[int, int], frames: int) -> list[Scene]:
    """The frames ``latency`` times: the same ones on every run."""
    opts = SceneOptions(width=size[0], height=size[1])
    rng = np.random.default_rng(99)
    return [random_scene(deck, rng, opts) for _ in range(frames)]


def latency(recognizer: Recognizer, deck: dict[Card, Face], size: tuple[int, int],
            frames: int) -> None:
    """Time per frame.  A recognizer that learns is timed with the views it learns from a first
    pass over the frames, each frame read in turn by it and by the same recognizer without
    learning, so that what learning costs is told apart from a machine's changing speed."""
    scenes = latency_scenes(deck, size, frames)
    readers, learned = [recognizer], ""
    if recognizer.learned is not None:
        for scene in scenes:
            recognizer.read(scene.image)
        readers.append(Recognizer(recognizer.bank, replace(recognizer.settings, learn=False)))
        learned = f", {recognizer.learned.total} views learned before"
    times: list[list[float]] = [[] for _ in readers]
    cpu: list[float] = []
    for scene in scenes:
        for reader, took in zip(readers, times):
            start, start_cpu = time.perf_counter(), time.process_time()
            reader.read(scene.image)
            took.append(time.perf_counter() - start)
            if reader is recognizer:
                cpu.append(time.process_time() - start_cpu)
    med = statistics.median(times[0])
    print(f"  {size[0]}x{size[1]}: median {1000 * med:6.1f} ms/frame, "
          f"mean {1000 * statistics.fmean(times[0]):6.1f} ms, {1 / med:5.1f} frames/s (one core{learned}); "
          f"CPU median {1000 * statistics.median(cpu):6.1f} ms, mean {1000 * statistics.fmean(cpu):6.1f} ms")
    if len(times) > 1:
        plain = statistics.median(times[1])
        print(f"  {size[0]}x{size[1]} without learning, the same frames in turn: median "
              f"{1000 * plain:6.1f} ms/frame, mean {1000 * statistics.fmean(times[1]):6.1f} ms, "
              f"{1 / plain:5.1f} frames/s")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cards", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenes", type=int, default=200, help="scenes per test (default 200)")
    p.add_argument("--seed", type=int, default=SEED, help=f"random seed for the scenes (default {SEED})")
    p.add_argument("--mode", choices=("calibrated", "held-out", "both"), default="both")
    p.add_argument("--deck", action="append", type=Path,
                   help="deck folder (repeatable; default: the two decks in ../shared/cards)")
    p.add_argument("--max-tilt", type=float, default=40.0, help="largest tilt in degrees (default 40)")
    p.add_argument("--augmented", type=int, default=AUGMENTED, help="augmented views per card in the bank")
    p.add_argument("--bank", action="append", metavar="NAME",
                   help="build the bank only from this deck folder name (repeatable; default: each deck)")
    p.add_argument("--no-cues", action="store_true",
                   help="name cards from the bank's confidence only, without the pip, colour and "
                        "pinta check")
    p.add_argument("--no-figures", action="store_true",
                   help="do not read an unsure figure as 'a figure of <suit>' for the envido")
    p.add_argument("--no-figure-ranks", action="store_true",
                   help="do not name a figure from its picture (sota, caballo, rey)")
    p.add_argument("--no-snap", action="store_true",
                   help="read each card on the finder's outline, its sides not snapped onto the "
                        "card's edges")
    p.add_argument("--far-card", type=float, default=RecognizerSettings.far_card,
                   help="read a card-shaped outline the bank finds this close or closer, below "
                        "'not a card', when its cues name it (0.45: never)")
    p.add_argument("--learn", action="store_true",
                   help="learn views of the scenes' deck from the cards named, as the scenes go on "
                        "(a new recognizer for each test; also reports the second half of the scenes)")
    p.add_argument("--latency-frames", type=int, default=40, help="frames per latency size (0: skip)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cv2.setNumThreads(1)
    folders = args.deck or sorted(p for p in SHARED_CARDS.glob("*") if p.is_dir())
    if not folders:
        print(f"no decks given and none found in {SHARED_CARDS}", file=sys.stderr)
        return 2
    decks = {f.name: load_deck(f) for f in folders}
    banks: dict[str, Bank] = {}
    for name, deck in decks.items():
        if args.bank and name not in args.bank:
            continue
        print(f"building bank for {name} ({len(deck)} cards x {args.augmented + 1} views)", file=sys.stderr)
        banks[name] = bank_of(deck, args.augmented, args.seed)
    if not banks:
        print(f"--bank must name one of: {', '.join(decks)}", file=sys.stderr)
        return 2
    opts = SceneOptions(max_tilt=args.max_tilt)
    settings = RecognizerSettings(use_cues=not args.no_cues, use_figures=not args.no_figures,
                                  figure_ranks=not args.no_figure_ranks, snap_edges=not args.no_snap,
                                  far_card=args.far_card, learn=args.learn)
    for bank_name, bank in banks.items():
        for test_name, deck in decks.items():
            calibrated = bank_name == test_name
            if args.mode != "both" and calibrated != (args.mode == "calibrated"):
                continue
            kind = "calibrated to this deck" if calibrated else "held-out deck"
            recognizer = Recognizer(bank, settings)
            late = Tally() if args.learn else None
            tally = run_scenes(recognizer, deck, args.scenes, args.seed, opts, late)
            title = (f"bank {bank_name} -> scenes {test_name} ({kind}, {args.scenes} scenes, "
                     f"seed {args.seed}{', learning the deck' if args.learn else ''})")
            report(title, tally)
            if late is not None and recognizer.learned is not None:
                report(f"{title}: the second half of the scenes "
                       f"({recognizer.learned.total} views learned in all)", late)
    if args.latency_frames:
        name = next(iter(banks))
        test_name = next((n for n in decks if n != name), name) if args.mode == "held-out" else name
        print(f"\n== latency (bank {name}, scenes {test_name}, cv2.setNumThreads(1), detection + reading)")
        for size in ((640, 480), (1280, 720)):
            latency(Recognizer(banks[name], settings), decks[test_name], size, args.latency_frames)
    return 0


if __name__ == "__main__":
    sys.exit(main())

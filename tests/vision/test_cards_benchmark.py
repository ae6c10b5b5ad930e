"""``benchmarks.cards --learn``: the second half of the scenes is counted apart as well, and the
latency is timed with and without learning on the same frames; ``benchmarks.cards_instructions``
reads the latency frames it is asked to."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import cards_instructions
from benchmarks.cards import Tally, latency, run_scenes
from engine.cards import Card
from referee.vision.bank import Bank
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import SceneOptions, random_scene


def test_the_late_tally_counts_the_second_half_of_the_scenes(
        wikimedia_bank: Bank, fournier: dict[Card, Face]) -> None:
    opts = SceneOptions(empty_rate=0.0)
    rng = np.random.default_rng(4)
    shown = [len(random_scene(fournier, rng, opts).cards) for _ in range(6)]
    late = Tally()
    tally = run_scenes(Recognizer(wikimedia_bank, RecognizerSettings(learn=True)), fournier, 6, 4,
                       opts, late)
    assert tally.cards == sum(shown)
    assert late.cards == sum(shown[3:])
    assert late.correct <= tally.correct


def test_a_learning_readers_latency_is_timed_beside_the_same_reader_without_learning(
        wikimedia_bank: Bank, fournier: dict[Card, Face], capsys: pytest.CaptureFixture[str]) -> None:
    latency(Recognizer(wikimedia_bank, RecognizerSettings(learn=True)), fournier, (320, 240), 3)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "views learned" in lines[0] and lines[0].lstrip().startswith("320x240: median")
    assert lines[1].lstrip().startswith("320x240 without learning, the same frames in turn: median")
    latency(Recognizer(wikimedia_bank), fournier, (320, 240), 3)
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_the_instruction_count_reads_the_first_latency_frames_with_a_bank_built_before(
        fournier: dict[Card, Face], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks.cards_instructions`` reads the first N latency frames (the frames
    ``latency`` times, at 640×480) with the bank ``--prepare`` saved, and none with N = 0, so
    that the difference of two callgrind runs is the reading alone."""
    bank = tmp_path / "bank.npz"
    assert cards_instructions.main(["--prepare", str(bank)]) == 0
    read: list[np.ndarray] = []
    monkeypatch.setattr(Recognizer, "read", lambda self, frame: read.append(frame) or [])
    assert cards_instructions.main(["--bank", str(bank), "--frames", "0"]) == 0
    assert read == []
    assert cards_instructions.main(["--bank", str(bank), "--frames", "2"]) == 0
    rng = np.random.default_rng(99)
    first = [random_scene(fournier, rng, SceneOptions(width=640, height=480)).image for _ in range(2)]
    assert len(read) == 2 and all(np.array_equal(a, b) for a, b in zip(read, first))

"""The speech benchmark's latency with the decoding: what a machine that decodes as it hears adds
to the audio time between the end of a phrase and its call."""

from __future__ import annotations

import pytest

from benchmarks.speech_corpus import Item
from benchmarks.speech_listening import delays
from benchmarks.speech_scoring import Outcome, score


def test_a_chunk_that_takes_longer_than_the_next_one_takes_to_arrive_delays_that_one_too() -> None:
    # chunks heard at 0.1, 0.2 and 0.3 s; the second one's end of phrase takes 0.25 s of CPU
    waits = delays([0.1, 0.2, 0.3], [0.05, 0.25, 0.01])
    assert waits == pytest.approx([0.05, 0.25, 0.16])


def test_a_machine_that_keeps_up_adds_only_each_chunks_own_time() -> None:
    assert delays([0.1, 0.2, 0.3], [0.02, 0.03, 0.01]) == pytest.approx([0.02, 0.03, 0.01])


def test_each_call_waits_for_the_chunk_that_handed_its_utterance_over() -> None:
    item = Item("q.wav", "quiero retruco", "quiero+retruco", "call", "v")
    # «quiero» handed over early (0.02 s after its chunk), «retruco» at the end of the phrase
    heard: list[tuple[str, float, float, int, int | None]] = [("quiero", 0.9, 0.15, 0, 7),
                                                              ("retruco", 0.9, 0.2, 1, 7)]
    outcome = Outcome(item, heard, 1.0, 0.1, busy_s=[0.02, 0.3])
    assert outcome.latencies(0.6) == pytest.approx([0.15, 0.2])
    assert outcome.latencies(0.6, busy=True) == pytest.approx([0.17, 0.5])
    s = score([outcome], 0.6)
    assert s.latencies == pytest.approx([0.15]) and s.busy_latencies == pytest.approx([0.17])


def test_the_slowest_calls_are_named_with_their_latency(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.speech import report

    quick = Outcome(Item("t.wav", "truco", "truco", "call", "v1", "fast/low"), [("truco", 0.9, 0.1, 0, 1)], 1.0, 0.1)
    slow = Outcome(Item("f.wav", "flor", "flor", "call", "v2", "slow/high"), [("flor", 0.95, 0.8, 0, 2)], 1.0, 0.1)
    report("sphinx-es", "clean", score([quick, slow], 0.6), 0, show_slow=1)
    slowest = [line for line in capsys.readouterr().out.splitlines() if "slow:" in line]
    assert slowest == ["    slow: 800 ms  v2 slow/high: «flor»"]

"""The speech benchmark's noise: the prompts of a calibration in the table's noise get the test
files' noise, and the noise goes on after a file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.speech_corpus import (
    NOISE_LEAD_S,
    NOISE_TAIL_S,
    file_seconds,
    heard,
    load_items,
    speech_end,
)
from benchmarks.speech_listening import init_worker, run_one
from benchmarks.speech_voices import _prompt, calibration_script
from referee.wav import read_pcm, read_wav


def _in_noise(file: str, snr: float) -> bytes:
    """A calibration prompt said in noise at ``snr``, as the benchmark calibrates on it."""
    return _prompt(file, str(snr), None, False)


def test_prompts_said_in_noise_keep_their_length_and_get_noise_at_that_snr(shared_dir: Path) -> None:
    file, text = calibration_script("mbrola:es3")[0]
    clean = np.frombuffer(read_pcm(shared_dir / "speech" / file), "<i2").astype(float)
    for snr in (20.0, 10.0):
        noisy = np.frombuffer(_in_noise(file, snr), "<i2").astype(float)
        assert len(noisy) == len(clean)
        lead = 4000  # the 0.25 s of silence at each end: the SNR is the speech part's
        speech, noise = clean[lead:-lead], (noisy - clean)[lead:-lead]
        measured = 10 * np.log10(np.mean(speech**2) / np.mean(noise**2))
        assert abs(measured - snr) < 0.5, (text, snr, measured)
    assert _in_noise(file, 10.0) == _in_noise(file, 10.0)  # the same stretch of noise every run


def test_a_file_heard_in_noise_has_the_noise_around_it_and_its_speech_end_known(
        shared_dir: Path) -> None:
    """A call is said into a table's noise, which does not stop when the call ends: the benchmark's
    noisy files start ``NOISE_LEAD_S`` early and go on ``NOISE_TAIL_S`` with the same noise at the
    same level; latency counts from where the speech ended, not from the end of what was heard."""
    item = next(it for it in load_items("tuning", 2) if it.group == "call")
    clean = read_wav(shared_dir / "speech" / item.file)[:, 0]
    noisy = heard(item.file, 5, "10", tail_s=NOISE_TAIL_S, lead_s=NOISE_LEAD_S)[:, 0]
    lead = int(NOISE_LEAD_S * 16000)
    assert len(noisy) == lead + len(clean) + int(NOISE_TAIL_S * 16000)
    during = noisy[lead: lead + len(clean)] - clean
    for outside in (noisy[:lead], noisy[lead + len(clean):]):
        assert abs(np.sqrt(np.mean(outside**2)) / np.sqrt(np.mean(during**2)) - 1) < 0.5
    assert speech_end(item) == len(clean) / 16000 - 0.25


def test_the_benchmark_hears_a_noisy_call_and_the_noise_after_it(shared_dir: Path) -> None:
    """One call through a benchmark worker at 10 dB: heard, its latency counted from where its
    speech ended, and the noise heard around the file counted apart."""
    init_worker("sphinx-es", "10", None, None)
    item = next(it for it in load_items("tuning", 60) if it.group == "call" and it.label == "retruco")
    outcome = run_one(replace(item, moment="truco cantado"))
    assert outcome.audio_s - outcome.after_s == file_seconds(item.file)
    assert abs(outcome.after_s - NOISE_LEAD_S - NOISE_TAIL_S) < 0.01
    assert 0 < outcome.cpu_s < outcome.audio_s
    latencies = {label: latency for label, _, latency, _, _ in outcome.heard}
    assert "retruco" in latencies and 0.0 <= latencies["retruco"] < 1.0


def test_only_the_prompts_through_the_line_asks_for_a_calibration(
        capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.speech import main

    with pytest.raises(SystemExit) as exit_:
        main(["--narrowband", "prompts"])
    assert exit_.value.code == 2 and "add --calibrate" in capsys.readouterr().err

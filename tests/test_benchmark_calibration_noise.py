"""The speech benchmark's calibration in the table's noise: the prompts get the test files' noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.speech_voices import _in_noise, calibration_script
from referee.wav import read_pcm


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

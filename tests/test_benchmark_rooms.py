"""The speech benchmarks' rooms and microphones: a voice said in a room, and heard by two
microphones at different distances."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.speech_corpus import NOISE_LEAD_S, NOISE_TAIL_S, in_room, room_response
from benchmarks.two_mics import devices, frames, two_mics


def test_a_room_response_is_the_direct_sound_then_a_tail_that_dies_in_rt60() -> None:
    h = room_response(0.5, 0.0, seed=1)
    assert len(h) == 8000 and h[0] == 1.0
    assert np.all(h[1:40] == 0.0)  # nothing before the first reflection, 2.5 ms on
    assert abs(float(np.sum(h[1:] ** 2)) - 1.0) < 1e-9  # as loud as the direct sound at DRR 0
    first, last = np.sum(h[40:800] ** 2), np.sum(h[-800:] ** 2)
    assert 10 * np.log10(first / last) > 40  # about 60 dB down over the reverberation time
    assert abs(float(np.sum(room_response(0.5, 10.0, seed=1)[1:] ** 2)) - 0.1) < 1e-9


def test_a_recording_in_a_room_keeps_its_length_and_level_and_rings_on() -> None:
    dry = np.zeros((16000, 1))
    dry[4000:4400, 0] = 0.3 * np.sin(np.arange(400) / 3)
    wet = in_room(dry, 0.4, 0.0, seed=2)
    assert wet.shape == dry.shape
    assert abs(np.sqrt(np.mean(wet**2)) / np.sqrt(np.mean(dry**2)) - 1) < 1e-6
    assert np.sqrt(np.mean(wet[5000:6000] ** 2)) > 0.01  # the voice still heard after it stopped
    assert np.array_equal(in_room(dry, 0.4, 0.0, seed=2), wet)


def _a_file(shared_dir: Path) -> str:
    """One held-out voice's first file, as the corpus names it."""
    folder = shared_dir / "speech" / "clean" / "mbrola-es3"
    return "clean/mbrola-es3/" + min(p.name for p in folder.glob("*.wav"))


def test_two_microphones_hear_one_voice_later_and_quieter_each_with_its_own_noise(
        shared_dir: Path) -> None:
    file = _a_file(shared_dir)
    lead = int(NOISE_LEAD_S * 16000)  # the noise starts before the file
    near, far = two_mics(file, seed=3, snr_db=60.0, gain=0.5, delay=32)
    near, far = near[lead:], far[lead:]
    lag = int(np.argmax(np.correlate(far[:8000], near[:8000], "full"))) - 7999
    assert lag == 32
    assert abs(np.sqrt(np.mean(far**2)) / np.sqrt(np.mean(near**2)) - 0.5) < 0.01
    near, far = two_mics(file, seed=3, snr_db=None, gain=0.5, delay=32)
    noisy_near, noisy_far = two_mics(file, seed=3, snr_db=0.0, gain=0.5, delay=32)
    longer = lead + len(near) + int(NOISE_TAIL_S * 16000)  # and goes on after it
    assert len(noisy_near) == len(noisy_far) == longer
    said = slice(lead, lead + len(near))
    own_near, own_far = noisy_near[said] - near, noisy_far[said] - far  # each one's noise
    assert abs(np.corrcoef(own_near, own_far)[0, 1]) < 0.5
    for outside in (noisy_near[:lead], noisy_near[lead + len(near):]):
        assert abs(np.sqrt(np.mean(outside**2)) / np.sqrt(np.mean(own_near**2)) - 1) < 0.5
    both = frames(file, 3, "loudest", 60.0, 0.5, 32)
    assert both.shape == (longer, 2)
    assert frames(file, 3, "average", 60.0, 0.5, 32).shape == (longer, 1)


def test_two_microphones_can_hear_one_noise_in_the_room_alike(shared_dir: Path) -> None:
    file = _a_file(shared_dir)
    near, far = two_mics(file, seed=3, snr_db=None, gain=0.5, delay=32)
    noisy_near, noisy_far = two_mics(file, seed=3, snr_db=0.0, gain=0.5, delay=32, noise="shared")
    own_near, _ = two_mics(file, seed=3, snr_db=0.0, gain=0.5, delay=32)
    lead = int(NOISE_LEAD_S * 16000)
    said = slice(lead, lead + len(near))
    heard_near, heard_far = noisy_near[said] - near, noisy_far[said] - far
    assert np.allclose(heard_near, heard_far, atol=1e-6)  # the same noise, as loud, at both
    assert np.array_equal(noisy_near[:lead], noisy_far[:lead])
    assert np.array_equal(noisy_near, own_near)  # the near microphone's noise is the same either way
    quiet = two_mics(file, seed=3, snr_db=10.0, gain=0.5, delay=32, noise="shared")[1][said] - far
    radio = two_mics(file, seed=3, snr_db=10.0, gain=0.5, delay=32, noise="shared",
                     far_noise_db=6.0)[1][said] - far  # a radio by the far microphone
    assert np.allclose(radio, 10 ** (6 / 20) * quiet, atol=1e-6)


def test_in_a_room_the_near_microphone_hears_the_voice_clearer_than_the_far_one(
        shared_dir: Path) -> None:
    file = _a_file(shared_dir)
    dry, _ = two_mics(file, seed=3, snr_db=None, gain=1.0, delay=0)
    near, far = two_mics(file, seed=3, snr_db=None, gain=1.0, delay=0, room=(0.3, 10.0, -5.0))
    assert len(near) == len(far) == len(dry)
    assert np.corrcoef(dry, near)[0, 1] > 0.9 > np.corrcoef(dry, far)[0, 1]


def test_two_devices_hand_over_the_file_once_whatever_their_chunks_phase() -> None:
    """``--heard devices``: the two microphones' sound through ``TeamMics`` as two devices whose
    chunks end 0, 50 or 90 ms apart is the file's length, the voice in it once, taken from the
    nearer microphone where it talks."""
    t = np.arange(24000) / 16000
    voice = np.where((t >= 0.6) & (t < 0.9), 0.3 * np.sin(2 * np.pi * 220 * t), 0.0)
    both = np.stack([voice + 0.001, 0.5 * voice + 0.001], axis=1)
    for phase_s in (0.0, 0.05, 0.09):
        heard = devices(both, seed=7, phase_s=phase_s)
        assert sum(c.duration for c in heard) == pytest.approx(1.5, abs=0.02), phase_s
        loud = [c for c in heard if max(c.levels) > 0.05]
        assert 0.3 <= sum(c.duration for c in loud) <= 0.41, phase_s  # the chunks it spans
        pcm = np.concatenate([np.frombuffer(c.pcm, "<i2") for c in heard]) / 32767
        talking = np.flatnonzero(np.abs(pcm) > 0.2)  # only the near one's voice is that loud
        assert talking[-1] - talking[0] < 0.31 * 16000, phase_s


def test_a_slower_far_device_is_heard_in_step_once_it_has_heard_the_table() -> None:
    """``--latency-ms 150``: the far device hands over each moment 150 ms after the near one.
    Warm (the devices heard the file over and over before it), a voice is loud at the same moments in both
    microphones' levels, timed from the near one's first sound; ``--cold`` too, the lag measured
    on the voice's first second before it goes on (heard as they came, they were apart)."""
    rng = np.random.default_rng(3)
    t = np.arange(48000) / 16000
    voice = rng.normal(0, 0.2, len(t)) * np.abs(np.sin(2 * np.pi * 2 * t)) * ((t >= 1) & (t < 2))
    both = np.stack([voice + rng.normal(0, 0.002, len(t)), voice / 2 + rng.normal(0, 0.002, len(t))],
                    axis=1)

    def loud(heard: list, mic: int) -> list[float]:
        return [round(c.t, 2) for c in heard if c.levels[mic] > 0.02]

    warm = devices(both, seed=7, phase_s=0.05, latency_s=0.15)
    assert loud(warm, 0) == loud(warm, 1) != []
    assert min(c.t for c in warm if not np.isnan(c.levels[0])) == pytest.approx(0.0, abs=1e-9)
    cold = devices(both, seed=7, phase_s=0.05, latency_s=0.15, warm=False)
    assert loud(cold, 0) == loud(cold, 1) != []

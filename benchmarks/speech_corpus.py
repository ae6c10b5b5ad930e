"""The speech benchmark's corpus: its files by voice and group, and noise mixed in."""

from __future__ import annotations

import csv
import random
import wave
import zlib
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
SPEECH = SHARED / "speech"
TUNING_VOICES = {"espeak-ng:es", "pico:es-ES", "mbrola:es1"}
LEAD_SILENCE_S = 0.25
# How long a noisy condition's noise goes on after the file: a table's noise does not stop when a
# call ends, and a phrase that only ends once it does would otherwise look quick.
NOISE_TAIL_S = 1.0
# And how long it has gone on before: a call is said into the table's noise, which the referee has
# heard for a while (and, in a pause, learned the background from).
NOISE_LEAD_S = 1.0


@dataclass(frozen=True)
class Item:
    file: str
    text: str
    label: str
    group: str
    voice: str
    render: str = ""  # speed/pitch of a synthetic file
    moment: str = ""  # the moment of a hand it is said at (``game_states.MOMENTS``), if any


def load_items(voices: str, limit: int | None, seed: int = 7) -> list[Item]:
    """Corpus items (synthetic and real) for the requested voice split, sampled per group."""
    items: list[Item] = []
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            tuning = row["voice"] in TUNING_VOICES
            if voices == "all" or (voices != "real" and (voices == "tuning") == tuning):
                items.append(Item(row["file"], row["text"], row["label"], row["group"], row["voice"],
                                  f"{row['speed']}/{row['pitch']}"))
    if voices != "tuning":
        with (SPEECH / "real_manifest.csv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                label = row["label"] if row["label"] != "none?" else "none"
                group = "real_call" if label != "none" and not label.startswith("puntos") else (
                    "real_points" if label.startswith("puntos") else "real_other")
                if row["text"] == "con flor me achico":
                    label, group = "con flor me achico", "real_call"
                if row["text"] == "contra flor al resto":
                    label = "contraflor al resto"
                items.append(Item(row["file"], row["text"], label, group, row["accent"]))
    if limit:
        rng = random.Random(seed)
        by_group: dict[str, list[Item]] = defaultdict(list)
        for it in items:
            by_group[it.group].append(it)
        items = [it for g in sorted(by_group) for it in
                 rng.sample(by_group[g], min(limit, len(by_group[g])))]
    return items


def speech_power(frames: np.ndarray) -> float:
    """The mean power of a corpus file's speech part (the file minus its silent ends)."""
    mono = frames[:, 0]
    lead = int(LEAD_SILENCE_S * 16000)
    speech = mono[lead:-lead] if len(mono) > 2 * lead + 160 else mono
    return float(np.mean(speech**2)) or 1e-12


def mix_noise(frames: np.ndarray, snr_db: float, noise: np.ndarray, rng: random.Random,
              power: float | None = None) -> np.ndarray:
    """Add noise at ``snr_db`` relative to the speech part (the file minus its silent ends), or to
    a speech ``power`` given (another microphone's)."""
    mono = frames[:, 0]
    p_speech = speech_power(frames) if power is None else power
    start = rng.randrange(0, max(1, len(noise) - len(mono)))
    seg = np.resize(noise[start:start + len(mono)], len(mono))
    p_noise = float(np.mean(seg**2)) or 1e-12
    gain = np.sqrt(p_speech / (p_noise * 10 ** (snr_db / 10)))
    return np.clip(mono + gain * seg, -1.0, 1.0)[:, None]


def noisy(frames: np.ndarray, snr_db: float, seed: int, tail_s: float = 0.0,
          lead_s: float = 0.0) -> np.ndarray:
    """Frames with one of the corpus's noises mixed in at ``snr_db``, starting ``lead_s`` seconds
    before them and going on ``tail_s`` seconds after them (a table's noise does not stop when a
    call ends); the noise and its stretch are chosen by ``seed``."""
    rng = random.Random(seed)
    width = frames.shape[1]
    longer = np.concatenate([np.zeros((int(lead_s * 16000), width)), frames,
                             np.zeros((int(tail_s * 16000), width))])
    return mix_noise(longer, snr_db, rng.choice(noises()), rng, speech_power(frames))


@cache
def noises() -> tuple[np.ndarray, ...]:
    """The corpus's noises (``noise/*.wav``), read once per process."""
    from referee.wav import read_wav

    return tuple(read_wav(p)[:, 0] for p in sorted((SPEECH / "noise").glob("*.wav")))


def room_response(rt60: float, drr_db: float, seed: int) -> np.ndarray:
    """A room's impulse response at 16 kHz, in the usual synthetic model: the direct sound, then
    from 2.5 ms on a tail of white noise whose energy falls 60 dB in ``rt60`` seconds, ``drr_db``
    below the direct sound's energy in all (0 dB: a voice at the room's critical distance, about
    half a metre to a metre in a living room)."""
    rng = np.random.default_rng(seed)
    t = np.arange(max(2, int(rt60 * 16000))) / 16000
    tail = rng.standard_normal(len(t)) * 10 ** (-3 * t / rt60)
    tail[: int(0.0025 * 16000)] = 0.0
    tail *= np.sqrt(10 ** (-drr_db / 10) / float(np.sum(tail**2)))
    tail[0] = 1.0
    return tail


def in_room(frames: np.ndarray, rt60: float, drr_db: float, seed: int) -> np.ndarray:
    """A recording as a microphone in a room hears it (``room_response``), as long and as loud as
    it was."""
    dry = frames[:, 0]
    h = room_response(rt60, drr_db, seed)
    size = 1 << (len(dry) + len(h) - 1).bit_length()
    wet = np.fft.irfft(np.fft.rfft(dry, size) * np.fft.rfft(h, size), size)[: len(dry)]
    wet *= np.sqrt((float(np.mean(dry**2)) or 1e-12) / (float(np.mean(wet**2)) or 1e-12))
    return np.clip(wet, -1.0, 1.0)[:, None]


LINE_HZ = 3700.0  # an 8 kHz line: what its filters leave of the sound


def through_line(frames: np.ndarray) -> np.ndarray:
    """A recording as a microphone on an 8 kHz line (a Bluetooth headset's, a telephone's)
    hands it over at 16 kHz: nothing above ``LINE_HZ``."""
    spectrum = np.fft.rfft(frames[:, 0])
    spectrum[np.fft.rfftfreq(len(frames), 1 / 16000) > LINE_HZ] = 0.0
    return np.clip(np.fft.irfft(spectrum, len(frames)), -1.0, 1.0)[:, None]


def clipped(frames: np.ndarray, over_db: float) -> np.ndarray:
    """A recording as a microphone turned up too far hands it over: louder until its loudest
    sample stands ``over_db`` dB above full scale, and cut flat there."""
    peak = float(np.abs(frames).max()) or 1.0
    return np.clip(frames * (10 ** (over_db / 20) / peak), -1.0, 1.0)


def heard(file: str, seed: int, snr: str, room: tuple[float, float] | None = None,
          line: bool = False, tail_s: float = 0.0, lead_s: float = 0.0,
          clip: float | None = None) -> np.ndarray:
    """A corpus file as a microphone hears it: said in a ``room`` (RT60, DRR: ``in_room``) if
    one is given, with the corpus's noise mixed in at ``snr`` (or "clean") from ``lead_s``
    seconds before it to ``tail_s`` after it, cut flat ``clip`` dB above full scale if asked
    (``clipped``: the noise too), and handed over through an 8 kHz ``line`` (``through_line``)
    if asked: the line carries the table's noise too."""
    from referee.wav import read_wav

    frames = read_wav(SPEECH / file)
    if room:
        frames = in_room(frames, room[0], room[1], seed)
    if snr != "clean":
        frames = noisy(frames, float(snr), seed, tail_s, lead_s)
    if clip is not None:
        frames = clipped(frames, clip)
    return through_line(frames) if line else frames


@cache
def synthetic_voices() -> frozenset[str]:
    """The corpus's synthetic voices (each said every text of the script)."""
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        return frozenset(row["voice"] for row in csv.DictReader(fh))


def voice_files() -> dict[str, list[str]]:
    """Every corpus file by voice, synthetic and real."""
    out: dict[str, list[str]] = defaultdict(list)
    for manifest, voice in (("manifest.csv", "voice"), ("real_manifest.csv", "accent")):
        with (SPEECH / manifest).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                out[row[voice]].append(row["file"])
    return out


def file_seed(item: Item) -> int:
    """A number fixed by the item's file: its noise, and which half of its voice's files it is in."""
    return zlib.crc32(item.file.encode())


@cache
def file_seconds(file: str) -> float:
    """How long a corpus file is (seconds), the noise that goes on after it left out; its header
    read once (the latency and the real-time factor both ask)."""
    with wave.open(str(SPEECH / file)) as wav:
        return wav.getnframes() / wav.getframerate()


def speech_end(item: Item) -> float:
    """Where the speech of an item's file ends (seconds): before the synthetic files' known
    silence, or ``spoken_end`` for the real recordings."""
    return file_seconds(item.file) - LEAD_SILENCE_S if item.render else spoken_end(item.file)


def spoken_end(file: str) -> float:
    """Where the speech of a recording ends (seconds): the end of its last 10 ms frame within
    26 dB of its loudest.  The synthetic files end with a known 0.25 s of silence; the real
    recordings with anything from none to more than a second."""
    from referee.wav import read_wav

    x = read_wav(SPEECH / file)[:, 0]
    n = len(x) // 160
    rms = np.sqrt(np.mean(x[: n * 160].reshape(n, 160) ** 2, axis=1))
    loud = np.flatnonzero(rms >= 0.05 * rms.max()) if n else np.array([], dtype=int)
    return (int(loud[-1]) + 1) * 0.01 if len(loud) else len(x) / 16000

"""Audio as the referee takes it in: 16 kHz mono int16 chunks, from the microphone
(``referee.microphone``) or a WAV file (``referee.wav``).

With several channels (one microphone per team) the chunk keeps each channel's loudness, so the
listener can tell which team spoke, and recognition hears the loudest channel of each chunk, as
with two microphones on two devices (``referee.mics``).  Not their average: two microphones at
different distances from a voice hear it at different times, and their sum cancels some of its
frequencies (a comb filter): at 10 dB SNR it heard 35.3% of the calls where the louder channel heard
51.3% (`benchmarks.two_mics`; docs/voice.md, "Who said it").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16000
CHUNK_S = 0.1


class AudioError(RuntimeError):
    """Audio could not be read; ``code`` is stable, ``message`` is for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class AudioChunk:
    """A slice of 16 kHz mono int16 audio starting ``t`` seconds into the stream, with the RMS level
    of each input channel (one value for a mono source)."""

    pcm: bytes
    t: float
    levels: tuple[float, ...]

    @property
    def duration(self) -> float:
        return len(self.pcm) / 2 / SAMPLE_RATE


def to_chunk(frames: np.ndarray, t: float) -> AudioChunk:
    """Float frames (frames × channels, -1..1) → a chunk: the loudest channel's sound, with each
    channel's RMS level."""
    levels = tuple(float(np.sqrt(np.mean(frames[:, c] ** 2))) if len(frames) else 0.0
                   for c in range(frames.shape[1]))
    mono = frames[:, levels.index(max(levels))]
    pcm = np.clip(np.round(mono * 32767.0), -32768, 32767).astype("<i2").tobytes()
    return AudioChunk(pcm=pcm, t=t, levels=levels)


def to_pcm(frames: np.ndarray, chunk_s: float = CHUNK_S) -> bytes:
    """Float frames (frames × channels) → the recognizers' PCM, a chunk at a time as they are heard
    live (the loudest channel of each)."""
    step = max(1, int(chunk_s * SAMPLE_RATE))
    return b"".join(to_chunk(frames[i : i + step], 0.0).pcm for i in range(0, len(frames), step))

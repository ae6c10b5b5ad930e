"""Audio as the referee takes it in: 16 kHz mono int16 chunks, from the microphone
(``referee.microphone``) or a WAV file (``referee.wav``).

With several channels (one microphone per team) the chunk keeps each channel's loudness and
background, so the listener can tell which team spoke, and recognition hears one channel of each
chunk (``Channels``), as with two microphones on two devices (``referee.mics``).  Not their
average: two microphones at different distances from a voice hear it at different times, and their
sum cancels some of its frequencies (a comb filter): at 10 dB SNR it heard 35.3% of the calls where
one channel at a time heard 51.3% (`benchmarks.two_mics`; docs/voice.md, "Who said it").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16000
CHUNK_S = 0.1
# A channel's background is its quietest chunk in the last FLOOR_S seconds (digital silence aside,
# as a device may send before its sound starts), and a chunk VOICE_DB above it hears someone
# talking; the channel heard changes for one whose voice is SWITCH_DB louder.
FLOOR_S = 3.0
VOICE_DB = 6.0
SWITCH_DB = 3.0


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
    # with several channels, each one's background level (``Channels``)
    backgrounds: tuple[float, ...] = ()
    # some of the device's sound was lost just before this chunk (an overrun: the machine did not
    # take it in time), as PortAudio says
    lost: bool = False

    @property
    def duration(self) -> float:
        return len(self.pcm) / 2 / SAMPLE_RATE

    @property
    def voices(self) -> tuple[float, ...]:
        """Each channel's voice: its level above its background (``voices``); with no
        backgrounds, its level."""
        return tuple(voices(self.levels, self.backgrounds)) if self.backgrounds else self.levels


def voices(levels: Sequence[float], backgrounds: Sequence[float]) -> np.ndarray:
    """Each channel's voice: its level above its background where it stands ``VOICE_DB`` above
    it (someone is talking), 0 where it does not (its noise only)."""
    talking = np.asarray(levels) >= np.asarray(backgrounds) * 10 ** (VOICE_DB / 20)
    return np.where(talking, np.sqrt(np.maximum(np.square(levels) - np.square(backgrounds), 0.0)),
                    0.0)


class Channels:
    """Which of several channels (microphones) the recognizer hears, chunk by chunk: the one that
    hears the voice loudest above its own background (``voices``), the nearest to whoever talks,
    rather than the loudest chunk (a radio by one team's microphone would make it the loudest all
    evening).  The channel heard (at first, the loudest) changes only for one whose voice is
    ``SWITCH_DB`` louder, so where nobody talks it stays the same: the noise between phrases is
    one microphone's, not two noises cut together every chunk.

    Two devices not known to be in step (``in_step`` False, ``mics.TeamMics``) are cut from one
    to the other only where a voice starts after none: cut while one talks, the slower one's
    sound would repeat or skip a moment (the end of a phrase heard again from it)."""

    def __init__(self, chunk_s: float = CHUNK_S) -> None:
        self._recent: deque[Sequence[float]] = deque(maxlen=max(1, round(FLOOR_S / chunk_s)))
        self.heard: int | None = None  # the channel heard last
        self._quiet = True  # no channel heard a voice in the last chunk

    def hear(self, levels: Sequence[float], in_step: bool = True) -> tuple[int, tuple[float, ...]]:
        """Take a chunk's levels: the channel to hear, and each channel's background."""
        self._recent.append(levels)
        backgrounds = self._backgrounds()
        heard = voices(levels, backgrounds)
        best = int(np.argmax(heard))
        if self.heard is None:
            self.heard = int(np.argmax(levels))
        if in_step:
            switch = heard[best] >= heard[self.heard] * 10 ** (SWITCH_DB / 20)
        else:
            switch = self._quiet
        if heard[best] > 0 and switch:
            self.heard = best
        self._quiet = not heard.any()
        return self.heard, backgrounds

    def talking(self, levels: Sequence[float]) -> bool:
        """Whether a chunk not heard yet has someone talking in some channel, over the
        backgrounds so far (not in one that has sent only digital silence: no background yet)."""
        if not self._recent:
            return False
        backgrounds = self._backgrounds()
        return bool(np.any(voices(levels, backgrounds) * np.asarray(backgrounds) > 0))

    def _backgrounds(self) -> tuple[float, ...]:
        recent = np.asarray(self._recent)
        floors = np.min(np.where(recent > 0, recent, np.inf), axis=0)
        return tuple(float(b) if b < np.inf else 0.0 for b in floors)


def to_chunk(frames: np.ndarray, t: float, channels: Channels | None = None) -> AudioChunk:
    """Float frames (frames × channels, -1..1) → a chunk: the sound of the channel ``channels``
    hears (with none, the loudest), with each channel's RMS level and background."""
    levels = tuple(float(np.sqrt(np.mean(frames[:, c] ** 2))) if len(frames) else 0.0
                   for c in range(frames.shape[1]))
    heard = levels.index(max(levels))
    backgrounds: tuple[float, ...] = ()
    if channels is not None and len(levels) > 1:
        heard, backgrounds = channels.hear(levels)
    mono = frames[:, heard]
    pcm = np.clip(np.round(mono * 32767.0), -32768, 32767).astype("<i2").tobytes()
    return AudioChunk(pcm=pcm, t=t, levels=levels, backgrounds=backgrounds)


def to_pcm(frames: np.ndarray, chunk_s: float = CHUNK_S) -> bytes:
    """Float frames (frames × channels) → the recognizers' PCM, a chunk at a time as they are heard
    live (``Channels``)."""
    step = max(1, int(chunk_s * SAMPLE_RATE))
    channels = Channels(chunk_s)
    return b"".join(to_chunk(frames[i : i + step], 0.0, channels).pcm
                    for i in range(0, len(frames), step))

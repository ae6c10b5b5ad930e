"""The clips kept as evidence: the listener's 16-bit mono samples as FLAC, lossless, which every
browser plays (over an evening of a quiet room's talk, ``python -m benchmarks.evening``, 42% of the
WAV clips' size); read back from FLAC or from the WAV clips of stores kept before, for voice
learning."""

from __future__ import annotations

import io
import wave

import numpy as np

FLAC = "audio/flac"
WAV = "audio/wav"


def encode(pcm: bytes, rate: int) -> bytes:
    """16-bit mono samples as a FLAC file."""
    import soundfile

    out = io.BytesIO()
    soundfile.write(out, np.frombuffer(pcm, "<i2"), rate, format="FLAC", subtype="PCM_16")
    return out.getvalue()


def from_wav(wav: bytes) -> tuple[bytes, str]:
    """A WAV clip as FLAC, the same samples, with its type; the WAV as it is where it is not
    16-bit mono."""
    decoded = decode(wav)
    return (encode(*decoded), FLAC) if decoded else (wav, WAV)


def decode(data: bytes) -> tuple[bytes, int] | None:
    """A FLAC or WAV clip's 16-bit mono samples and rate; None for anything else (another width,
    more channels, not a sound)."""
    if data[:4] == b"RIFF":
        try:
            with wave.open(io.BytesIO(data)) as w:
                if (w.getsampwidth(), w.getnchannels()) != (2, 1):
                    return None
                return w.readframes(w.getnframes()), w.getframerate()
        except (wave.Error, EOFError):
            return None
    if data[:4] != b"fLaC":
        return None
    import soundfile

    try:
        with soundfile.SoundFile(io.BytesIO(data)) as f:
            if (f.channels, f.subtype) != (1, "PCM_16"):
                return None
            return f.read(dtype="int16").astype("<i2").tobytes(), f.samplerate
    except RuntimeError:  # libsndfile's error: a damaged file
        return None

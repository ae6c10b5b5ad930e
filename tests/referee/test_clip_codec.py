"""The clips kept as evidence: FLAC, lossless, read back as the samples they were; the WAV clips
of stores kept before read too; anything else is no clip."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from referee import clip_codec


def _wav(pcm: bytes, rate: int = 16_000, channels: int = 1, width: int = 2) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(pcm)
    return out.getvalue()


@pytest.mark.parametrize("rate", [16_000, 8_000])
def test_a_clip_is_kept_as_flac_and_read_back_whole(rate: int) -> None:
    samples = np.random.default_rng(1).integers(-32768, 32767, rate, dtype=np.int16)
    samples[:10] = (-32768, 32767, 0, -1, 1, 0, 0, 0, 0, 0)  # the ends of the range too
    pcm = samples.astype("<i2").tobytes()
    flac = clip_codec.encode(pcm, rate)
    assert flac[:4] == b"fLaC"
    assert clip_codec.decode(flac) == (pcm, rate)


def test_the_wav_clips_of_a_store_kept_before_are_read() -> None:
    pcm = bytes(range(256)) * 10
    assert clip_codec.decode(_wav(pcm)) == (pcm, 16_000)


@pytest.mark.parametrize("data", [
    _wav(bytes(400), channels=2),           # two channels: not a clip of the listener's
    _wav(bytes(400), width=1),              # 8-bit
    b"RIFF" + bytes(40),                    # a WAV cut short
    b"fLaC" + bytes(40),                    # a FLAC cut short
    b"\xff\xd8\xff\xe0" + bytes(100),       # a picture
    b"",
])
def test_what_is_not_such_a_clip_is_none(data: bytes) -> None:
    assert clip_codec.decode(data) is None


def test_a_wav_clip_is_turned_into_flac_and_anything_else_kept_as_it_is() -> None:
    pcm = np.arange(-8000, 8000, dtype="<i2").tobytes()
    flac, mime = clip_codec.from_wav(_wav(pcm, 8_000))
    assert mime == clip_codec.FLAC and clip_codec.decode(flac) == (pcm, 8_000)
    stereo = _wav(pcm, channels=2)
    assert clip_codec.from_wav(stereo) == (stereo, clip_codec.WAV)  # not the listener's samples
    assert clip_codec.from_wav(b"not a sound") == (b"not a sound", clip_codec.WAV)

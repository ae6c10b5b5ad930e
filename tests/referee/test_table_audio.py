"""The table's last seconds of sound, kept in memory for the tablet to hear again: the newest
``keep_s`` seconds and nothing older, handed over as a WAV, the stream passed on untouched."""

from __future__ import annotations

import argparse
import io
import wave

import numpy as np
import pytest

from referee.audio import AudioChunk, to_chunk
from referee.commands import values
from referee.table_audio import KEEP_MAX_S, REPLAYS, TableAudio


def chunks(seconds: float, start: int = 0) -> list[AudioChunk]:
    """0.1 s chunks whose samples count up from ``start``: where each came from can be told."""
    n = int(seconds * 10)
    return [to_chunk(((np.arange(1600) + start + 1600 * k) % 30000 / 32768.0).reshape(-1, 1),
                     k / 10) for k in range(n)]


def samples(wav: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(wav)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def test_the_newest_seconds_are_kept_and_the_stream_passes_on_untouched() -> None:
    told: list[str] = []
    kept = TableAudio(keep_s=2, told=told.append)
    assert kept.last(30) is None and told == []  # nothing heard yet
    said = chunks(5)
    assert list(kept.tap(iter(said))) == said
    everything = np.concatenate([np.frombuffer(c.pcm, dtype="<i2") for c in said])
    heard = kept.last(600)  # all that is kept: the last 2 s, not 5
    assert heard is not None and heard.seconds == 2
    assert np.array_equal(samples(heard.wav), everything[-32000:])
    assert told == ["escucha: la tablet volvió a oír los últimos 2 s de la mesa"]
    half = kept.last(0.5)
    assert half is not None and np.array_equal(samples(half.wav), everything[-8000:])
    assert kept.last(0) is None


def test_the_last_seconds_are_the_clock_s_and_older_sound_is_dropped() -> None:
    """After a microphone was unplugged for a while, «the last 30 s» are what it heard since; and
    sound older than what is kept goes even while nothing new comes."""
    now = [0.0]
    kept = TableAudio(keep_s=60, clock=lambda: now[0])
    for chunk in chunks(10):  # 10 s heard as they are said
        now[0] += 0.1
        kept.keep(chunk.pcm)
    now[0] += 25.0  # unplugged for 25 s
    for chunk in chunks(2, start=7):
        now[0] += 0.1
        kept.keep(chunk.pcm)
    recent = kept.last(5)
    assert recent is not None and len(samples(recent.wav)) == 2 * 16000  # the 2 s since it came back
    everything = kept.last(60)
    assert everything is not None and len(samples(everything.wav)) == 12 * 16000
    now[0] += 61.0  # over a minute with nothing heard: nothing is kept
    assert kept.last(60) is None


def test_what_was_heard_again_is_kept_with_the_game_once_as_it_was_heard() -> None:
    """The sound handed over, not the table's last seconds when the keep is tapped; only the last
    few handed over, for as long as the sound itself is kept, and once."""
    now, told = [0.0], []
    kept = TableAudio(keep_s=60, told=told.append, clock=lambda: now[0])
    for chunk in chunks(3):
        now[0] += 0.1
        kept.keep(chunk.pcm)
    first = kept.last(2)
    assert first is not None and kept.handed(first.id) == first
    for chunk in chunks(3, start=11):  # the table goes on talking meanwhile
        now[0] += 0.1
        kept.keep(chunk.pcm)
    assert kept.handed(first.id) == first  # still what was heard, not the last 2 s now
    kept.kept(first, "con la partida 4")
    assert told[-1] == "escucha: la tablet guardó con la partida 4 los 2 s de la mesa que volvió a oír"
    assert kept.handed(first.id) is None  # kept once
    assert kept.handed("0" * 16) is None
    handed = [h for h in (kept.last(1) for _ in range(REPLAYS + 1)) if h is not None]
    assert len({h.id for h in handed}) == REPLAYS + 1
    assert [kept.handed(h.id) is not None for h in handed] == [False] + [True] * REPLAYS
    now[0] += 59.0
    assert kept.handed(handed[-1].id) == handed[-1]
    now[0] += 1.0  # a minute after it was heard again, it is forgotten with the rest
    assert kept.handed(handed[-1].id) is None


def test_how_much_is_kept_is_bounded() -> None:
    with pytest.raises(ValueError, match="de 1 a 600 segundos"):
        TableAudio(keep_s=0)
    TableAudio(keep_s=KEEP_MAX_S)
    assert values.table_audio_s("0") == 0 and values.table_audio_s("600") == 600
    with pytest.raises(argparse.ArgumentTypeError, match="va de 0 .* a 600 segundos, no 601"):
        values.table_audio_s("601")

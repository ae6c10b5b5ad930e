"""Two microphones, one per team: the one that hears a voice best tells who spoke."""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterator

import numpy as np
import pytest

from referee import mics
from referee.audio import AudioChunk, AudioError, to_chunk
from referee.commands import listen
from referee.mics import TeamMics


def chunks(levels: list[float]) -> list[AudioChunk]:
    """0.1 s chunks of a 440 Hz tone at the given amplitudes."""
    t = np.arange(1600) / 16000
    return [to_chunk((a * np.sin(2 * np.pi * 440 * t))[:, None], i * 0.1)
            for i, a in enumerate(levels)]


def paced(sent: list[AudioChunk], period_s: float) -> Iterator[AudioChunk]:
    """A microphone's chunks as they come, one every ``period_s``."""
    for chunk in sent:
        time.sleep(period_s)
        yield chunk


def unplugged() -> Iterator[AudioChunk]:
    """A microphone retrying, silent, for longer than a test."""
    time.sleep(5)
    yield from ()


def test_the_louder_microphone_is_passed_on_with_both_levels() -> None:
    a = chunks([0.5, 0.01, 0.3])
    b = chunks([0.05, 0.4, 0.3])
    merged = list(TeamMics(paced(a, 0.05), paced(b, 0.05)))  # as microphones send them
    assert [c.pcm for c in merged] == [a[0].pcm, b[1].pcm, a[2].pcm]
    assert merged[0].levels[0] > merged[0].levels[1] and merged[1].levels[1] > merged[1].levels[0]
    assert [round(c.t, 1) for c in merged] == [0.0, 0.1, 0.2]


def test_a_radio_by_one_microphone_does_not_make_it_the_one_heard() -> None:
    a = chunks([0.3] * 30 + [0.32] * 5 + [0.3] * 5)  # a radio by A's microphone
    b = chunks([0.02] * 30 + [0.2] * 5 + [0.02] * 5)  # B speaks from 3 to 3.5 s
    merged = list(TeamMics(paced(a, 0.01), paced(b, 0.01)))
    assert [c.pcm for c in merged[30:35]] == [c.pcm for c in b[30:35]]
    assert merged[32].levels[0] > merged[32].levels[1]  # A's the louder, by its radio
    assert merged[32].backgrounds == (a[0].levels[0], b[0].levels[0])  # each one's quietest


def test_one_microphone_going_quiet_does_not_stop_the_other() -> None:
    merged = list(TeamMics(chunks([0.2, 0.2, 0.2]), chunks([0.1])))
    assert len(merged) == 3 and math.isnan(merged[2].levels[1])  # B sent nothing


def test_what_waits_is_dropped_but_not_the_end_of_a_microphone() -> None:
    mics = TeamMics(chunks([0.2] * 5), chunks([0.1] * 5))
    merged = iter(mics)
    first = next(merged)
    time.sleep(0.2)  # both microphones' other chunks wait to be read
    mics.drop_queued()
    assert list(merged) == [] and first.t == 0.0


def test_a_microphone_that_does_not_retry_ends_the_stream_with_its_reason() -> None:
    def missing() -> Iterator[AudioChunk]:
        raise AudioError("mic-missing", "no encuentro un micrófono que se llame 'B'")
        yield  # a generator

    with pytest.raises(AudioError) as err:
        list(TeamMics(chunks([0.2] * 3), missing()))
    assert err.value.code == "mic-missing"


def test_a_microphone_that_stops_sending_does_not_hold_the_other_back() -> None:
    started, heard = time.monotonic(), 0
    for _ in TeamMics(paced(chunks([0.2] * 30), 0.01), unplugged()):
        heard += 1
        assert time.monotonic() - started < 1.5, f"{heard} chunks of 30 in 1.5 s"
        if heard == 30:
            break
    assert heard == 30



def test_the_last_chunks_of_a_microphone_do_not_wait_for_one_gone_quiet() -> None:
    """The chunks that wait for the other microphone go on once it has been quiet for
    ``QUIET_S``, even when nothing else comes (they waited for its next chunk or its end)."""
    started = time.monotonic()
    for heard, _ in enumerate(TeamMics(paced(chunks([0.2] * 3), 0.01), unplugged()), start=1):
        if heard == 3:
            break
    assert time.monotonic() - started < 1.5


def test_a_faster_clock_goes_on_alone_once_two_chunks_of_it_wait() -> None:
    mics = TeamMics([], [])
    mics._last = [time.monotonic()] * 2  # both sending
    a, b = chunks([0.3] * 4), chunks([0.1] * 2)
    mics._waiting[0].extend(a[:3])
    [alone] = mics._paired([False, False])  # the oldest, alone
    assert alone.pcm == a[0].pcm and math.isnan(alone.levels[1])
    mics._waiting[1].extend(b)
    assert [c.pcm for c in mics._paired([False, False])] == [a[1].pcm, a[2].pcm]  # then paired
    mics._waiting[0].append(a[3])
    assert list(mics._paired([False, False])) == []  # one waiting is the clocks' usual jitter


def test_listen_takes_a_microphone_per_team_as_serve_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mics, "MicSource", lambda spec, **options: [spec])
    heard = listen.open_source(argparse.Namespace(wav=None, mic=["mesa A", "mesa B"], channels=1))
    assert isinstance(heard, TeamMics) and heard.sources == (["mesa A"], ["mesa B"])
    with pytest.raises(AudioError) as err:
        listen.open_source(argparse.Namespace(wav=None, mic=["1", "2", "3"], channels=1))
    assert err.value.code == "mic-too-many"

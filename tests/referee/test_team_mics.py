"""Two microphones, one per team: the one that hears a voice best tells who spoke."""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from models.paths import user_data_dir
from referee import mic_choice, mic_lag, mics
from referee.audio import AudioChunk, AudioError, to_chunk
from referee.commands import listen
from referee.mics import TeamMics
from referee.table_sound import keep_lag, lag_file


def chunks(levels: list[float]) -> list[AudioChunk]:
    """0.1 s chunks of a 440 Hz tone at the given amplitudes."""
    t = np.arange(1600) / 16000
    return [to_chunk((a * np.sin(2 * np.pi * 440 * t))[:, None], i * 0.1)
            for i, a in enumerate(levels)]


def paced(sent: list[AudioChunk]) -> Iterator[AudioChunk]:
    """A microphone's chunks as they come: each once its sound is in."""
    for chunk in sent:
        time.sleep(chunk.duration)
        yield chunk


def on_time(sent: list[AudioChunk], late: float = 0.0) -> list[tuple[AudioChunk, float]]:
    """A device's chunks, each with when it came: once its sound is in, ``late`` after."""
    return [(chunk, chunk.t + chunk.duration + late) for chunk in sent]


def unplugged() -> Iterator[AudioChunk]:
    """A microphone retrying, silent, for longer than a test."""
    time.sleep(5)
    yield from ()


def test_the_louder_microphone_is_passed_on_with_both_levels() -> None:
    a = chunks([0.5, 0.01, 0.3])
    b = chunks([0.05, 0.4, 0.3])
    in_step = mics.Devices(lag=0.0)  # as last time
    merged = heard_in_turn(on_time(a), on_time(b, 0.002), in_step)  # as microphones send them
    assert [c.pcm for c in merged] == [a[0].pcm, b[1].pcm, a[2].pcm]
    assert merged[0].levels[0] > merged[0].levels[1] and merged[1].levels[1] > merged[1].levels[0]
    assert [round(c.t, 1) for c in merged] == [0.0, 0.1, 0.2]


def test_a_radio_by_one_microphone_does_not_make_it_the_one_heard() -> None:
    a = chunks([0.3] * 30 + [0.32] * 5 + [0.3] * 5)  # a radio by A's microphone
    b = chunks([0.02] * 30 + [0.2] * 5 + [0.02] * 5)  # B speaks from 3 to 3.5 s
    merged = heard_in_turn(on_time(a), on_time(b, 0.002))
    assert [c.pcm for c in merged[30:35]] == [c.pcm for c in b[30:35]]
    assert merged[32].levels[0] > merged[32].levels[1]  # A's the louder, by its radio
    assert merged[32].backgrounds == pytest.approx((a[0].levels[0], b[0].levels[0]), rel=1e-4)
    # each one's quietest


def test_one_microphone_going_quiet_does_not_stop_the_other() -> None:
    a = chunks([0.2, 0.2, 0.2])
    merged = list(TeamMics(a, chunks([0.1])))  # all come at once: B's is the last 0.1 s
    assert math.isnan(merged[0].levels[1])  # B sent nothing that early
    from_a = b"".join(c.pcm for c in merged if not math.isnan(c.levels[0]))
    assert from_a == b"".join(c.pcm for c in a)  # and all of A's sound went on


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
    for _ in TeamMics(paced(chunks([0.2] * 10)), unplugged()):
        heard += 1
        assert time.monotonic() - started < 1.6, f"{heard} chunks of 10 (1 s) in 1.6 s"
        if heard == 10:
            break
    assert heard == 10



def test_the_last_chunks_of_a_microphone_do_not_wait_for_one_gone_quiet() -> None:
    """The chunks that wait for the other microphone go on once it has been quiet for
    ``QUIET_S``, even when nothing else comes (they waited for its next chunk or its end)."""
    started = time.monotonic()
    for heard, _ in enumerate(TeamMics(paced(chunks([0.2] * 3)), unplugged()), start=1):
        if heard == 3:
            break
    assert time.monotonic() - started < 1.5


def device(levels: list[float], starts_s: float, chunk_s: float, seed: int) -> list[tuple[AudioChunk, float]]:
    """A device's chunks of 0.1 s at the given levels, each with when it came: the device opened
    ``starts_s`` after the test began, a chunk's sound ready every ``chunk_s`` by the machine's
    clock (0.1 s for a clock that keeps time), and handed over up to 30 ms late."""
    rng = np.random.default_rng(seed)
    return [(chunk, starts_s + (k + 1) * chunk_s + rng.uniform(0, 0.03))
            for k, chunk in enumerate(chunks(levels))]


def came(a: list[tuple[AudioChunk, float]], b: list[tuple[AudioChunk, float]]
         ) -> list[tuple[int, AudioChunk, float]]:
    """Two devices' chunks, each with its microphone (A's 0, B's 1) and when it came."""
    return [(0, chunk, at) for chunk, at in a] + [(1, chunk, at) for chunk, at in b]


def heard_in_turn(a: list[tuple[AudioChunk, float]], b: list[tuple[AudioChunk, float]],
                  devices: mics.Devices | None = None) -> list[AudioChunk]:
    """The stream of two devices' chunks taken in the order they came, each as it came."""
    return (devices or mics.Devices()).hand(came(a, b))


def loud(merged: list[AudioChunk], mic: int, above: float) -> list[float]:
    return [round(c.t, 2) for c in merged if c.levels[mic] > above]


def test_two_devices_opened_apart_are_heard_at_the_same_moments() -> None:
    """B's device opened 0.2 s after A's: its first chunk is the table's sound from 0.2 s.  Both
    hear a voice from 1.0 to 1.3 s (A's the nearer), and the stream has it there once, from both
    microphones together (paired in the order they came, they were a chunk or two apart)."""
    table = [0.01] * 30
    voice = [0.3 if 10 <= k < 13 else level for k, level in enumerate(table)]
    a = device(voice, 0.0, 0.1, seed=1)
    b = device([level / 2 for level in voice[2:]], 0.2, 0.1, seed=2)
    merged = heard_in_turn(a, b, mics.Devices(lag=0.0))  # in step, as last time
    assert [round(c.t, 2) for c in merged[:30]] == [round(k / 10, 2) for k in range(30)]
    assert sum(c.duration for c in merged) == pytest.approx(3.0, abs=0.01)  # none twice
    assert all(math.isnan(c.levels[1]) for c in merged[:2])  # before B's device was open
    assert loud(merged, 0, 0.1) == loud(merged, 1, 0.1) == [1.0, 1.1, 1.2]
    assert [c.pcm for c in merged[10:13]] == [c.pcm for c, _ in a[10:13]]  # the nearer one's


def test_a_device_whose_clock_runs_fast_stays_in_step() -> None:
    """B's clock is 0.2% fast: in a minute it sends 0.12 s more sound than A's.  The stream keeps
    the table's time: what B sends beyond it is dropped a few milliseconds at a time, and the
    rest is heard from both."""
    a = device([0.01] * 600, 0.0, 0.1, seed=3)
    b = device([0.005] * 600, 0.0, 0.0998, seed=4)
    merged = heard_in_turn(a, b)
    assert sum(c.duration for c in merged) == pytest.approx(60.0, abs=0.01)
    middle = [c for c in merged if 1.0 < c.t < 59.0]
    alone = [c for c in middle if math.isnan(c.levels[0]) or math.isnan(c.levels[1])]
    assert sum(c.duration for c in alone) < 0.02  # not B's surplus, nor A's sound once more


def phrases(seconds: float, said: list[tuple[float, float]], seed: int) -> np.ndarray:
    """A voice-like sound (noise in syllables, four a second) said in the given (start, end)
    spans, silent elsewhere: what both microphones hear of one player."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * 16000)) / 16000
    voice = rng.normal(0, 0.2, len(t)) * np.abs(np.sin(2 * np.pi * 2 * t))
    return voice * np.any([(start <= t) & (t < end) for start, end in said], axis=0)


def device_hearing(sound: np.ndarray, seed: int) -> list[tuple[AudioChunk, float]]:
    """A device opened with the test, handing over ``sound`` (with a quiet noise of its own) in
    chunks of 0.1 s, each once its sound is in and up to 30 ms late."""
    rng = np.random.default_rng(seed)
    heard = sound + rng.normal(0, 0.003, len(sound))
    return [(to_chunk(heard[k:k + 1600, None], k / 16000), (k + 1600) / 16000 + rng.uniform(0, 0.03))
            for k in range(0, len(heard), 1600)]


def b_slower(voice: np.ndarray, late_s: float
             ) -> tuple[list[tuple[AudioChunk, float]], list[tuple[AudioChunk, float]]]:
    """Two devices opened together hearing ``voice``, B's at half the level and handing over each
    moment ``late_s`` after A's."""
    late = round(late_s * 16000)
    return (device_hearing(voice, seed=6),
            device_hearing(np.concatenate([np.zeros(late), voice[:len(voice) - late] / 2]), seed=7))


def out_of_step(merged: list[AudioChunk], said: list[tuple[float, float]]
                ) -> list[tuple[float, float]]:
    """The phrases said (start, end) that the stream does not have loud in both microphones'
    levels at the same moments."""
    def loud_in(start: float, end: float, mic: int) -> list[float]:
        return [t for t in loud(merged, mic, 0.02) if start - 0.3 <= t < end + 0.3]

    return [(start, end) for start, end in said
            if not loud_in(start, end, 0) == loud_in(start, end, 1) != []]


def lag_told_once_and_in_step(a: list[tuple[AudioChunk, float]], b: list[tuple[AudioChunk, float]],
                              said: list[tuple[float, float]], seconds: float) -> float:
    """The lag two devices' chunks show, checked to be told once, with no moment of the
    ``seconds`` heard twice and each phrase said heard by both at the same moments."""
    told: list[float] = []
    devices = mics.Devices(on_lag=told.append)
    merged = heard_in_turn(a, b, devices)
    assert len(told) == 1 and told[0] == devices.mics.lag, told
    assert sum(c.duration for c in merged) == pytest.approx(seconds, abs=0.01)  # none twice
    assert out_of_step(merged, said) == []
    return told[0]


def test_a_device_slower_to_hand_over_its_sound_is_put_in_step_by_what_both_heard() -> None:
    """B's device hands over each moment 150 ms after A's: their arrivals cannot show it (both
    opened together, each chunk once its sound is in).  Both microphones hear four phrases: the
    first's start waits for a second of both microphones' sound after it, which shows the lag, and
    B's sound is heard with A's at the same moments from the first phrase on."""
    said = [(1.0, 2.5), (4.0, 5.5), (8.0, 9.5), (12.0, 13.5)]
    voice = phrases(16.0, said, seed=5)
    a, b = b_slower(voice, 0.15)
    assert lag_told_once_and_in_step(a, b, said, 16.0) == pytest.approx(0.15, abs=0.002)


def test_until_the_lag_is_known_the_end_of_a_phrase_is_not_heard_again_from_the_slower() -> None:
    """The same two devices, the first time: a phrase said by A's microphone, B's hearing it
    fainter and 150 ms later.  Cut from A's microphone to B's when A's goes quiet, the stream
    would have the phrase's last 150 ms again; it has the phrase once."""
    voice = phrases(4.0, [(1.0, 2.5)], seed=5)
    a, b = b_slower(voice, 0.15)
    merged = heard_in_turn(a, b)
    passed_on = [c.t for c in merged if mics._level(np.frombuffer(c.pcm, "<i2")) > 0.02]
    assert len(passed_on) == 15, passed_on  # 1.5 s, as said


def waits(a: list[tuple[AudioChunk, float]], b: list[tuple[AudioChunk, float]],
          devices: mics.Devices) -> dict[float, float]:
    """How long after the soonest (both came, each up to 30 ms late) each chunk of the stream
    went on, by its moment; but what the last second leaves waiting."""
    passed = {round(chunk.t, 1): at - chunk.t for chunk, at in devices.passed(came(a, b))}
    return {t: at - min(passed.values()) for t, at in passed.items()}


def test_before_the_lag_is_found_only_a_voice_waits_and_no_longer_than_it_takes_to_measure() -> None:
    """A voice only A's microphone hears (B's muted, or far from everyone), the first time and
    with a lag kept from the last session: its chunks wait for a second of both microphones'
    sound after them, where no lag stands out, and go on; the silence before it does not wait,
    and once ``PLACE_TRIES`` voiced chunks have found nothing, neither does the voice.  A kept
    lag stays where nothing is found."""
    voice = phrases(10.0, [(2.0, 3.0), (4.0, 8.0)], seed=5)
    a = device_hearing(voice, seed=6)
    b = device_hearing(np.zeros_like(voice), seed=7)
    for devices, lag in [(mics.Devices(), None), (mics.Devices(lag=0.0), 0.0)]:
        waited = waits(a, b, devices)
        assert max(waited[t] for t in waited if t < 1.9) <= 0.05, waited  # the silence
        assert waited[2.0] == pytest.approx(mics.PLACE_S, abs=0.05), waited  # the voice's first
        assert max(waited.values()) <= mics.PLACE_S + 0.05, waited
        assert max(waited[t] for t in waited if t >= 7.0) <= 0.05, waited  # tries run out
        assert devices.mics.lag == lag
        assert max(waited) >= 8.9


def test_once_the_lag_is_found_no_voice_waits() -> None:
    """Four phrases both microphones hear, B's device 150 ms slower, the first time and with its
    lag kept from the last session (checked all the same): the first phrase waits for the measure,
    the others do not."""
    said = [(1.0, 2.5), (4.0, 5.5), (8.0, 9.5), (12.0, 13.5)]
    voice = phrases(16.0, said, seed=5)
    a, b = b_slower(voice, 0.15)
    for devices in (mics.Devices(), mics.Devices(lag=0.15)):
        waited = waits(a, b, devices)
        usual = float(np.median(list(waited.values())))  # each chunk waits for B's sound
        held = [t for t, wait in waited.items() if wait > usual + 0.1]
        assert 0.8 <= min(held) and max(held) < 2.5, waited  # the first phrase's only
        assert max(waited.values()) == pytest.approx(usual + mics.PLACE_S, abs=0.1), waited
        assert devices.mics.lag == pytest.approx(0.15, abs=0.002)


def test_a_lag_known_from_the_start_hears_the_first_phrase_in_step() -> None:
    """The same two devices, with B's lag kept from the last session: the first phrase is heard
    at the same moments by both, and what is measured on it leaves the lag as it was (the table
    is told nothing new)."""
    voice = phrases(4.0, [(1.0, 2.5)], seed=5)
    a, b = b_slower(voice, 0.15)
    told: list[float] = []
    merged = heard_in_turn(a, b, mics.Devices(lag=0.15, on_lag=told.append))
    assert loud(merged, 0, 0.02) == loud(merged, 1, 0.02) != [] and told == []


def test_a_lag_kept_for_other_devices_is_corrected_by_the_first_voice() -> None:
    """The lag kept from the last session (B's 0.3 s slower) is not these devices' any more: B's
    now hands each moment over 0.25 s before A's, 0.55 s from where the kept lag places it.  The
    first phrase finds it, and is heard at the same moments by both."""
    said = [(1.0, 2.5), (4.0, 5.5), (8.0, 9.5), (12.0, 13.5)]
    voice = phrases(16.0, said, seed=5)
    early = round(0.25 * 16000)
    a = device_hearing(voice, seed=6)
    b = device_hearing(np.concatenate([voice[early:], np.zeros(early)]) / 2, seed=7)
    told: list[float] = []
    devices = mics.Devices(lag=0.3, on_lag=told.append)
    merged = heard_in_turn(a, b, devices)
    assert told == [devices.mics.lag] and told[0] == pytest.approx(-0.25, abs=mic_lag.APART / 16000)
    assert loud(merged, 0, 0.02) == loud(merged, 1, 0.02) != []


def test_the_lag_is_kept_for_the_next_session_in_the_data_folder(tmp_path: Path) -> None:
    """B's device 150 ms slower: the lag found is said and kept in the data folder, and the next
    session with the same two starts with it, said; with no data folder nothing is kept."""
    voice = phrases(4.0, [(1.0, 2.5)], seed=5)
    a, b = b_slower(voice, 0.15)
    said: list[str] = []
    heard_in_turn(a, b, mics.Devices(**mic_choice.lag_options(["mesa A", "mesa B"], None, said.append)))
    assert list(tmp_path.iterdir()) == []
    first = mics.Devices(**mic_choice.lag_options(["mesa A", "mesa B"], tmp_path, said.append))
    heard_in_turn(a, b, first)
    lag = first.mics.lag
    assert lag is not None and lag == pytest.approx(0.15, abs=0.002)
    assert said == [mic_lag.in_step(lag)] * 2
    said.clear()
    devices = mics.Devices(**mic_choice.lag_options(["mesa A", "mesa B"], tmp_path, said.append))
    assert devices.mics.lag == pytest.approx(lag, abs=1e-4)
    assert said == [f"como la última vez, {mic_lag.apart(lag)}"]
    assert mics.Devices(**mic_choice.lag_options(["mesa B", "mesa A"], tmp_path, said.append)).mics.lag is None


def test_sounds_only_one_microphone_hears_never_move_its_sound() -> None:
    """A minute of sound each microphone hears alone (its own noise, a voice by it only), or ten
    seconds of silence: no lag stands out, so none is set."""
    devices = mics.Devices()
    a = device_hearing(phrases(60.0, [(0.0, 60.0)], seed=8), seed=9)
    b = device_hearing(phrases(60.0, [(0.0, 60.0)], seed=10) / 2, seed=11)
    heard_in_turn(a, b, devices)
    assert devices.mics.lag is None
    muted = mics.Devices()  # two microphones sending nothing but zeros
    silence = on_time(chunks([0.0] * 100))
    heard_in_turn(silence, silence, muted)
    assert muted.mics.lag is None


def test_a_rumble_by_each_microphone_sets_no_lag() -> None:
    """Half a minute of a rumble each microphone hears alone (a fan by each: most of its sound in
    the lowest tones, a random walk): no lag is set.  Cut out for each measure, both rumbles step
    at the same moments, which stood out as a lag of 0."""
    def rumble(seed: int) -> np.ndarray:
        walk = np.cumsum(np.random.default_rng(seed).normal(0, 1, 30 * 16000))
        return 0.3 * walk / np.abs(walk).max()

    for seed in range(3):
        devices = mics.Devices()
        heard_in_turn(device_hearing(rumble(seed), seed=9), device_hearing(rumble(seed + 100), seed=11),
                      devices)
        assert devices.mics.lag is None, seed


def test_listen_takes_a_microphone_per_team_as_serve_does(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Two devices, team A's first, with the lag `serve` kept for them in its data folder: the
    default one, or another given with ``--data-dir``."""
    monkeypatch.setattr(mic_choice, "MicSource", lambda spec, **options: [spec])
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    keep_lag(lag_file(user_data_dir(), "mesa A", "mesa B"), 0.2)
    keep_lag(lag_file(tmp_path / "datos", "mesa A", "mesa B"), -0.1)
    parser = argparse.ArgumentParser()
    listen.add_arguments(parser)
    for given, lag in [([], 0.2), (["--data-dir", str(tmp_path / "datos")], -0.1)]:
        heard = listen.open_source(parser.parse_args(["--mic", "mesa A", "--mic", "mesa B", *given]))
        assert isinstance(heard, TeamMics) and heard.sources == (["mesa A"], ["mesa B"])
        assert heard.lag == lag
    with pytest.raises(AudioError) as err:
        listen.open_source(parser.parse_args(["--mic", "1", "--mic", "2", "--mic", "3"]))
    assert err.value.code == "mic-too-many"


def test_sound_a_device_loses_does_not_put_it_out_of_step() -> None:
    """Two devices in step hearing five phrases; B's loses 0.1 s of its sound at 3.05 s (the
    machine too busy to take it) and goes on: the sound after it comes when it always did, 0.1 s
    more of it than it sent.  Placed by the earliest arrivals of the last 10 s, B's sound after the
    loss was heard as 0.1 s before it was, out of step with A's until they aged out; each phrase
    is heard at the same moments by both from a second after the loss on, A's alone where B's is
    lost, and the lag stays where it was."""
    said = [(1.0, 2.5), (4.5, 6.0), (8.0, 9.5), (12.0, 13.5), (15.0, 16.5)]
    a, b = b_slower(phrases(18.0, said, seed=5), 0.0)
    b = b[:30] + b[31:]  # B's chunk of 3.0-3.1 s never came
    assert lag_told_once_and_in_step(a, b, said, 18.0) == pytest.approx(0.0, abs=0.002)


@pytest.mark.parametrize("lost", [13, 17], ids=["before-its-copy", "in-its-copy"])
def test_sound_the_slower_device_loses_while_the_first_voice_waits_does_not_set_the_lag(
        lost: int) -> None:
    """B's device 0.4 s slower, the lag kept from two devices that were in step, and B's loses
    0.1 s of its sound while the first phrase (1.0-2.5 s) waits to be measured: its chunk of
    1.3-1.4 s (before its copy of the phrase) or of 1.7-1.8 s (in it) never came.  The loss shows
    only after a second of late chunks; measured meanwhile, with the sound after it placed 0.1 s
    early, the lag was 0.3 s, then 0.4 s, and the first two phrases out of step.  The measure
    waits for the loss to show: the lag is told once, 0.4 s, and every phrase is heard by both
    at the same moments, A's alone where B's is lost (what B heard before the loss stays where
    it was)."""
    said = [(1.0, 2.5), (4.0, 5.5), (8.0, 9.5), (12.0, 13.5)]
    a, b = b_slower(phrases(16.0, said, seed=5), 0.4)
    told: list[float] = []
    merged = heard_in_turn(a, b[:lost] + b[lost + 1:], mics.Devices(lag=0.0, on_lag=told.append))
    assert told == [pytest.approx(0.4, abs=0.002)]
    # the ends aside, where one device's sound goes on before or after the other's
    alone = [c for c in merged if math.isnan(c.levels[1]) and 0.5 <= c.t < 15.0]
    assert sum(c.duration for c in alone) == pytest.approx(0.1, abs=0.01), alone
    assert out_of_step([c for c in merged if c not in alone], said) == []


def test_sound_a_device_says_it_lost_is_placed_from_its_next_chunk() -> None:
    """The same loss, said by B's device (an overrun PortAudio reports) with its next chunk,
    and a phrase from 3.3 s, before a second of late chunks could show it: heard by both at the
    same moments (not said, it was out of step)."""
    said = [(1.0, 2.5), (3.3, 4.3)]
    a, b = b_slower(phrases(6.0, said, seed=5), 0.0)
    chunk, at = b[31]
    merged = heard_in_turn(a, [*b[:30], (replace(chunk, lost=True), at), *b[32:]], mics.Devices())
    assert out_of_step(merged, said) == []

"""A noisy table: the noise meter, Sphinx's own noise removal used only when the table is noisy,
and phrases that end in steady noise."""

from __future__ import annotations

import csv
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from benchmarks.speech_corpus import mix_noise, speech_power
from benchmarks.speech_scoring import Outcome
from referee.asr.base import Result
from referee.asr.grammar import PhraseList
from referee.asr.noise import NoiseMeter
from referee.asr.sphinx import SphinxRecognizer
from referee.asr.sphinx_decoder import SphinxTuning
from referee.audio import to_chunk
from referee.misheard import doubt_misheard
from referee.phrases import parse
from referee.wav import read_wav

RATE = 16000


def talk(noise_rms: float, seconds: int = 6, seed: int = 0) -> np.ndarray:
    """Half a second of a loud vowel-like sound every second, over steady noise (int16 units)."""
    rng = np.random.default_rng(seed)
    t = np.arange(seconds * RATE) / RATE
    voice = 6000 * np.sin(2 * np.pi * 180 * t) * ((t % 1.0) < 0.5)
    return voice + rng.normal(0, noise_rms, len(t))


def test_the_meter_waits_for_a_second_of_sound() -> None:
    meter = NoiseMeter()
    meter.feed(talk(30, seconds=1)[: RATE // 2])
    assert meter.snr_db is None
    meter.feed(talk(30, seconds=1)[RATE // 2:])
    assert meter.snr_db is not None


@pytest.mark.parametrize("noise_rms,low,high", [(3, 55, 80), (300, 15, 30), (1500, 0, 15)])
def test_the_meter_reads_voices_against_the_background(noise_rms: float, low: float, high: float) -> None:
    meter = NoiseMeter()
    for chunk in np.array_split(talk(noise_rms), 37):  # any chunk sizes
        meter.feed(chunk)
    assert meter.snr_db is not None and low < meter.snr_db < high


def test_the_meter_forgets_what_is_older_than_its_window_and_carries_over() -> None:
    meter = NoiseMeter(window_s=10.0)
    meter.feed(talk(3, seconds=10))
    quiet = meter.snr_db
    meter.feed(talk(1500, seconds=10))
    assert quiet is not None and meter.snr_db is not None and meter.snr_db < quiet - 30
    again = NoiseMeter()
    assert again.snr_db is None
    again.levels = meter.levels
    assert again.snr_db == meter.snr_db


def test_the_meter_hears_a_pause_where_the_voices_band_is_back_to_the_background() -> None:
    """In steady noise a voice raises the band voices are loud in; the pause after it is quiet
    again in that band however loud the noise is, and a rumble below the band is no voice."""
    rng = np.random.default_rng(3)
    t = np.arange(RATE) / RATE
    meter = NoiseMeter()
    meter.feed(rng.normal(0, 1500, 2 * RATE))  # loud steady noise: the background
    assert meter.quiet_s > 1.5
    meter.feed(rng.normal(0, 1500, RATE // 2) + 3000 * np.sin(2 * np.pi * 700 * t[: RATE // 2]))
    assert meter.quiet_s == 0.0  # a voice, 3 dB above the noise
    meter.feed(rng.normal(0, 1500, RATE // 5))
    assert 0.1 < meter.quiet_s <= 0.2  # the pause after it
    meter.feed(rng.normal(0, 1500, RATE // 2) + 20000 * np.sin(2 * np.pi * 60 * t[: RATE // 2]))
    assert meter.quiet_s > 0.6  # a rumble 20 dB above the noise, below the voices' band
    again = NoiseMeter()  # a new stream: its pauses are its own
    again.levels = meter.levels
    assert again.snr_db == meter.snr_db and again.quiet_s == 0.0


def test_the_meter_tells_where_the_voices_band_was_loud() -> None:
    """Where the voices' band was above the background: where a voice may have been."""
    rng = np.random.default_rng(4)
    t = np.arange(RATE // 2) / RATE
    meter = NoiseMeter()
    meter.feed(rng.normal(0, 1500, 2 * RATE))  # the background
    assert meter.loud_since(1.0) == ()
    meter.feed(rng.normal(0, 1500, RATE // 2) + 3000 * np.sin(2 * np.pi * 700 * t))  # 2.0-2.5 s
    [(rise, fall)] = meter.loud_since(1.0)
    assert abs(rise - 2.0) <= 0.05 and fall == 2.5  # still loud at the last sound fed
    meter.feed(rng.normal(0, 1500, RATE))
    [(rise_after, fall)] = meter.loud_since(1.0)
    assert rise_after == rise and abs(fall - 2.5) <= 0.06
    assert meter.loud_since(2.8) == ()


@pytest.fixture(scope="module")
def es3_calls(shared_dir: Path) -> list[dict[str, str]]:
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["voice"] == "mbrola:es3" and r["group"] == "call"]


def noisy_pcm(shared_dir: Path, row: dict[str, str], snr: float | None, seed: int) -> bytes:
    frames = read_wav(shared_dir / "speech" / row["file"])
    if snr is not None:
        noise = read_wav(shared_dir / "speech" / "noise" / "pinknoise.wav")[:, 0]
        frames = mix_noise(frames, snr, noise, random.Random(seed))
    return to_chunk(frames, 0.0).pcm


@pytest.mark.shared
@pytest.mark.parametrize("snr,noisy", [(None, False), (20.0, False), (5.0, True)])
def test_the_recognizer_tells_a_noisy_table_from_a_quiet_one(model: Path, shared_dir: Path,
                                                             es3_calls: list[dict[str, str]],
                                                             snr: float | None, noisy: bool) -> None:
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    for k, row in enumerate(es3_calls[:10]):
        rec.settle(noisy_pcm(shared_dir, row, snr, k))
    assert rec.noisy is noisy


@pytest.mark.shared
def test_a_noisy_table_is_heard_better_with_noise_removal(model: Path, shared_dir: Path,
                                                          es3_calls: list[dict[str, str]]) -> None:
    """The calls of a voice the settings never saw, at 5 dB SNR, said one after another in one
    stream as at a table: with the noisy table's decoder (23 of 48 → 32 of 48 when this test was
    written)."""
    warm = [r for r in es3_calls if r["speed"] == "slow"][:10]
    tests = [r for r in es3_calls if r["speed"] != "slow"]
    heard = {}
    for bar in (0.0, SphinxTuning().noisy_below):
        rec = SphinxRecognizer(PhraseList.from_table(), model, tuning=SphinxTuning(noisy_below=bar))
        for k, row in enumerate(warm):
            rec.feed(noisy_pcm(shared_dir, row, 5.0, k))
            rec.flush()
        heard[bar] = 0
        for k, row in enumerate(tests):
            results = rec.feed(noisy_pcm(shared_dir, row, 5.0, 100 + k)) + rec.flush()
            text = " ".join(r.text for r in results if r.final)
            heard[bar] += row["label"] in [h.label for h in parse(text) if h.kind == "call"]
        assert rec.noisy is (bar > 0)
    assert heard[SphinxTuning().noisy_below] >= heard[0.0] + 6, heard


@pytest.mark.shared
def test_a_table_that_turns_noisy_between_two_phrases_loses_neither(model: Path, shared_dir: Path) -> None:
    """The decoder changes at the pause; the phrase after it is decoded whole by the new one."""
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    call = read_wav(shared_dir / "speech" / "real" / "truco-uruguayo" / "truco.wav")[:, 0]
    rng = np.random.default_rng(1)
    quiet = np.concatenate([call, np.zeros(RATE // 2)])
    loud = rng.normal(0, 0.01, 12 * RATE)  # a fan switched on: steady noise, ten seconds of no talk
    loud[10 * RATE: 10 * RATE + len(call)] += call
    finals = []
    for part in (quiet, loud):
        pcm = to_chunk(part[:, None], 0.0).pcm
        for i in range(0, len(pcm), 3200):
            finals += [r for r in rec.feed(pcm[i:i + 3200]) if r.final]
    finals += [r for r in rec.flush() if r.final]
    assert rec.noisy
    assert [h.label for r in finals for h in parse(r.text) if h.kind == "call"] == ["truco", "truco"]


@pytest.mark.shared
def test_a_new_stream_hears_a_noisy_phrase_as_the_first_one_did(model: Path, shared_dir: Path,
                                                               es3_calls: list[dict[str, str]]) -> None:
    """Sphinx's noise removal keeps its estimate of the noise from phrase to phrase; a new stream
    (``reset``) starts it afresh, so the same audio is heard the same way whatever came before."""
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    for k, row in enumerate(es3_calls[:10]):
        rec.settle(noisy_pcm(shared_dir, row, 5.0, k))
    levels, mean = rec.noise_levels, rec.cepstral_mean

    def words(row: dict[str, str], seed: int) -> list[tuple[str, float]]:
        rec.reset()
        rec.noise_levels, rec.cepstral_mean = levels, mean
        assert rec.noisy
        results = rec.feed(noisy_pcm(shared_dir, row, 5.0, seed)) + rec.flush()
        return [(w.text, w.conf) for r in results if r.final for w in r.words]

    first = words(es3_calls[20], 1)
    for k, row in enumerate(es3_calls[30:40]):
        words(row, 100 + k)
    assert words(es3_calls[20], 1) == first


def said_in_noise(shared_dir: Path, rows: list[dict[str, str]], snr: float, seed: int,
                  pause: float = 0.6, tail: float = 2.0, lead: float = 0.0) -> tuple[bytes, list[float]]:
    """These files said one after another with ``pause`` seconds between them, in steady pink
    noise that starts ``lead`` seconds before the first and goes on ``tail`` seconds after the
    last; and where the speech of each ends."""
    parts, ends, at = [np.zeros((int(lead * RATE), 1))], [], lead
    for row in rows:
        frames = read_wav(shared_dir / "speech" / row["file"])
        parts += [frames, np.zeros((int(pause * RATE), 1))]
        ends.append(at + len(frames) / RATE - 0.25)  # the synthetic files end with 0.25 s of silence
        at += len(frames) / RATE + pause
    parts.append(np.zeros((int(tail * RATE), 1)))
    noise = read_wav(shared_dir / "speech" / "noise" / "pinknoise.wav")[:, 0]
    speech = read_wav(shared_dir / "speech" / rows[0]["file"])
    mixed = mix_noise(np.concatenate(parts), snr, noise, random.Random(seed), speech_power(speech))
    return to_chunk(mixed, 0.0).pcm, ends


def finals_in_noise(model: Path, shared_dir: Path, es3_calls: list[dict[str, str]],
                    tuning: SphinxTuning, said: list[tuple[str, str]]) -> tuple[list[Result], list[float]]:
    """The final results of the recognizer, settled on the voice at 5 dB, hearing these (label,
    speed) calls of it said in one noisy stream; and where the speech of each ended."""
    rec = SphinxRecognizer(PhraseList.from_table(), model, tuning=tuning)
    for k, row in enumerate(es3_calls[:10]):
        rec.settle(noisy_pcm(shared_dir, row, 5.0, k))
    rows = [next(r for r in es3_calls if (r["label"], r["speed"]) == (label, speed)
                 and r["pitch"] == pitch) for (label, speed), pitch in zip(said, ("low", "high"))]
    pcm, ends = said_in_noise(shared_dir, rows, 5.0, seed=1)
    results: list[Result] = []
    for i in range(0, len(pcm), 3200):
        results += rec.feed(pcm[i:i + 3200])
    results += rec.flush()
    return [r for r in results if r.final and r.words], ends


@pytest.mark.shared
@pytest.mark.parametrize("speed", ["normal", "fast"])
def test_in_steady_noise_a_flor_is_heard_when_it_is_said_not_when_the_noise_stops(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]], speed: str) -> None:
    """At 5 dB the voice detector hears voice until the noise stops; a «flor», which waits for
    the end of its phrase, came only then. The phrase ends once nothing of the table has been
    heard for a while after its last word, sooner once the voices' band is back down to the
    background, and sooner still once the audio the voice detector holds is decoded at that pause
    (0.39 s → 0.24 s when this test was written)."""
    for tuning, (least, most) in ((SphinxTuning(end_after_s=0.0), (2.0, 9.0)),
                                  (SphinxTuning(quiet_after_s=0.0), (0.5, 0.9)),
                                  (SphinxTuning(catch_up=False), (0.32, 0.45)),
                                  (SphinxTuning(), (0.0, 0.3))):
        finals, ends = finals_in_noise(model, shared_dir, es3_calls, tuning, [("flor", speed)])
        assert [r.text for r in finals] == ["flor"]
        after = finals[0].stream_time - ends[0]
        assert least < after < most, (tuning, after)


def heard_at_10_db(voice: str, text: str, renders: tuple[str, ...],
                   calibration: dict[str, str] | None = None,
                   frames: Callable[[str, int], np.ndarray] | None = None) -> list[Outcome]:
    """What the speech benchmark's listener makes of a held-out voice's renders of one text at
    10 dB, with a calibration or said another way (``frames``), as ``benchmarks.speech`` runs it."""
    from benchmarks import speech_listening
    from benchmarks.speech_corpus import load_items

    said = [it for it in load_items("held-out", None)
            if it.voice == voice and it.text == text and it.render in renders]
    speech_listening.init_worker("sphinx-es", "10", None, None, calibration, frames=frames)
    try:
        return [speech_listening.run_one(item) for item in said]
    finally:
        speech_listening.STATE.clear()


@pytest.mark.shared
def test_a_call_whose_last_sound_soaks_up_the_noise_ends_at_the_pause(tmp_path: Path) -> None:
    """Calibrated to mbrola es3, at 10 dB of brown noise, the «s» of «buenas» soaks up the noise:
    the best path stretches the word over the noise after it, no pause is heard after its last
    word, and «son buenas» came only when the noise stopped, 1.2 s after it was said. A word that
    goes on ``soak_s`` into a pause is taken for its end."""
    from benchmarks.speech_voices import calibrate_voices

    calibration = calibrate_voices({"mbrola:es3"}, tmp_path)
    outcomes = heard_at_10_db("mbrola:es3", "son buenas", ("normal/high", "fast/high"),
                              calibration=calibration)
    assert [o.got(0.6) for o in outcomes] == [["son buenas"], ["son buenas"]]
    assert [min(o.latencies(0.6)) < 0.45 for o in outcomes] == [True, True]


@pytest.mark.shared
def test_a_word_heard_in_a_pause_does_not_end_the_phrase_before_the_call_after_it() -> None:
    """Espeak es-419's fast «¿y si te canto truco?», said a metre from the microphone in a room
    (RT60 0.3 s) at 10 dB: in the pause before «truco» the voices' band is at the background
    and «truco»'s last vowel barely rises above it, so the best path's «truco» goes 0.2 s into
    that pause while it is still said. Ending the phrase there cut the word, and the whole phrase
    heard «once» in its place: a word must go on further into a pause than the pause that ends a
    phrase (``soak_s``) to be taken for a sound soaking up the noise.  (With the pre-roll, the
    whole phrase hears «truco» alone, doubtful, where it heard a «quiero» in «y si te canto» too,
    docs/voice.md, "The start of a phrase"; with ``soak_s`` 0.02 it hears nothing.)"""
    from functools import partial

    from benchmarks.speech_corpus import NOISE_LEAD_S, NOISE_TAIL_S, heard

    frames = partial(heard, snr="10", room=(0.3, 0.0), tail_s=NOISE_TAIL_S, lead_s=NOISE_LEAD_S)
    [outcome] = heard_at_10_db("espeak-ng:es-419+f3", "¿y si te canto truco?", ("fast/high",),
                               frames=frames)
    assert [label for label, *_ in outcome.heard] == ["truco"]


@pytest.mark.shared
@pytest.mark.parametrize("first,second", [("envido", "no quiero"), ("retruco", "vale cuatro")])
def test_two_calls_in_steady_noise_are_two_phrases_and_nothing_is_heard_twice(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]], first: str, second: str) -> None:
    """With 0.6 s between them, at 5 dB: each call its own phrase, handed over within 0.3 s of
    its end; the audio after the first call's last word is heard again with the second, and
    nothing of it twice."""
    finals, ends = finals_in_noise(model, shared_dir, es3_calls, SphinxTuning(),
                                   [(first, "normal"), (second, "normal")])
    assert [[h.label for h in parse(r.text) if h.kind == "call"] for r in finals] == [[first], [second]]
    assert [r.stream_time - end < 0.3 for r, end in zip(finals, ends)] == [True, True]
    assert finals[0].end <= finals[1].start


@pytest.mark.shared
def test_the_phrase_after_one_that_ended_in_noise_listens_for_what_the_table_then_expects(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]]) -> None:
    """The phrase that ended while the voice detector heard on reaches the table before the next
    one asks the table what it expects (after a «flor», its answers)."""
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    for k, row in enumerate(es3_calls[:10]):
        rec.settle(noisy_pcm(shared_dir, row, 5.0, k))
    rows = [next(r for r in es3_calls if (r["label"], r["speed"], r["pitch"]) == want)
            for want in (("flor", "normal", "low"), ("contraflor", "normal", "high"))]
    pcm, _ = said_in_noise(shared_dir, rows, 5.0, seed=1)
    handed: list[Result] = []
    asked_after: list[int] = []  # how many finals the table had when each phrase began
    rec.expecting = lambda: asked_after.append(sum(r.final for r in handed)) or frozenset()
    for i in range(0, len(pcm), 3200):
        handed += rec.feed(pcm[i:i + 3200])
    handed += rec.flush()
    assert next(r.text for r in handed if r.final) == "flor"  # the first phrase ended on it
    assert asked_after[:2] == [0, 1]  # the second began once the «flor» was handed over


@pytest.mark.shared
def test_steady_noise_with_no_one_talking_is_not_decoded(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]]) -> None:
    """At 5 dB the voice detector hears ten seconds of noise as voice. A phrase that has heard
    nothing of the table for ``quiet_phrase_s`` ends, so none grows long (each partial result
    costs as much as the phrase is long), but all of it is decoded, some of it twice; with the
    voices' band back at the background, the noise is hardly decoded at all."""
    noise = read_wav(shared_dir / "speech" / "noise" / "pinknoise.wav")[:, 0]
    speech = read_wav(shared_dir / "speech" / es3_calls[0]["file"])
    quiet = mix_noise(np.zeros((10 * RATE, 1)), 5.0, noise, random.Random(2), speech_power(speech))
    pcm = to_chunk(quiet, 0.0).pcm
    for tuning, (least, most), (low, high) in (
            (SphinxTuning(wordless_after_s=0.0, quiet_phrase_s=60.0), (1, 1), (9.5, 10.1)),
            (SphinxTuning(wordless_after_s=0.0), (5, 8), (12.0, 16.0)),
            (SphinxTuning(), (0, 3), (0.0, 1.5))):
        rec = SphinxRecognizer(PhraseList.from_table(), model, tuning=tuning)
        for k, row in enumerate(es3_calls[:10]):
            rec.settle(noisy_pcm(shared_dir, row, 5.0, k))
        finals = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200]) if r.final]
        finals += [r for r in rec.flush() if r.final]
        assert rec.noisy
        assert least <= len(finals) <= most, (tuning, len(finals))
        assert low <= rec.decoded_time <= high, (tuning, rec.decoded_time)
        assert not any(r.words for r in finals)


@pytest.mark.shared
def test_a_call_after_noise_no_one_talked_in_is_heard_as_if_the_noise_had_been_decoded(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]]) -> None:
    """Four seconds of noise with no one talking, then a call, at 10 and 5 dB: the noise is not
    decoded, but the phrase begins with a second of it, from which Sphinx's noise removal learns
    the noise (24 calls of a held-out voice: 20 heard with every moment decoded, 13 without the
    second of noise, 19 with it, when this test was written; 21, 14 and 18 once a phrase in noise
    was decoded ahead of the voice detector at a pause, ``SphinxTuning.catch_up``)."""
    rows = [r for r in es3_calls if (r["speed"], r["pitch"]) == ("normal", "low")]
    heard: dict[tuple[float, float], int] = {}
    for gate, lead in ((0.0, 0.0), (0.3, 0.0), (0.3, 1.0)):
        tuning = SphinxTuning(wordless_after_s=gate, noise_lead_s=lead)
        rec = SphinxRecognizer(PhraseList.from_table(), model, tuning=tuning)
        heard[gate, lead] = 0
        for snr in (10.0, 5.0):
            rec.reset()
            for k, row in enumerate(es3_calls[:10]):
                rec.settle(noisy_pcm(shared_dir, row, snr, k))
            levels, mean = rec.noise_levels, rec.cepstral_mean
            for row in rows:
                rec.reset()
                rec.noise_levels, rec.cepstral_mean = levels, mean
                pcm, ends = said_in_noise(shared_dir, [row], snr, seed=3, lead=4.0)
                results = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200])]
                calls = [(h.label, r.stream_time - ends[0]) for r in results + rec.flush()
                         if r.final for h in parse(r.text) if h.kind == "call"]
                heard[gate, lead] += any(label == row["label"] and after < 0.6 for label, after in calls)
    assert heard[0.3, 1.0] >= heard[0.3, 0.0] + 3, heard
    assert heard[0.3, 1.0] >= heard[0.0, 0.0] - 3, heard


@pytest.mark.shared
def test_the_noise_before_a_number_is_no_start_of_it_missed(
        model: Path, shared_dir: Path, es3_calls: list[dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A number right after sounds heard as no word waits for a tap: its start may have been
    missed (``misheard.NUMBER_AFTER_SOUND_S``). At a noisy table the noise a phrase begins with
    is such a sound, and is not counted: of 24 numbers said after 4 s of noise at 10 dB, 16 were
    heard right and sure when this test was written, 11 with that noise counted."""
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["voice"] == "mbrola:es3"
                and r["label"].startswith("puntos") and (r["speed"], r["pitch"]) == ("normal", "low")]
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    for k, row in enumerate(es3_calls[:10]):
        rec.settle(noisy_pcm(shared_dir, row, 10.0, k))
    levels, mean = rec.noise_levels, rec.cepstral_mean

    def sure_and_right() -> int:
        right = 0
        for row in rows:
            rec.reset()
            rec.noise_levels, rec.cepstral_mean = levels, mean
            pcm, _ = said_in_noise(shared_dir, [row], 10.0, seed=3, lead=4.0)
            results = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200])]
            for result in (doubt_misheard(r) for r in results + rec.flush() if r.final):
                numbers = [h for h in parse(result.text) if h.kind == "points"]
                right += any(f"puntos:{h.points}" == row["label"]
                             and min(w.conf for w in result.words[h.start:h.end]) >= 0.9
                             for h in numbers)
        return right

    kept = sure_and_right()
    monkeypatch.setattr(NoiseMeter, "loud_since", lambda self, t: ((0.0, 1e9),))  # all the phrase
    counted = sure_and_right()
    assert kept >= 14 and kept >= counted + 4, (kept, counted)

"""What serve says at start about its recognizer, its microphone and its learning: what runs, what
does not and why, and how to make it hear better."""

from __future__ import annotations

import io
import itertools
import sys
import threading
import time
import wave
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from referee import audio_sources, startup, startup_lines, table_listening
from referee.asr.find import ModelChoice
from referee.audio import AudioChunk, to_chunk, to_pcm
from referee.commands.serve_arguments import demo_arguments
from referee.commands.serve_terminal import event_line
from referee.recognizer_choice import recognizer_part
from tests.referee.test_voices_command import FakeSoundDevice


def line(choice: ModelChoice, low_accuracy: bool = False) -> str:
    return recognizer_part(choice, SimpleNamespace(low_accuracy=low_accuracy)).detail


def test_an_uncalibrated_spanish_model_suggests_calibrating_to_the_table() -> None:
    text = line(ModelChoice("sphinx", Path("/m/sphinx")))
    assert "voices calibrate" in text and "models fetch" in text


def test_a_calibrated_model_says_so_and_does_not_ask_again() -> None:
    text = line(ModelChoice("sphinx", Path("/m/sphinx"), calibration=Path("/m/voice-calibration/mllr")))
    assert "calibración de voces" in text and "voices calibrate" not in text


def test_the_english_fallback_says_it_is_low_accuracy_and_how_to_leave_it() -> None:
    text = line(ModelChoice("sphinx", Path("/wheel/en-us"), english=True), low_accuracy=True)
    assert "baja precisión" in text and "models fetch" in text and "voices calibrate" not in text


def test_vosk_asks_for_nothing() -> None:
    text = line(ModelChoice("vosk", Path("/m/vosk")))
    assert "models fetch" not in text and "voices calibrate" not in text


@pytest.mark.parametrize(("origin", "said"), [
    ("page", "tablet"), ("confirm", "tablet"), ("voice", "voz"), ("camera", "cámara")])
def test_each_stored_event_says_who_made_it(origin: str, said: str) -> None:
    assert f"({said})" in event_line("apply", "A1: truco", origin, {"A": 0, "B": 0})


@pytest.mark.parametrize(("mics", "said"), [
    (["7"], "no hay un micrófono con el número 7"),
    (["fake", "nope"], "no encuentro un micrófono que se llame 'nope'"),
])
def test_a_microphone_that_is_not_there_is_a_cross_with_the_reason(
        mics: list[str], said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice(["fakemic", "default"]))
    args = SimpleNamespace(wav=None, mic=mics, channels=1)
    source, part = audio_sources.audio_source(args, lambda line: None)
    assert source is not None  # it keeps looking while the buttons keep the score
    assert not part.running and said in part.detail and "fakemic" in part.detail


def test_the_microphone_asked_for_is_a_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice(["fakemic", "default"]))
    _, part = audio_sources.audio_source(SimpleNamespace(wav=None, mic=["fake"], channels=1),
                                    lambda line: None)
    assert part.running and part.detail == "fake (hay: fakemic, default)"


def test_without_portaudio_the_microphone_line_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice([], portaudio=False))
    _, part = audio_sources.audio_source(SimpleNamespace(wav=None, mic=None, channels=1),
                                    lambda line: None)
    assert not part.running and "sistema de audio" in part.detail


@pytest.mark.parametrize(("recognizer", "said"), [
    (SimpleNamespace(low_accuracy=False), "--recognizer sphinx"),  # Vosk: no means to adapt
    (SimpleNamespace(low_accuracy=True, use_means=None), "models fetch sphinx-es"),
])
def test_learning_with_a_recognizer_that_cannot_learn_says_why(recognizer: object, said: str) -> None:
    args = SimpleNamespace(wav=None, models_dir=None)
    part = table_listening._learn(args, None, recognizer, lambda line: None, lambda: None)
    assert part.name == "aprendizaje" and not part.running and said in part.detail


# -- what the tablet shows of the microphone -------------------------------------------------

class Pages:
    """The scoreboard's service as far as the microphone and the camera tell it how they are."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str, str]] = []
        self.stop: Any = None  # a source to stop once it said something

    def set_source(self, key: str, state: str, message: str) -> None:
        self.shown.append((key, state, message))
        if self.stop is not None:
            self.stop.stop()

    def expected(self) -> frozenset[str]:
        return frozenset()  # a table that expects nothing: the recognizer hears as it always did

    def snapshot(self) -> dict[str, Any]:
        return {"score": {"A": 0, "B": 0}}


class Stream:
    """PortAudio's input stream on a microphone that hears silence."""

    def __init__(self, callback: Callable[..., None], blocksize: int) -> None:
        self.callback, self.blocksize = callback, blocksize

    def __enter__(self) -> None:
        self.callback(np.zeros((self.blocksize, 1), np.int16), self.blocksize, None, None)

    def __exit__(self, *exc: object) -> None:
        return None


class PluggedLater(FakeSoundDevice):
    """No microphone for the first ``looks`` looks; then ``names`` are there, and hear."""

    def __init__(self, names: list[str], looks: int = 0) -> None:
        super().__init__([])
        self.later, self.looks = names, looks

    @property
    def default(self) -> Any:
        return type("Default", (), {"device": (0, 0)})()

    def query_devices(self) -> list[dict[str, Any]]:
        self.looks -= 1
        self.names = self.later if self.looks < 0 else []
        return super().query_devices()

    def InputStream(self, **options: Any) -> Any:
        return Stream(options["callback"], options["blocksize"])


def test_a_microphone_plugged_in_late_shows_on_the_tablet_missing_then_listening(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", PluggedLater(["fakemic"], looks=2))
    pages, said = Pages(), list[str]()
    args = demo_arguments(mic=None, channels=1)
    source, part = audio_sources.audio_source(args, said.append, pages)
    assert not part.running and pages.shown == []  # the listener's first try says it
    source.retry_s = 0
    next(iter(source))
    assert pages.shown == [
        ("mic", "trouble", "no hay ningún micrófono conectado: enchufá uno; reintento en 0 s"),
        ("mic", "ok", "escuchando")]
    assert said == ["micrófono: no hay ningún micrófono conectado: enchufá uno; reintento en 0 s",
                    "micrófono: escuchando"]  # the terminal as before


def test_with_a_microphone_per_team_each_shows_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", PluggedLater(["fakemic"]))
    pages, said = Pages(), list[str]()
    args = demo_arguments(mic=["fake", "nope"], channels=1)
    source, _ = audio_sources.audio_source(args, said.append, pages)
    team_a, team_b = source.sources
    next(iter(team_a))
    pages.stop, team_b.retry_s = team_b, 0
    assert list(team_b) == []
    assert pages.shown == [
        ("mic A", "ok", "escuchando"),
        ("mic B", "trouble", "no encuentro un micrófono que se llame 'nope'; reintento en 0 s")]
    assert said == ["micrófonos: el de A: escuchando",
                    f"micrófonos: el de B: {pages.shown[1][2]}"]


class Playing(Stream):
    """PortAudio's input stream on a microphone that hears ``sound`` (16-bit frames), all of it
    handed over as it opens."""

    def __init__(self, callback: Callable[..., None], blocksize: int, sound: np.ndarray) -> None:
        super().__init__(callback, blocksize)
        self.sound = sound

    def __enter__(self) -> None:
        for k in range(0, len(self.sound), self.blocksize):
            self.callback(self.sound[k: k + self.blocksize], self.blocksize, None, None)


class Headset(PluggedLater):
    """A microphone that hears ``sound`` (float frames at 16 kHz)."""

    def __init__(self, sound: np.ndarray) -> None:
        super().__init__(["auriculares"])
        self.sound = (sound * 32767).astype(np.int16)

    def InputStream(self, **options: Any) -> Any:
        return Playing(options["callback"], options["blocksize"], self.sound)


def test_a_microphone_through_a_narrow_line_shows_it_hears_poorly_until_its_sound_is_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.speech_corpus import through_line
    from referee.device_status import NARROW_LINE
    from tests.referee.talk import talk

    monkeypatch.setitem(sys.modules, "sounddevice",
                        Headset(np.concatenate([through_line(talk(10.5)), talk(5, seed=2)])))
    pages, said = Pages(), list[str]()
    source, _ = audio_sources.audio_source(demo_arguments(mic=None, channels=1), said.append, pages)
    heard = list(itertools.islice(iter(source), 150))
    source.stop()
    assert len(heard) == 150
    assert pages.shown == [("mic", "ok", "escuchando"), ("mic", "poor", NARROW_LINE),
                           ("mic", "ok", "escuchando")]
    assert said == ["micrófono: escuchando", f"micrófono: {NARROW_LINE}", "micrófono: escuchando"]


def test_a_microphone_turned_up_too_far_shows_it_hears_poorly_until_it_is_turned_down(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.speech_corpus import clipped
    from referee.device_status import CLIPPED_LINE
    from tests.referee.talk import talk

    monkeypatch.setitem(sys.modules, "sounddevice",
                        Headset(np.concatenate([clipped(talk(5), 6.0), talk(15, seed=2)])))
    pages, said = Pages(), list[str]()
    source, _ = audio_sources.audio_source(demo_arguments(mic=None, channels=1), said.append, pages)
    heard = list(itertools.islice(iter(source), 200))
    source.stop()
    assert len(heard) == 200
    assert pages.shown == [("mic", "ok", "escuchando"), ("mic", "poor", CLIPPED_LINE),
                           ("mic", "ok", "escuchando")]
    assert said == ["micrófono: escuchando", f"micrófono: {CLIPPED_LINE}", "micrófono: escuchando"]


def test_a_recording_through_a_narrow_line_shows_it_is_heard_poorly_from_where_it_sounds_so(
        tmp_path: Path) -> None:
    """``serve --wav`` plays a recording as if it were the microphone, and the tablet's badge
    says what the terminal says of its sound, as it does a microphone's."""
    from benchmarks.speech_corpus import through_line
    from referee.device_status import FULL_RECORDING, NARROW_RECORDING
    from tests.referee.talk import talk
    from tests.referee.test_band import _wav

    path = _wav(tmp_path / "auricular.wav",
                np.concatenate([through_line(talk(10.5)), talk(10, seed=2)]))
    pages, said = Pages(), list[str]()
    source, part = audio_sources.audio_source(demo_arguments(wav=str(path)), said.append, pages)
    assert part.running
    source.realtime = False  # as fast as it goes: the test need not wait 20 s
    for _ in source:
        pass
    narrow, full = f"a los 5.8 s {NARROW_RECORDING}", f"a los 10.6 s {FULL_RECORDING}"
    assert pages.shown == [("mic", "poor", narrow), ("mic", "ok", full)]
    assert said == [f"grabación: {narrow}", f"grabación: {full}"]  # the terminal as before

def test_a_microphone_per_team_starts_with_the_lag_kept_last_time(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from referee.table_sound import keep_lag, lag_file

    monkeypatch.setitem(sys.modules, "sounddevice", PluggedLater(["fake", "other"]))
    keep_lag(lag_file(tmp_path, "fake", "other"), 0.25)
    said = list[str]()
    args = demo_arguments(mic=["fake", "other"], channels=1, data_dir=tmp_path)
    source, _ = audio_sources.audio_source(args, said.append, Pages())
    assert source.lag == 0.25
    assert said == [("micrófonos: como la última vez, el de B entrega su sonido 250 ms después "
                     "que el de A")]


def test_the_lag_is_kept_for_the_devices_not_for_their_numbers(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Given by number, the two devices' lag is kept by their names: plugged in the other way
    round, the same two have each other's numbers and start with their own lag.  Two of the same
    name (one model) are kept by their numbers, which alone tell them apart."""
    from referee.table_sound import keep_lag, lag_file

    keep_lag(lag_file(tmp_path, "fake", "other"), 0.25)
    keep_lag(lag_file(tmp_path, "0", "1"), -0.1)
    for names, numbers, lag in [(["fake", "other"], ["0", "1"], 0.25),
                                (["other", "fake"], ["1", "0"], 0.25),
                                (["other", "fake"], ["0", "1"], None),
                                (["fake", "fake"], ["0", "1"], -0.1)]:
        monkeypatch.setitem(sys.modules, "sounddevice", PluggedLater(names))
        args = demo_arguments(mic=numbers, channels=1, data_dir=tmp_path)
        source, _ = audio_sources.audio_source(args, lambda line: None, Pages())
        assert source.lag == lag, (names, numbers)


def test_no_recognizer_shows_the_microphone_in_trouble(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.asr.base import RecognizerError

    def missing(args: Any) -> Any:
        raise RecognizerError("model-missing", "no encuentro ningún modelo de voz")

    monkeypatch.setattr(startup, "load_recognizer", missing)
    pages = Pages()
    [part] = startup.start_listening(demo_arguments(), pages, lambda line: None)
    assert not part.running
    said = "no encuentro ningún modelo de voz; se anota con los botones"
    assert pages.shown == [("mic", "trouble", said)]


def test_what_was_not_asked_for_is_not_shown() -> None:
    pages = Pages()
    startup.start_listening(demo_arguments(no_mic=True), pages, lambda line: None)
    startup.start_camera(demo_arguments(), pages, lambda line: None)  # no --camera
    assert pages.shown == []


class Deaf:
    """A recognizer that hears nothing."""

    def feed(self, pcm: bytes) -> list[Any]:
        return []

    def flush(self) -> list[Any]:
        return []


def _ends(source: Iterable[AudioChunk], tmp_path: Path, **options: Any) -> Pages:
    """Listen to ``source`` until it ends (or fails); what the tablet was told."""
    pages, done = Pages(), threading.Event()
    args = demo_arguments(data_dir=tmp_path, **options)
    table_listening.listen(args, pages, Deaf(), source, lambda line: None, done.set)
    if options.get("wav"):
        assert done.wait(10)
    else:
        deadline = time.monotonic() + 10
        while not pages.shown and time.monotonic() < deadline:
            time.sleep(0.01)
    return pages


def test_a_recording_heard_to_its_end_shows_the_microphone_off(tmp_path: Path) -> None:
    pages = _ends([to_chunk(np.zeros((1600, 1)), 0.0)], tmp_path, wav="partida.wav")
    assert pages.shown == [("mic", "off", "la grabación terminó")]


@pytest.mark.parametrize("expected, said", [
    (None, "la grabación terminó: 0 a 0"),
    ({"A": 0, "B": 0}, "la grabación terminó: 0 a 0, como da el guion"),
    ({"A": 15, "B": 4}, "la grabación terminó: 0 a 0; el guion da 15 a 4: lo que no se oyó"),
])
def test_the_demo_says_how_its_score_compares_with_its_script(
        tmp_path: Path, expected: dict[str, int] | None, said: str) -> None:
    pages, done, lines = Pages(), threading.Event(), []
    args = demo_arguments(data_dir=tmp_path, wav="partida.wav", exit_when_done=True,
                          expected_score=expected)
    table_listening.listen(args, pages, Deaf(), [to_chunk(np.zeros((1600, 1)), 0.0)], lines.append,
                    done.set)
    assert done.wait(10)
    [end] = [line for line in lines if "la grabación terminó" in line]
    assert end.startswith(said) and (expected is not None or end == said)


def test_a_listener_that_stops_shows_the_microphone_in_trouble(tmp_path: Path) -> None:
    def breaks() -> Iterator[AudioChunk]:
        yield to_chunk(np.zeros((1600, 1)), 0.0)
        raise RuntimeError("el reconocedor se colgó")

    pages = _ends(breaks(), tmp_path)
    said = "la escucha se detuvo (la terminal dice por qué); se anota con los botones"
    assert pages.shown == [("mic", "trouble", said)]


class Adaptable(Deaf):
    """A recognizer of the Spanish Sphinx model, which a calibration adapts; it counts what it hears."""

    low_accuracy = False
    model_dir = Path("/m/sphinx")

    def __init__(self) -> None:
        self.fed = 0

    def feed(self, pcm: bytes) -> list[Any]:
        self.fed += 1
        return []

    def use_means(self, path: Path) -> None:
        raise AssertionError("nothing was calibrated")


class CalibratingPages(Pages):
    """The scoreboard's service, which also shows a calibration from the tablet."""

    calibration: Any = None

    def __init__(self) -> None:
        super().__init__()
        self.calibrations: list[dict[str, Any]] = []

    def set_calibration(self, state: dict[str, Any]) -> None:
        self.calibrations.append(state)


@pytest.mark.parametrize("wav", [None, "partida.wav"])
def test_a_microphone_heard_by_the_spanish_model_can_be_calibrated_from_the_tablet(
        tmp_path: Path, wav: str | None) -> None:
    pages, recognizer, listening = CalibratingPages(), Adaptable(), threading.Event()

    def table() -> Iterator[AudioChunk]:
        yield to_chunk(np.zeros((1600, 1)), 0.0)
        if pages.calibration is not None:
            pages.calibration.act("start", 1)
        yield to_chunk(np.zeros((1600, 1)), 0.1)
        listening.set()

    args = demo_arguments(data_dir=tmp_path, models_dir=str(tmp_path), wav=wav)
    parts = table_listening.listen(args, pages, recognizer, table(), lambda line: None, None)
    assert listening.wait(10)
    if wav:  # a recording is not the table: nobody there to say the prompts
        assert parts == [] and pages.calibration is None and pages.calibrations == []
        return
    assert [part.name for part in parts] == ["calibración"] and "Ajustes → Voces" in parts[0].detail
    assert [s["state"] for s in pages.calibrations] == ["idle", "listening"]
    assert recognizer.fed == 1  # the audio after the tap went to the calibration


@pytest.mark.parametrize("seconds", [60, 0])
def test_the_table_s_last_sound_is_kept_for_the_pages_unless_told_not_to(
        tmp_path: Path, seconds: int) -> None:
    class Listening(Pages):
        table_audio: Any = None  # what the scoreboard's service plays again

    pages, listened = Listening(), threading.Event()

    def table() -> Iterator[AudioChunk]:
        yield to_chunk(np.full((1600, 1), 0.25), 0.0)
        listened.set()  # the first tenth of a second has gone by

    args = demo_arguments(data_dir=tmp_path, models_dir=str(tmp_path), table_audio=seconds)
    table_listening.listen(args, pages, Adaptable(), table(), lambda line: None, None)
    assert listened.wait(10)
    if not seconds:  # --table-audio 0: nothing of the table's sound is kept
        assert pages.table_audio is None
        return
    replay = pages.table_audio.last(30)
    with wave.open(io.BytesIO(replay.wav)) as w:
        assert w.getnframes() == 1600 and w.readframes(1) == to_pcm(np.full((1, 1), 0.25))


class Calibrated(Adaptable):
    """A recognizer of the Spanish Sphinx model, calibrated or not; a calibration handed to it
    counts as in use at once, as ``SphinxRecognizer.calibrated`` says before its next pause."""

    def __init__(self, means: Path | None) -> None:
        super().__init__()
        self.calibrated = means is not None

    def use_means(self, path: Path | None) -> None:
        self.calibrated = path is not None


@pytest.mark.parametrize("line", ["narrow", "full"])
def test_a_narrow_microphone_the_voices_were_calibrated_through_is_shown_fine_until_forgotten(
        tmp_path: Path, line: str) -> None:
    from benchmarks.speech_corpus import through_line
    from referee.asr.kept_recordings import save_prompts
    from referee.audio import to_pcm
    from referee.device_status import NARROW_CALIBRATED, NARROW_LINE
    from referee.microphone import MicSource
    from tests.referee.talk import talk

    said = talk(6)
    save_prompts(tmp_path, [[(to_pcm(through_line(said) if line == "narrow" else said), "truco")]])
    pages = CalibratingPages()
    mic = MicSource("auriculares", on_status=startup_lines.source_status(pages, "mic", lambda _: None))
    args = demo_arguments(data_dir=tmp_path, models_dir=str(tmp_path))
    recognizer = Calibrated(tmp_path / "means")
    lines = startup.line_statuses(args, recognizer, mic)
    table_listening._calibration(args, pages, recognizer, lambda _: None, lines)
    mic.on_status("escuchando")
    mic.on_status(NARROW_LINE)  # what the microphone says of its sound (referee.band)
    pages.calibration.act("forget")  # the calibration it was recorded through is gone
    assert pages.shown[:2] == [
        ("mic", "ok", "escuchando"),
        ("mic", "ok", NARROW_CALIBRATED) if line == "narrow" else ("mic", "poor", NARROW_LINE)]
    assert pages.shown[2:] == [("mic", "poor", NARROW_LINE)]  # said again (the pages show news only)


@pytest.mark.parametrize("line", ["narrow", "full"])
def test_voices_learned_from_play_alone_through_a_narrow_microphone_show_it_fine(
        tmp_path: Path, line: str) -> None:
    from benchmarks.speech_corpus import through_line
    from referee.asr.adapt import Stats
    from referee.asr.learn import Learned, narrow_voices, save
    from referee.audio import to_pcm
    from referee.device_status import NARROW_CALIBRATED, NARROW_LINE
    from referee.microphone import MicSource
    from tests.referee.talk import talk

    said = talk(6)
    heard = [(to_pcm(through_line(said) if line == "narrow" else said), "truco")]  # no prompts
    pages, recognizer = CalibratingPages(), Calibrated(None)
    mic = MicSource("auriculares", on_status=startup_lines.source_status(pages, "mic", lambda _: None))
    args = demo_arguments(data_dir=tmp_path, models_dir=str(tmp_path))
    lines = startup.line_statuses(args, recognizer, mic)
    mic.on_status(NARROW_LINE)
    learned = Learned(np.zeros((1, 1, 1, 13)), Stats(np.ones((1, 1, 1)), np.zeros((1, 1, 1, 13))),
                      0, len(heard), narrow_voices([heard]))
    recognizer.use_means(save(tmp_path, recognizer.model_dir, learned, learned_until=1))
    lines()  # what the learner calls once it learned (``TableLearner.on_learned``)
    assert pages.shown == [("mic", "poor", NARROW_LINE),  # said again (the pages show news only)
                           ("mic", "ok", NARROW_CALIBRATED) if line == "narrow"
                           else ("mic", "poor", NARROW_LINE)]


def test_a_recording_serve_plays_says_on_the_terminal_when_it_sounds_like_a_telephone(
        tmp_path: Path) -> None:
    from benchmarks.speech_corpus import through_line
    from referee.audio import to_pcm
    from referee.device_status import NARROW_RECORDING
    from referee.evidence import write_wav
    from tests.referee.talk import talk

    wav = tmp_path / "auricular.wav"
    write_wav(wav, to_pcm(through_line(talk(8))))
    said: list[str] = []
    source, part = audio_sources.audio_source(demo_arguments(wav=str(wav)), said.append)
    source.realtime = False  # as fast as it can be read
    list(source)
    assert part.running and said == [f"grabación: a los 5.8 s {NARROW_RECORDING}"]

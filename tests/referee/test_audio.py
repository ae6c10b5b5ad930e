"""Audio in: WAV reading and resampling, chunking, channel levels, microphone errors."""

from __future__ import annotations

import itertools
import struct
import sys
import threading
import tracemalloc
import wave
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pytest

from referee import microphone
from referee.audio import SAMPLE_RATE, AudioError, Channels, to_chunk, to_pcm
from referee.device_status import NARROW_LINE, print_status
from referee.microphone import InputDevice, MicSource, resolve_device
from referee.resampling import Resampler, resample
from referee.wav import WavSource, read_wav


def _write(path: Path, data: np.ndarray, rate: int) -> None:
    frames = data if data.ndim == 2 else data[:, None]
    with wave.open(str(path), "wb") as w:
        w.setnchannels(frames.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((frames * 32767).astype("<i2").tobytes())


def _tone(rate: int, seconds: float, hz: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return 0.5 * np.sin(2 * np.pi * hz * t)


@pytest.mark.parametrize("rate", [8000, 16000, 22050, 44100, 48000])
def test_read_wav_resamples_to_16k_keeping_duration_and_pitch(tmp_path: Path, rate: int) -> None:
    path = tmp_path / "tone.wav"
    _write(path, _tone(rate, 1.0), rate)
    frames = read_wav(path)
    assert abs(len(frames) - SAMPLE_RATE) <= 2
    spectrum = np.abs(np.fft.rfft(frames[:, 0]))
    peak_hz = np.argmax(spectrum) * SAMPLE_RATE / len(frames)
    assert abs(peak_hz - 440) < 5


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_a_long_recording_streams_the_same_chunks_it_would_whole(tmp_path: Path, rate: int) -> None:
    samples = np.random.default_rng(rate).uniform(-0.5, 0.5, (int(rate * 2.35), 2))
    path = tmp_path / "larga.wav"
    _write(path, samples, rate)
    source = WavSource(path, chunk_s=0.1)
    source.STRETCH_S = 0.5  # resampled half a second at a time: five stretches
    whole = read_wav(path)
    streamed = list(source)
    assert source.duration == len(whole) / SAMPLE_RATE
    assert b"".join(c.pcm for c in streamed) == to_pcm(whole)
    assert [c.levels for c in streamed] == [to_chunk(whole[k : k + 1600], 0.0).levels
                                            for k in range(0, len(whole), 1600)]


def test_a_long_recording_is_not_held_as_floats_whole(tmp_path: Path) -> None:
    rate = 48000
    path = tmp_path / "partida.wav"
    _write(path, 0.1 * _tone(rate, 300.0), rate)  # five minutes, as a phone records them
    size = path.stat().st_size
    tracemalloc.start()
    try:
        heard = sum(len(chunk.pcm) for chunk in WavSource(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert heard == 2 * 300 * SAMPLE_RATE
    assert peak < 3 * size  # before: over ten times the file, all of it as floats at once


def test_stereo_wav_reports_each_channel_level_and_hears_the_louder(tmp_path: Path) -> None:
    loud, quiet = _tone(16000, 0.5), 0.1 * _tone(16000, 0.5, hz=300.0)
    path = tmp_path / "two.wav"
    _write(path, np.stack([quiet, loud], axis=1), 16000)
    source = WavSource(path, chunk_s=0.1)
    chunks = list(source)
    assert source.channels == 2 and len(chunks) == 5
    for chunk in chunks:
        assert len(chunk.levels) == 2 and chunk.levels[1] > 5 * chunk.levels[0]
        assert len(chunk.pcm) == 2 * 1600
    assert [round(c.t, 2) for c in chunks] == [0.0, 0.1, 0.2, 0.3, 0.4]
    heard = np.frombuffer(b"".join(c.pcm for c in chunks), "<i2") / 32767
    assert np.abs(heard - loud).max() < 1e-3  # the loud channel alone, not mixed with the other


def test_two_channels_are_heard_by_the_louder_of_each_chunk() -> None:
    a, b = _tone(16000, 0.2), _tone(16000, 0.2, hz=300.0)
    a[1600:] *= 0.1  # A speaks in the first chunk, B in the second
    b[:1600] *= 0.1
    both = np.stack([a, b], axis=1)
    heard = np.frombuffer(to_pcm(both), "<i2") / 32767
    assert np.abs(heard - np.concatenate([a[:1600], b[1600:]])).max() < 1e-3
    assert to_chunk(both[:1600], 0.0).levels[0] > to_chunk(both[:1600], 0.0).levels[1]


def _two_noises(seconds: float, levels: tuple[float, float], seed: int = 1) -> np.ndarray:
    """Each channel's own noise (frames × 2), steady at its level."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((int(seconds * SAMPLE_RATE), 2)) * np.array(levels)


def _heard(frames: np.ndarray, in_step: bool = True) -> list[int]:
    """Which channel each chunk of the stream is heard from (``Channels``)."""
    channels = Channels()
    return [channels.hear(to_chunk(frames[k:k + 1600], 0.0).levels, in_step)[0]
            for k in range(0, len(frames), 1600)]


def test_two_microphones_out_of_step_are_not_cut_from_one_to_the_other_mid_phrase() -> None:
    """A speaks from 1 to 1.5 s; B's microphone, fainter, hands the same over 0.3 s later, so
    from 1.5 to 1.8 s only B's has it: the end of A's phrase again.  In step, that is B talking
    (B's voice louder), and the stream goes to B's microphone; not known to be in step, it stays
    A's until a voice starts after none: B's own phrase from 3 s."""
    both = _two_noises(5.0, (0.002, 0.002))
    voice = 0.2 * _tone(SAMPLE_RATE, 0.5)
    both[16000:24000, 0] += voice
    both[20800:28800, 1] += 0.3 * voice
    both[48000:56000, 1] += voice  # B's own, heard first by B's microphone
    both[48000:56000, 0] += 0.3 * voice
    assert _heard(both)[15] == 1  # in step: the tail is taken for B talking
    heard = _heard(both, in_step=False)
    assert set(heard[10:18]) == {0} and set(heard[30:35]) == {1}


def test_a_device_that_sends_digital_silence_first_has_its_noise_as_background() -> None:
    """B's device sends zeros for its first half second, then its room's quiet noise: that noise
    is its background, not a voice (an out-of-step pair is cut to it where no voice starts)."""
    both = _two_noises(2.0, (0.002, 0.002))
    both[:8000, 1] = 0.0
    channels = Channels()
    for k in range(0, len(both), 1600):
        chunk = to_chunk(both[k:k + 1600], 0.0, channels)
    assert chunk.voices == (0.0, 0.0)
    assert chunk.backgrounds[1] == pytest.approx(0.002, rel=0.1)


def test_a_chunk_not_heard_yet_is_talking_where_a_channel_stands_above_its_background() -> None:
    """What ``mics.TeamMics`` asks of a chunk before it goes on: someone talks in it where some
    channel is 6 dB above its background (each channel's own); with nothing heard, or only
    digital silence (a device's first zeros), none yet: its first sound is no voice."""
    channels = Channels()
    assert not channels.talking((0.5, 0.5))
    channels.hear((0.0, 0.0))
    assert not channels.talking((0.002, 0.02))
    for _ in range(10):
        channels.hear((0.002, 0.02))  # A's quiet room, B's louder one
    assert not channels.talking((0.003, 0.02))
    assert channels.talking((0.005, 0.02)) and channels.talking((0.002, 0.05))


def test_between_phrases_one_microphone_is_heard_not_two_noises_cut_together() -> None:
    both = _two_noises(6.0, (0.02, 0.02))
    voice = 0.2 * _tone(SAMPLE_RATE, 1.0)
    both[32000:48000, 1] += voice  # B speaks from 2 to 3 s
    heard = _heard(both)
    assert len(set(heard[:20])) == 1  # the noise before: one microphone, as loud as the other
    assert set(heard[21:30]) == {1}  # B's voice from B's microphone
    assert set(heard[30:]) == {1}  # and the noise after from it still, until someone speaks
    loudest = [int(np.argmax(to_chunk(both[k:k + 1600], 0.0).levels)) for k in range(0, 32000, 1600)]
    assert len(set(loudest)) == 2  # the loudest would have cut between the two noises


def test_a_radio_by_one_microphone_does_not_make_it_the_one_heard() -> None:
    both = _two_noises(5.0, (0.3, 0.02))  # a radio by A's microphone, louder than B's voice
    both[32000:48000, 1] += 0.2 * _tone(SAMPLE_RATE, 1.0)
    both[32000:48000, 0] += 0.05 * _tone(SAMPLE_RATE, 1.0)  # A's microphone hears B less
    heard = _heard(both)
    assert set(heard[21:30]) == {1}
    assert to_chunk(both[32000:33600], 2.0).levels[0] > 0.3  # the louder is A's, all along


def test_to_chunk_clips_and_converts_to_int16() -> None:
    chunk = to_chunk(np.array([[2.0], [-2.0], [0.0]]), 1.5)
    assert np.frombuffer(chunk.pcm, "<i2").tolist() == [32767, -32768, 0]
    assert chunk.t == 1.5


def test_missing_or_broken_wav_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(AudioError) as err:
        read_wav(tmp_path / "nope.wav")
    assert err.value.code == "wav-missing"
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not a wav at all")
    with pytest.raises(AudioError) as err:
        read_wav(bad)
    assert err.value.code == "wav-unreadable"


def test_wav_cut_at_an_odd_byte_drops_the_partial_sample(tmp_path: Path) -> None:
    path = tmp_path / "cortado.wav"
    _write(path, _tone(SAMPLE_RATE, 0.5), SAMPLE_RATE)
    path.write_bytes(path.read_bytes()[:-1])  # the header still counts the last sample
    frames = read_wav(path)  # before: "buffer size must be a multiple of element size"
    assert frames.shape == (SAMPLE_RATE // 2 - 1, 1)
    assert WavSource(path).duration == pytest.approx(0.5, abs=0.001)


def test_a_folder_given_as_wav_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(AudioError) as err:  # before: IsADirectoryError
        WavSource(tmp_path)
    assert err.value.code == "wav-is-folder" and "es una carpeta" in err.value.message


DEVICES = [InputDevice(0, "Built-in Audio", 2, 48000.0, True),
           InputDevice(3, "USB Mic Team A", 1, 16000.0, False)]


@pytest.mark.parametrize("spec,index", [(None, None), ("3", 3), (0, 0), ("usb mic", 3)])
def test_resolve_device_by_index_or_name(spec: str | int | None, index: int | None) -> None:
    assert resolve_device(spec, DEVICES) == index


@pytest.mark.parametrize("spec", ["7", "bluetooth"])
def test_resolve_device_unknown_is_mic_missing(spec: str) -> None:
    with pytest.raises(AudioError) as err:
        resolve_device(spec, DEVICES)
    assert err.value.code == "mic-missing"


def test_missing_microphone_reports_and_retries_instead_of_crashing() -> None:
    messages: list[str] = []
    mic: MicSource

    def status(msg: str) -> None:
        messages.append(msg)
        if len(messages) >= 2:
            mic.stop()

    mic = MicSource("no-such-microphone-anywhere", retry_s=0.0, on_status=status)
    assert list(mic) == []
    assert len(messages) == 2
    assert all("reintento" in m for m in messages)


def test_a_microphone_still_missing_is_said_once_on_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    say, tries = print_status("micrófono"), []
    mic: MicSource

    def status(msg: str) -> None:
        tries.append(msg)
        say(msg)
        if len(tries) >= 3:
            mic.stop()

    mic = MicSource("no-such-microphone-anywhere", retry_s=0.0, on_status=status)
    assert list(mic) == []
    assert len(tries) == 3
    assert capsys.readouterr().err.splitlines() == [f"[micrófono] {tries[0]}"]


def _riff(tag: int, bits: int, data: bytes, *, rate: int = SAMPLE_RATE, channels: int = 1,
          subformat: int | None = None) -> bytes:
    """A WAV file written by hand: a ``fmt `` chunk (WAVE_FORMAT_EXTENSIBLE with ``subformat``),
    an odd-sized ``LIST`` chunk (padded to an even length) and the ``data`` chunk."""
    align = channels * bits // 8
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)
    if subformat is not None:
        fmt += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H", subformat) + bytes(14)
    body = b"WAVE"
    for ident, chunk in ((b"fmt ", fmt), (b"LIST", b"odd"), (b"data", data)):
        body += ident + struct.pack("<I", len(chunk)) + chunk + b"\0" * (len(chunk) % 2)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_a_wav_at_0_hz_is_a_plain_error(tmp_path: Path) -> None:
    path = tmp_path / "cero.wav"
    _write(path, _tone(SAMPLE_RATE, 0.2), SAMPLE_RATE)
    header = bytearray(path.read_bytes())
    header[24:32] = bytes(8)  # the sample rate and the byte rate
    path.write_bytes(bytes(header))
    with pytest.raises(AudioError) as err:  # before: ZeroDivisionError in resample
        read_wav(path)
    assert err.value.message == f"{path} dice que su audio va a 0 Hz: está dañado"


@pytest.mark.parametrize("rate", [1, 999, 1_000_000])
def test_a_wav_at_a_rate_no_recording_has_is_damaged(tmp_path: Path, rate: int) -> None:
    path = tmp_path / "rara.wav"
    _write(path, np.zeros(6000), rate)
    with pytest.raises(AudioError) as err:  # before: listened to for hours (or out of memory)
        WavSource(path)
    assert err.value.message == f"{path} dice que su audio va a {rate} Hz: está dañado"


def test_a_wav_without_a_sample_is_refused_not_heard_as_silence(tmp_path: Path) -> None:
    path = tmp_path / "vacio.wav"
    _write(path, np.zeros(0), SAMPLE_RATE)  # a header and no audio
    with pytest.raises(AudioError) as err:  # before: read, and listened to as nothing at all
        WavSource(path)
    assert err.value.code == "wav-empty"
    assert err.value.message == f"{path} no tiene sonido: la grabación dura 0 segundos"


@pytest.mark.parametrize("content, code, said", [
    (b"", "wav-unreadable", "no es un WAV que pueda leer: está vacío"),
    (b"not a wav at all", "wav-unreadable", "no es un WAV que pueda leer: no empieza como un WAV"),
    (_riff(6, 8, bytes(100)), "wav-format",
     "está en un formato que no leo (A-law): exportalo como WAV PCM de 16 bits"),
    (_riff(3, 16, bytes(100)), "wav-format", "(coma flotante de 16 bits)"),
    (b"RIFF\x04\x00\x00\x00WAVE", "wav-unreadable", "está cortado"),
], ids=["empty", "not-riff", "a-law", "half-float", "no-chunks"])
def test_a_wav_that_cannot_be_read_says_why_in_spanish(tmp_path: Path, content: bytes, code: str,
                                                       said: str) -> None:
    path = tmp_path / "malo.wav"
    path.write_bytes(content)
    with pytest.raises(AudioError) as err:
        read_wav(path)
    assert err.value.code == code and said in err.value.message
    assert not err.value.message.endswith(": ")  # before: an empty file said nothing after it


@pytest.mark.parametrize("tag, bits, subformat", [(3, 32, None), (3, 64, None),
                                                   (0xFFFE, 32, 3), (0xFFFE, 16, 1)],
                         ids=["float32", "float64", "extensible-float32", "extensible-pcm16"])
def test_float_and_extensible_wavs_are_read_like_pcm(tmp_path: Path, tag: int, bits: int,
                                                    subformat: int | None) -> None:
    tone = _tone(44100, 0.5)
    samples = (tone * 32767).astype("<i2") if bits == 16 else tone.astype(f"<f{bits // 8}")
    path, pcm = tmp_path / "raro.wav", tmp_path / "pcm.wav"
    path.write_bytes(_riff(tag, bits, samples.tobytes(), rate=44100, subformat=subformat))
    _write(pcm, tone, 44100)
    frames = read_wav(path)  # before: "unknown format: 3" (or 65534)
    assert frames.shape == read_wav(pcm).shape
    assert np.max(np.abs(frames - read_wav(pcm))) < 1e-3


class TableMic:
    """A sounddevice stand-in whose stream delivers what was said while the player got ready
    (level 1000) at once, and what is said after the prompt (level 2000) when ``answer`` is set."""

    answer = threading.Event()

    class PortAudioError(Exception):
        pass

    @staticmethod
    def check_input_settings(**_: Any) -> None:
        return None

    class InputStream:
        def __init__(self, *, callback: Any, blocksize: int, **_: Any) -> None:
            self.callback, self.blocksize = callback, blocksize

        def __enter__(self) -> TableMic.InputStream:
            for _ in range(5):
                self.callback(np.full((self.blocksize, 1), 1000, np.int16), self.blocksize, 0, 0)
            threading.Thread(target=self._answer, daemon=True).start()
            return self

        def _answer(self) -> None:
            TableMic.answer.wait(5)
            self.callback(np.full((self.blocksize, 1), 2000, np.int16), self.blocksize, 0, 0)

        def __exit__(self, *_: object) -> None:
            return None


def mic_on(monkeypatch: pytest.MonkeyPatch, sounddevice: type, device: InputDevice,
           spec: str | None, channels: int = 1) -> MicSource:
    """A microphone that does not retry, on a sounddevice stand-in with this one device."""
    monkeypatch.setitem(sys.modules, "sounddevice", sounddevice)
    monkeypatch.setattr(microphone, "list_devices", lambda: [device])
    return MicSource(spec, channels=channels, keep_trying=False)


def test_the_sound_before_a_prompt_is_dropped_not_taken_for_its_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    TableMic.answer.clear()
    mic = mic_on(monkeypatch, TableMic, InputDevice(0, "mesa", 1, 16000.0, True), None)
    chunks = iter(mic)
    assert np.frombuffer(next(chunks).pcm, np.int16).max() == 1000  # the microphone is open
    mic.drop_queued()  # the prompt shows: the four blocks waiting are from before it
    TableMic.answer.set()
    assert np.frombuffer(next(chunks).pcm, np.int16).max() == 2000
    mic.stop()


class CardInput:
    """A sounddevice stand-in for a sound card's own input: it refuses 16 kHz, records at 48 kHz,
    and delivers ten blocks of a tone."""

    TONE = np.round(8000 * np.sin(2 * np.pi * 440 * np.arange(48000) / 48000)).astype(np.int16)
    opened: ClassVar[list[int]] = []

    class PortAudioError(Exception):
        pass

    @staticmethod
    def check_input_settings(*, samplerate: int, **_: Any) -> None:
        if samplerate != 48000:
            raise CardInput.PortAudioError("Invalid sample rate [PaErrorCode -9997]")

    class InputStream:
        def __init__(self, *, callback: Any, blocksize: int, samplerate: int, **_: Any) -> None:
            self.callback, self.blocksize = callback, blocksize
            CardInput.opened.append(samplerate)

        def __enter__(self) -> CardInput.InputStream:
            for i in range(0, len(CardInput.TONE), self.blocksize):
                block = CardInput.TONE[i : i + self.blocksize, None]
                self.callback(block, len(block), 0, 0)
            return self

        def __exit__(self, *_: object) -> None:
            return None


def test_a_microphone_that_refuses_16_khz_is_heard_at_its_own_rate_resampled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mic = mic_on(monkeypatch, CardInput, InputDevice(3, "Placa USB (hw:1,0)", 2, 48000.0, False),
                 "Placa")
    chunks = list(itertools.islice(iter(mic), 9))
    mic.stop()
    assert CardInput.opened == [48000]
    heard = np.frombuffer(b"".join(c.pcm for c in chunks), "<i2") / 32767
    whole = resample(CardInput.TONE[:, None] / 32768.0, 48000)[: len(heard), 0]
    assert len(heard) > 9 * 1590 and np.abs(heard - whole).max() < 1e-3  # one second at 16 kHz
    assert [round(c.t, 2) for c in chunks[:3]] == [0.0, 0.1, 0.2]


class PhoneLine(CardInput):
    """A sounddevice stand-in for a headset on an 8 kHz link: it records at 8 kHz only."""

    @staticmethod
    def check_input_settings(*, samplerate: int, **_: Any) -> None:
        if samplerate != 8000:
            raise CardInput.PortAudioError("Invalid sample rate [PaErrorCode -9997]")


def test_a_microphone_that_records_at_8_khz_says_at_once_it_hears_through_a_narrow_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mic = mic_on(monkeypatch, PhoneLine, InputDevice(5, "Auriculares (HFP)", 1, 8000.0, False),
                 "Auriculares")
    said: list[str] = []
    mic.on_status = said.append
    assert len(list(itertools.islice(iter(mic), 9))) == 9
    mic.stop()
    assert said == [NARROW_LINE]  # nothing above 4 kHz can come from it: said before any voice


class OverrunMic(TableMic):
    """A sounddevice stand-in whose stream delivers four blocks at once; before the third,
    PortAudio says some of the sound was lost (an input overflow: the machine did not take it in
    time)."""

    class InputStream(TableMic.InputStream):
        def __enter__(self) -> OverrunMic.InputStream:
            for k in range(4):
                status = SimpleNamespace(input_overflow=k == 2)
                self.callback(np.zeros((self.blocksize, 1), np.int16), self.blocksize, 0, status)
            return self


def test_sound_a_microphone_lost_is_said_with_its_next_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    mic = mic_on(monkeypatch, OverrunMic, InputDevice(0, "mesa", 1, 16000.0, True), None)
    chunks = list(itertools.islice(iter(mic), 4))
    mic.stop()
    assert [chunk.lost for chunk in chunks] == [False, False, True, False]


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_blocks_resampled_as_they_come_are_the_recording_resampled_whole(rate: int) -> None:
    rng = np.random.default_rng(rate)
    samples = rng.uniform(-0.5, 0.5, (2 * rate, 2))
    resampler, parts, i = Resampler(rate), [], 0
    while i < len(samples):
        n = int(rng.integers(1, 5000))
        parts.append(resampler.push(samples[i : i + n]))
        i += n
    streamed, whole = np.concatenate(parts), resample(samples, rate)
    assert len(whole) - 5 <= len(streamed) < len(whole)  # the last few wait for more sound
    assert np.array_equal(streamed, whole[: len(streamed)])


def test_two_channels_asked_of_a_microphone_with_one_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    mic = mic_on(monkeypatch, TableMic, InputDevice(0, "Mic USB", 1, 16000.0, True), None, 2)
    with pytest.raises(AudioError) as err:  # before: PortAudio's «Invalid number of channels»
        next(iter(mic))
    assert err.value.code == "mic-channels"
    assert err.value.message == "«Mic USB» tiene 1 canal y hacen falta 2, uno por equipo"


def test_devices_lists_each_microphone_and_says_which_record_at_8_khz(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.commands import devices

    monkeypatch.setattr(devices, "list_devices", lambda: [
        InputDevice(0, "Mic USB", 1, 48000.0, True),
        InputDevice(5, "Auriculares (HFP)", 1, 8000.0, False)])
    assert devices.run(SimpleNamespace()) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "*   0  Mic USB  (1 canal)",
        f"    5  Auriculares (HFP)  (1 canal, graba a 8 kHz: {devices.PHONE})"]

"""Audio in: the microphone (``sounddevice``) or a WAV file, both as 16 kHz mono int16 chunks.

With several channels (one microphone per team) the chunk keeps each channel's loudness, so the
listener can tell which team spoke; recognition runs on the downmix.
"""

from __future__ import annotations

import queue
import struct
import sys
import time
import wave
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000
MIN_RATE, MAX_RATE = 1000, 768_000  # the rates a recording can be made at (Hz), and a margin
CHUNK_S = 0.1
# WAV format tags: read (what ``wave`` refuses, by hand) and named when refused.
WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_EXTENSIBLE = 1, 3, 0xFFFE
FORMAT_NAMES = {2: "ADPCM", 6: "A-law", 7: "µ-law", 17: "IMA ADPCM", 85: "MP3"}


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


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Resample float samples (frames × channels) to ``target`` Hz; box-filtered when downsampling."""
    if rate == target or len(samples) == 0:
        return samples
    return resample_span(lambda lo, hi: samples[lo:hi], len(samples), rate, 0,
                         resampled_length(len(samples), rate, target), target)


def resampled_length(frames: int, rate: int, target: int = SAMPLE_RATE) -> int:
    """How many frames ``frames`` at ``rate`` Hz make at ``target`` Hz."""
    return round(frames * target / rate)


def resample_span(read: Callable[[int, int], np.ndarray], frames: int, rate: int, start: int,
                  stop: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Frames ``start`` to ``stop`` of ``resample`` of a recording of ``frames`` frames, reading
    (``read(lo, hi)``: its float frames lo to hi) only the stretch they come from: a long
    recording is resampled a stretch at a time, the same as whole, never held as floats whole."""
    if rate == target:
        return read(start, stop)
    width = round(rate / target) if rate > target else 1
    lo = max(0, start * rate // target - width - 1)  # the box filter's reach, and a sample more
    hi = min(frames, (stop - 1) * rate // target + width + 2)
    part = read(lo, hi)
    if width > 1:
        kernel = np.ones(width) / width
        part = np.stack([np.convolve(part[:, c], kernel, mode="same")
                         for c in range(part.shape[1])], axis=1)
    src_t = np.arange(lo, hi) / rate
    dst_t = np.arange(start, stop) / target
    return np.stack([np.interp(dst_t, src_t, part[:, c]) for c in range(part.shape[1])], axis=1)


def to_chunk(frames: np.ndarray, t: float) -> AudioChunk:
    """Float frames (frames × channels, -1..1) → a chunk: mono downmix plus per-channel RMS."""
    levels = tuple(float(np.sqrt(np.mean(frames[:, c] ** 2))) if len(frames) else 0.0
                   for c in range(frames.shape[1]))
    mono = frames.mean(axis=1)
    pcm = np.clip(np.round(mono * 32767.0), -32768, 32767).astype("<i2").tobytes()
    return AudioChunk(pcm=pcm, t=t, levels=levels)


class Stored:
    """A WAV's samples as the file keeps them (frames × channels), made -1..1 floats a stretch at
    a time: an hour of recording is held in its own size, not eight times it as floats."""

    def __init__(self, data: np.ndarray, offset: float = 0.0, scale: float = 1.0,
                 floating: bool = False) -> None:
        self.data, self.offset, self.scale, self.floating = data, offset, scale, floating

    def __len__(self) -> int:
        return len(self.data)

    @property
    def channels(self) -> int:
        return int(self.data.shape[1])

    def floats(self, start: int, stop: int) -> np.ndarray:
        """Frames ``start`` to ``stop`` as floats, -1..1 (a float file's NaN as silence)."""
        block = self.data[start:stop].astype(np.float64)
        if self.floating:
            return np.nan_to_num(block, nan=0.0, posinf=1.0, neginf=-1.0)
        return (block - self.offset) / self.scale


def read_wav(path: str | Path) -> np.ndarray:
    """A WAV file as float frames (frames × channels) at 16 kHz, whatever its rate and width."""
    rate, stored = read_stored(Path(path))
    return resample(stored.floats(0, len(stored)), rate)


def read_stored(path: Path) -> tuple[int, Stored]:
    """A WAV file's rate and samples; what ``wave`` refuses is read (or explained) by hand."""
    with _plain_os_errors(path):
        try:
            with wave.open(str(path), "rb") as wav:
                rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
                raw = wav.readframes(wav.getnframes())
        except (wave.Error, EOFError):
            rate, stored = _read_riff(path.read_bytes(), path)
        else:
            stored = _stored(raw, width, channels, path)
    if not MIN_RATE <= rate <= MAX_RATE:  # 0 would divide; 1 Hz makes days of sound of a minute
        raise AudioError("wav-rate", f"{path} dice que su audio va a {rate} Hz: está dañado")
    return rate, stored


@contextmanager
def _plain_os_errors(path: Path) -> Iterator[None]:
    """The system's errors while reading ``path`` as AudioErrors in plain words."""
    try:
        yield
    except FileNotFoundError as err:
        raise AudioError("wav-missing", f"no encuentro el archivo {path}") from err
    except IsADirectoryError as err:
        raise AudioError("wav-is-folder",
                         f"{path} es una carpeta, no un archivo WAV: indicá un archivo") from err
    except OSError as err:
        raise AudioError("wav-unreadable", f"no puedo abrir {path}: {err.strerror or err}") from err


def _read_riff(blob: bytes, path: Path) -> tuple[int, Stored]:
    """A WAV that ``wave`` refuses: 32- or 64-bit floats and WAVE_FORMAT_EXTENSIBLE are read; for
    anything else, an AudioError that says what is wrong with it."""
    if not blob:
        raise _unreadable(path, "está vacío")
    if blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise _unreadable(path, "no empieza como un WAV")
    chunks = _riff_chunks(blob)
    fmt, data = chunks.get(b"fmt ", b""), chunks.get(b"data")
    if len(fmt) < 16 or data is None:
        raise _unreadable(path, "está cortado (le falta el formato o el audio)")
    tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == WAVE_FORMAT_EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the first two bytes of the subformat GUID
    if tag not in (WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT):
        raise _unsupported(path, FORMAT_NAMES.get(tag, f"formato número {tag}"))
    if channels == 0 or bits == 0:
        raise _unreadable(path, "dice que no tiene canales o muestras: está dañado")
    return rate, _stored(data, (bits + 7) // 8, channels, path, tag == WAVE_FORMAT_IEEE_FLOAT)


def _riff_chunks(blob: bytes) -> dict[bytes, bytes]:
    """The chunks of a RIFF file by id (the first of each); a chunk cut short, as far as it goes."""
    chunks: dict[bytes, bytes] = {}
    pos = 12
    while pos + 8 <= len(blob):
        ident, size = blob[pos : pos + 4], struct.unpack_from("<I", blob, pos + 4)[0]
        chunks.setdefault(ident, blob[pos + 8 : pos + 8 + size])
        pos += 8 + size + size % 2  # chunks are padded to an even length
    return chunks


def _unreadable(path: Path, why: str) -> AudioError:
    return AudioError("wav-unreadable", f"{path} no es un WAV que pueda leer: {why}")


def _unsupported(path: Path, what: str) -> AudioError:
    return AudioError("wav-format", f"{path} está en un formato que no leo ({what}): "
                      "exportalo como WAV PCM de 16 bits")


def _stored(raw: bytes, width: int, channels: int, path: Path, floating: bool = False) -> Stored:
    """Little-endian samples (frames × channels) as the file keeps them."""
    # A file cut in the middle of a sample (an odd byte at the end): drop the partial frame.
    whole = memoryview(raw)[: len(raw) - len(raw) % (width * channels)]
    stored = _floats(whole, width) if floating else _integers(whole, width)
    if stored is None:
        what = "coma flotante" if floating else "enteros"
        raise _unsupported(path, f"{what} de {8 * width} bits")
    stored.data = stored.data.reshape(-1, channels)
    return stored


def _floats(raw: memoryview, width: int) -> Stored | None:
    """IEEE float samples; None for a width other than 4 or 8 bytes."""
    if width not in (4, 8):
        return None
    return Stored(np.frombuffer(raw, dtype=f"<f{width}"), floating=True)


def _integers(raw: memoryview, width: int) -> Stored | None:
    """PCM integer samples (8-bit unsigned, 16/24/32-bit signed) and their scale; None otherwise."""
    if width == 1:
        return Stored(np.frombuffer(raw, dtype=np.uint8), 128.0, 128.0)
    if width == 2:
        return Stored(np.frombuffer(raw, dtype="<i2"), scale=32768.0)
    if width == 3:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        ints = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        return Stored(np.where(ints >= 1 << 23, ints - (1 << 24), ints), scale=float(1 << 23))
    if width == 4:
        return Stored(np.frombuffer(raw, dtype="<i4"), scale=float(1 << 31))
    return None


def read_pcm(path: str | Path) -> bytes:
    """A WAV file as the recognizers take it: 16 kHz mono int16 PCM."""
    return to_chunk(read_wav(path), 0.0).pcm


class WavSource:
    """A WAV file as a stream of chunks, as fast as possible or paced like a microphone; one
    without a single sample is refused (an AudioError), not listened to as silence.  It is
    resampled a stretch at a time as it is listened to: a whole game's recording fits in memory."""

    STRETCH_S = 30.0  # how much is resampled at a time

    def __init__(self, path: str | Path, *, realtime: bool = False, chunk_s: float = CHUNK_S) -> None:
        self.path = Path(path)
        self.realtime = realtime
        self.chunk_s = chunk_s
        self.rate, self.stored = read_stored(self.path)
        self.length = resampled_length(len(self.stored), self.rate)  # frames at 16 kHz
        if not self.length:
            raise AudioError("wav-empty", f"{path} no tiene sonido: la grabación dura 0 segundos")

    @property
    def channels(self) -> int:
        return self.stored.channels

    @property
    def duration(self) -> float:
        return self.length / SAMPLE_RATE

    def __iter__(self) -> Iterator[AudioChunk]:
        step = max(1, int(self.chunk_s * SAMPLE_RATE))
        stretch = step * max(1, round(self.STRETCH_S / self.chunk_s))  # whole chunks
        started = time.monotonic()
        for begin in range(0, self.length, stretch):
            frames = resample_span(self.stored.floats, len(self.stored), self.rate, begin,
                                   min(begin + stretch, self.length))
            for i in range(0, len(frames), step):
                t = (begin + i) / SAMPLE_RATE
                if self.realtime:
                    delay = started + t + self.chunk_s - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                yield to_chunk(frames[i : i + step], t)


# -- microphone ------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputDevice:
    index: int
    name: str
    channels: int
    default_rate: float
    is_default: bool


def list_devices() -> list[InputDevice]:
    """Every input device PortAudio knows about."""
    try:
        import sounddevice as sd

        default_in = sd.default.device[0] if sd.default.device else -1
        devices = sd.query_devices()
    except (OSError, Exception) as err:  # PortAudio missing raises OSError; others PortAudioError
        raise AudioError("no-audio-system", f"no puedo hablar con el sistema de audio: {err}") from err
    return [
        InputDevice(i, str(d["name"]), int(d["max_input_channels"]),
                    float(d["default_samplerate"]), i == default_in)
        for i, d in enumerate(devices)
        if int(d["max_input_channels"]) > 0
    ]


def resolve_device(spec: str | int | None, devices: Sequence[InputDevice] | None = None) -> int | None:
    """A device index from an index or a (part of a) name; None means the system default."""
    if spec is None or spec == "":
        return None
    devices = list(devices) if devices is not None else list_devices()
    if isinstance(spec, int) or str(spec).isdigit():
        index = int(spec)
        if any(d.index == index for d in devices):
            return index
        raise AudioError("mic-missing", f"no hay un micrófono con el número {index}")
    matches = [d for d in devices if str(spec).lower() in d.name.lower()]
    if not matches:
        raise AudioError("mic-missing", f"no encuentro un micrófono que se llame '{spec}'")
    return matches[0].index


# How a microphone or a camera that lost its device says it is looking for it again («no hay
# ningún micrófono conectado: enchufá uno; reintento en 2 s»); any other status says it works.
RETRYING = "; reintento en "


def retrying(trouble: str, retry_s: float) -> str:
    """A source's status while it looks for its device again (``is_retrying``)."""
    return f"{trouble}{RETRYING}{retry_s:.0f} s"


def is_retrying(status: str) -> bool:
    """Whether a source's status says it lost its device and is looking for it again."""
    return RETRYING in status


def said_once(say: Callable[[str], None]) -> Callable[[str], None]:
    """A status callback that passes a message on only when it differs from the last one (a
    microphone or camera that stays unplugged is said once, not at every retry)."""
    last: list[str] = []

    def status(message: str) -> None:
        if last != [message]:
            last[:] = [message]
            say(message)

    return status


def print_status(what: str) -> Callable[[str], None]:
    """``said_once`` on standard error, as ``[what] message``: the commands run in a terminal."""
    return said_once(lambda msg: print(f"[{what}] {msg}", file=sys.stderr, flush=True))


class MicSource:
    """The microphone as a stream of chunks.  If it is missing or gets unplugged, ``on_status`` is
    told in plain words and the source keeps retrying until it is back (or ``stop()`` is called);
    with ``keep_trying=False`` (a one-shot command) the AudioError is raised instead."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        channels: int = 1,
        chunk_s: float = CHUNK_S,
        retry_s: float = 2.0,
        on_status: Callable[[str], None] = lambda msg: None,
        keep_trying: bool = True,
    ) -> None:
        self.device_spec = device
        self.keep_trying = keep_trying
        self.channels = channels
        self.chunk_s = chunk_s
        self.retry_s = retry_s
        self.on_status = on_status
        self._stopped = False
        self._samples = 0
        self._queue: queue.Queue[np.ndarray] | None = None

    def stop(self) -> None:
        self._stopped = True

    def drop_queued(self) -> None:
        """Forget the sound the microphone heard and nobody has read yet: the answer to a prompt
        starts after the prompt, not with what was said while the player got ready."""
        while self._queue is not None:
            try:
                self._samples += len(self._queue.get_nowait())
            except queue.Empty:
                return

    def __iter__(self) -> Iterator[AudioChunk]:
        while not self._stopped:
            try:
                yield from self._run_stream()
            except AudioError as err:
                if not self.keep_trying:
                    raise
                self.on_status(retrying(err.message, self.retry_s))
                time.sleep(self.retry_s)

    def _run_stream(self) -> Iterator[AudioChunk]:
        try:
            import sounddevice as sd
        except OSError as err:
            raise AudioError("no-audio-system", f"falta PortAudio (libportaudio2): {err}") from err
        devices = list_devices()
        if not devices:
            raise AudioError("mic-missing", "no hay ningún micrófono conectado: enchufá uno")
        device = resolve_device(self.device_spec, devices)
        q: queue.Queue[np.ndarray] = queue.Queue()
        self._queue = q
        failed: list[str] = []

        def callback(indata: np.ndarray, frames: int, t: object, status: object) -> None:
            q.put(indata.copy())

        def finished() -> None:
            failed.append("el micrófono dejó de mandar sonido (¿se desenchufó?)")

        try:
            stream = sd.InputStream(
                samplerate=SAMPLE_RATE, channels=self.channels, dtype="int16", device=device,
                blocksize=int(self.chunk_s * SAMPLE_RATE), callback=callback,
                finished_callback=finished,
            )
        except (sd.PortAudioError, ValueError) as err:
            raise AudioError("mic-unavailable", f"no puedo abrir el micrófono: {err}") from err
        with stream:
            self.on_status("escuchando")
            while not self._stopped:
                try:
                    block = q.get(timeout=max(1.0, 5 * self.chunk_s))
                except queue.Empty:
                    raise AudioError("mic-silent", failed[0] if failed else
                                     "el micrófono no manda sonido") from None
                frames = block.astype(np.float64) / 32768.0
                yield to_chunk(frames, self._samples / SAMPLE_RATE)
                self._samples += len(block)

"""WAV files as 16 kHz audio: read whatever their rate and width, resampled, whole or as a
stream of chunks (``audio.AudioChunk``)."""

from __future__ import annotations

import struct
import time
import wave
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from referee.audio import CHUNK_S, SAMPLE_RATE, AudioChunk, AudioError, Channels, to_chunk, to_pcm
from referee.resampling import resample, resample_span, resampled_length
from referee.sound_check import SoundCheck

MIN_RATE, MAX_RATE = 1000, 768_000  # the rates a recording can be made at (Hz), and a margin
# WAV format tags: read (what ``wave`` refuses, by hand) and named when refused.
WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_EXTENSIBLE = 1, 3, 0xFFFE
FORMAT_NAMES = {2: "ADPCM", 6: "A-law", 7: "µ-law", 17: "IMA ADPCM", 85: "MP3"}


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
    return to_pcm(read_wav(path))


class WavSource:
    """A WAV file as a stream of chunks, as fast as possible or paced like a microphone; one
    without a single sample is refused (an AudioError), not listened to as silence.  It is
    resampled a stretch at a time as it is listened to: a whole game's recording fits in memory.
    ``on_status``, if given, is told when the recording sounds like a telephone (``referee.band``)
    or clipped (``referee.clipping``), and when it no longer does, with the moment
    (``sound_check``)."""

    STRETCH_S = 30.0  # how much is resampled at a time

    def __init__(self, path: str | Path, *, realtime: bool = False, chunk_s: float = CHUNK_S,
                 on_status: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.realtime = realtime
        self.chunk_s = chunk_s
        self.on_status = on_status
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
        channels = Channels(self.chunk_s)
        say, sound = self.on_status, SoundCheck(self.rate)
        if say and sound.band.narrow:  # recorded at 8 kHz or less
            say(sound.recorded(0.0))
        for begin in range(0, self.length, stretch):
            frames = resample_span(self.stored.floats, len(self.stored), self.rate, begin,
                                   min(begin + stretch, self.length))
            for i in range(0, len(frames), step):
                t = (begin + i) / SAMPLE_RATE
                if self.realtime:
                    delay = started + t + self.chunk_s - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                chunk = to_chunk(frames[i : i + step], t, channels)
                yield chunk
                if say and sound.hear(chunk.pcm):
                    say(sound.recorded(t + chunk.duration))



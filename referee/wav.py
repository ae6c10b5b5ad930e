"""WAV files as 16 kHz audio: read whatever their rate and width, resampled, whole or as a
stream of chunks (``audio.AudioChunk``).  A file's samples are read a stretch at a time as they
are heard: a stream of a long recording holds in memory only the stretch it is at."""

from __future__ import annotations

import mmap
import os
import re
import struct
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from models.paths import shell_word
from referee.audio import CHUNK_S, SAMPLE_RATE, AudioChunk, AudioError, Channels, to_chunk, to_pcm
from referee.resampling import resample, resample_span, resampled_length
from referee.sound_check import SoundCheck

MIN_RATE, MAX_RATE = 1000, 768_000  # the rates a recording can be made at (Hz), and a margin
# WAV format tags: those read, and those named when refused.
WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_EXTENSIBLE = 1, 3, 0xFFFE
FORMAT_NAMES = {2: "ADPCM", 6: "A-law", 7: "µ-law", 17: "IMA ADPCM", 85: "MP3"}
# What a file that does not start as a WAV is, by how it starts (the first that matches names it).
NOT_WAV = (
    (rb"ID3", "un MP3"),  # tags, then the audio
    (rb"\xff[\xf0\xf1\xf8\xf9]", "un AAC"),  # an ADTS frame: an MPEG sync with layer 0
    (rb"\xff[\xe0-\xff]", "un MP3"),  # an MPEG audio frame's sync
    (rb"OggS", "un OGG"),
    (rb"fLaC", "un FLAC"),
    (rb"....ftyp", "un M4A o MP4"),  # what phones record
    (rb"\x1a\x45\xdf\xa3", "un WebM o MKV"),  # what browsers record
    (rb"#!AMR", "un AMR"),
    (rb"RF64", "un RF64"),
    (rb"riff\x2e\x91\xcf\x11", "un Wave64"),
    (rb"RIFF....AVI ", "un video AVI"),
    (rb"RIFF", "un RIFF de otro tipo"),
)
# The data sizes a recorder leaves when it is stopped before it closes the file (killed, or
# writing to a pipe): the header does not say how long the audio is, the file's end does.
UNKNOWN_SIZES = (0, 0xFFFFFFFF)
CUT_S = 0.1  # a file shorter than its header says by less than this lost no word: not told


class FileSamples:
    """A WAV's samples (frames × channels, × 3 bytes for 24-bit ones) read from its file when a
    stretch is asked for, not mapped: a file cut short or gone while it is heard (a USB stick
    pulled out) is an AudioError then, where a page of a map no longer there kills the program
    (SIGBUS)."""

    def __init__(self, path: Path, start: int, size: int, dtype: np.dtype, frame: tuple[int, ...],
                 ) -> None:
        self.path, self.start, self.dtype, self.frame = path, start, dtype, frame
        self.frame_bytes = dtype.itemsize * int(np.prod(frame))
        self.shape = (size // self.frame_bytes, *frame)
        self._fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, span: slice) -> np.ndarray:
        start, stop, _ = span.indices(len(self))
        want = max(0, stop - start) * self.frame_bytes
        try:
            raw = os.pread(self._fd, want, self.start + start * self.frame_bytes) if want else b""
        except OSError as err:
            raise AudioError("wav-unreadable", f"no puedo seguir leyendo {self.path}: "
                             f"{err.strerror or err}") from err
        if len(raw) < want:
            raise AudioError("wav-cut", f"{self.path} se achicó mientras lo escuchaba (¿lo "
                             "cortó otro programa, o se desconectó el disco?): dejo de escucharlo")
        return np.frombuffer(raw, dtype=self.dtype).reshape(-1, *self.frame)


class Stored:
    """A WAV's samples as the file keeps them (frames × channels; × 3 bytes for 24-bit ones,
    ``packed``), made -1..1 floats a stretch at a time: a two-hour recording is not read into
    memory, neither whole nor as floats."""

    def __init__(self, data: np.ndarray | FileSamples, offset: float = 0.0, scale: float = 1.0,
                 floating: bool = False, packed: bool = False) -> None:
        self.data, self.offset, self.scale, self.floating = data, offset, scale, floating
        self.packed = packed
        self.declared: int | None = None  # the frames the header says it has; None: it does not say

    def __len__(self) -> int:
        return len(self.data)

    @property
    def channels(self) -> int:
        return int(self.data.shape[1])

    def floats(self, start: int, stop: int) -> np.ndarray:
        """Frames ``start`` to ``stop`` as floats, -1..1 (a float file's NaN as silence)."""
        block = self.data[start:stop]
        if self.packed:  # 24-bit samples, three bytes each, made integers a stretch at a time
            b = block.astype(np.int32)
            ints = b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16)
            block = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        block = block.astype(np.float64)
        if self.floating:
            return np.nan_to_num(block, nan=0.0, posinf=1.0, neginf=-1.0)
        return (block - self.offset) / self.scale


def read_wav(path: str | Path) -> np.ndarray:
    """A WAV file as float frames (frames × channels) at 16 kHz, whatever its rate and width."""
    rate, stored = read_stored(Path(path))
    return resample(stored.floats(0, len(stored)), rate)


def read_stored(path: Path) -> tuple[int, Stored]:
    """A WAV file's rate and samples, as many as it has (``Stored.declared``: as many as its header
    says); what it cannot be read as is explained."""
    with _plain_os_errors(path):
        rate, stored = _read_file(path)
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


def _read_file(path: Path) -> tuple[int, Stored]:
    """A WAV file's header read through a map of the file, the map let go before any sample is
    read; the samples read from the file as they are asked for (``FileSamples``), or kept in
    memory where the file cannot be mapped (an empty file, a pipe)."""
    with path.open("rb") as fh:
        try:
            blob = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            return _read_riff(fh.read(), path, in_memory=True)
    with blob:
        return _read_riff(blob, path, in_memory=False)


def _read_riff(blob: bytes | mmap.mmap, path: Path, in_memory: bool) -> tuple[int, Stored]:
    """A WAV file: integer PCM of 8 to 32 bits, 32- or 64-bit floats, and WAVE_FORMAT_EXTENSIBLE
    are read; for anything else, an AudioError that says what is wrong with it."""
    if not blob:
        raise _unreadable(path, "está vacío")
    if blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise _not_a_wav(path, bytes(blob[:16]))
    chunks = _riff_chunks(blob)
    fmt_at, fmt_size, _ = chunks.get(b"fmt ", (0, 0, None))
    fmt = bytes(blob[fmt_at : fmt_at + fmt_size])
    if len(fmt) < 16 or b"data" not in chunks:
        raise _unreadable(path, "está cortado (le falta el formato o el audio)")
    tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == WAVE_FORMAT_EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the first two bytes of the subformat GUID
    if tag not in (WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT):
        raise _unsupported(path, FORMAT_NAMES.get(tag, f"formato número {tag}"))
    if channels == 0 or bits == 0:
        raise _unreadable(path, "dice que no tiene canales o muestras: está dañado")
    width, floating = (bits + 7) // 8, tag == WAVE_FORMAT_IEEE_FLOAT
    if (width, floating) not in SAMPLES:
        what = "coma flotante" if floating else "enteros"
        raise _unsupported(path, f"{what} de {8 * width} bits")
    at, size, said = chunks[b"data"]
    size = min(size, len(blob) - at)  # a file cut short: as far as it goes
    size -= size % (width * channels)  # ... and not in the middle of a frame
    dtype, silence, scale = SAMPLES[width, floating]
    frame = (channels, 3) if width == 3 else (channels,)  # 24-bit: three bytes, put together later
    data = (np.frombuffer(blob, np.dtype(dtype), size // np.dtype(dtype).itemsize, at)
            .reshape(-1, *frame) if in_memory
            else FileSamples(path, at, size, np.dtype(dtype), frame))
    stored = Stored(data, silence, scale, floating, packed=width == 3)
    stored.declared = None if said is None else said // (width * channels)
    return rate, stored


# How the samples of each width (bytes) and kind (floats or not) are kept: their type as stored,
# the value of silence, and full scale.
SAMPLES = {
    (1, False): ("u1", 128.0, 128.0),
    (2, False): ("<i2", 0.0, 32768.0),
    (3, False): ("u1", 0.0, float(1 << 23)),  # three bytes each
    (4, False): ("<i4", 0.0, float(1 << 31)),
    (4, True): ("<f4", 0.0, 1.0),
    (8, True): ("<f8", 0.0, 1.0),
}


def _riff_chunks(blob: bytes | mmap.mmap) -> dict[bytes, tuple[int, int, int | None]]:
    """The chunks of a RIFF file by id (the first of each): where its data starts, its size as
    far as the file goes, and the size it says it has.  A ``data`` chunk that does not say its
    size (``UNKNOWN_SIZES``) goes to the end of the file (None for its size), unless a chunk
    follows an empty one."""
    chunks: dict[bytes, tuple[int, int, int | None]] = {}
    pos = 12
    while pos + 8 <= len(blob):
        ident, size = bytes(blob[pos : pos + 4]), struct.unpack_from("<I", blob, pos + 4)[0]
        said: int | None = size
        if ident == b"data" and size in UNKNOWN_SIZES and not _chunk_at(blob, pos + 8):
            size, said = len(blob) - pos - 8, None
        chunks.setdefault(ident, (pos + 8, min(size, len(blob) - pos - 8), said))
        pos += 8 + size + size % 2  # chunks are padded to an even length
    return chunks


def _chunk_at(blob: bytes | mmap.mmap, pos: int) -> bool:
    """Whether a RIFF chunk starts at ``pos``: a four-letter id and a size that fits the file
    (else what is there is audio); nothing at all there is an empty chunk's end too."""
    if pos >= len(blob):
        return True
    return (len(blob) >= pos + 8 and blob[pos : pos + 4].rstrip(b" ").isalnum()
            and pos + 8 + struct.unpack_from("<I", blob, pos + 4)[0] <= len(blob))


def _unreadable(path: Path, why: str) -> AudioError:
    return AudioError("wav-unreadable", f"{path} no es un WAV que pueda leer: {why}")


def _not_a_wav(path: Path, start: bytes) -> AudioError:
    """A file that does not start as a WAV: what it is, if its start says, and how to make a WAV
    of it."""
    for pattern, what in NOT_WAV:
        if re.match(pattern, start, re.DOTALL):
            return AudioError("wav-unreadable", f"{path} es {what}, no un WAV: convertilo a WAV PCM "
                              f"de 16 bits, p. ej. con 'ffmpeg -i {shell_word(str(path))} "
                              "-ar 16000 salida.wav'")
    return _unreadable(path, "no empieza como un WAV")


def _unsupported(path: Path, what: str) -> AudioError:
    return AudioError("wav-format", f"{path} está en un formato que no leo ({what}): "
                      "exportalo como WAV PCM de 16 bits")


def read_pcm(path: str | Path) -> bytes:
    """A WAV file as the recognizers take it: 16 kHz mono int16 PCM."""
    return to_pcm(read_wav(path))


class WavSource:
    """A WAV file as a stream of chunks, as fast as possible or paced like a microphone; one
    without a single sample is refused (an AudioError), not listened to as silence.  It is
    resampled a stretch at a time as it is listened to: a whole game's recording fits in memory.
    ``notice`` says a file cut short of what its header says, or one whose header does not say
    how long it is (heard as far as it goes), for the person to be told once; else None.
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
        declared = self.stored.declared
        if not self.length and declared:
            raise AudioError("wav-cut", f"{path} está cortado: dice durar "
                             f"{declared / self.rate:.1f} s y no trae sonido")
        if not self.length:
            raise AudioError("wav-empty", f"{path} no tiene sonido: la grabación dura 0 segundos")
        self.notice = self._notice(declared)

    def _notice(self, declared: int | None) -> str | None:
        """What the person should know of a file heard as far as it goes: cut short of what its
        header says (by ``CUT_S`` or more), or a header that does not say how long it is."""
        has = len(self.stored) / self.rate
        if declared is None:
            return (f"el archivo {self.path} no dice cuánto dura (la grabación no se cerró bien): "
                    f"escucho los {has:.1f} s que trae")
        if declared / self.rate - has >= CUT_S:
            return (f"el archivo {self.path} está cortado: dice durar {declared / self.rate:.1f} s "
                    f"y trae {has:.1f} s; escucho lo que hay")
        return None

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



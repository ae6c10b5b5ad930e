"""A photo read for its cards: refused in plain words when its file is cut short (a copy or a
download left half done), damaged inside or far bigger than a camera's, and shrunk on load to the
pixels a card is read at."""

from __future__ import annotations

import os
import re
import struct
import sys
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.vision.detect import DetectorSettings
from referee.vision.errors import VisionError
from referee.vision.pips import PIP_SIZE

# The pixels a photo is read at, at most.  The smallest card the finder takes (``min_area`` of the
# photo) has the pixels of the largest image a card is flattened to (``PIP_SIZE``) in a photo of
# ``NEEDED_PIXELS`` (9.5 million); the limit is a little higher, a 16-megapixel photo, so that a
# phone's usual 12 or 16 is read as it is (shrunk to 9.5, one of six 12-megapixel scenes gained an
# unnamed outline).  More only costs time and memory: a 12000×12000 photo took 5 s and 1.9 GB,
# 1 s and 0.3 GB shrunk.
NEEDED_PIXELS = round(PIP_SIZE[0] * PIP_SIZE[1] / DetectorSettings.min_area)
MAX_PIXELS = max(NEEDED_PIXELS, 4608 * 3456)
# A PNG, a WebP or a TIFF is decoded whole before it is shrunk (OpenCV decodes only a JPEG smaller;
# ``IMREAD_REDUCED_*`` on the others decodes whole, then resizes): over 100 million pixels, more
# than a camera's photo but for a 200-megapixel phone's (which saves JPEGs), it is refused by its
# header, unread.  A 10000×10000 PNG is read in 2 s and 0.63 GB; a 30000×30000 one took 27 s and
# 5.3 GB.
MAX_WHOLE_PIXELS = 100_000_000

JPEG_START, PNG_START = b"\xff\xd8", b"\x89PNG\r\n\x1a\n"
JPEG_END, PNG_END = b"\xff\xd9", b"\0\0\0\0IEND\xaeB`\x82"  # PNG's: the IEND chunk, with its CRC
TIFF_STARTS = (b"II*\x00", b"MM\x00*")
_STANDALONE = {0x01, *range(0xD0, 0xD8)}  # markers with no length after them (RSTn, TEM)
_FRAMES = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # SOFn: they say the image's size
_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7]")  # in a scan's data: where the next segment starts


@dataclass(frozen=True)
class Photo:
    """The photo's pixels and how much they were shrunk: ``scale`` (x, y) image pixels per pixel
    of the photo as it is."""

    image: np.ndarray
    scale: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class _Layout:
    whole: bool  # the file holds the whole image (its end marker, chunk or whatever is not known)
    size: tuple[int, int] | None = None  # width, height, if the header says
    damaged: bool = False  # a chunk's data that its CRC says was changed (a PNG's)


def _jpeg(data: bytes) -> _Layout:
    """Walk a JPEG's segments (their lengths, and a scan's data up to the next marker) to its
    end-of-image marker; what follows it is not the image's (a phone's motion photo puts a video
    there), so the marker is looked for where it belongs, not at the end of the file."""
    i, n, size = 2, len(data), None
    while i + 1 < n:
        if data[i] != 0xFF:
            return _Layout(False, size)  # not a segment where one should be: cut and joined?
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte before a marker
            i += 1
            continue
        if marker == 0xD9:
            return _Layout(True, size)
        if marker in _STANDALONE:
            i += 2
            continue
        if i + 4 > n:
            break
        end = i + 2 + struct.unpack_from(">H", data, i + 2)[0]
        if marker in _FRAMES and i + 9 <= n:
            height, width = struct.unpack_from(">HH", data, i + 5)
            size = (width, height)
        if marker == 0xDA:  # a scan: its entropy-coded data runs to the next marker
            found = _MARKER.search(data, end)
            if found is None:
                break
            end = found.start()
        i = end
    return _Layout(False, size)


def _png(data: bytes) -> _Layout:
    """Walk a PNG's chunks to its IEND chunk, checking the CRC of each critical one (IHDR, PLTE,
    IDAT): libpng refuses the image for a wrong one, but only warns and skips an ancillary chunk
    (a note, a colour profile) whose CRC is wrong, the image whole."""
    i, n, size, view = len(PNG_START), len(data), None, memoryview(data)
    while i + 8 <= n:
        length, kind = struct.unpack_from(">I4s", data, i)
        if kind == b"IHDR" and i + 16 <= n:
            size = struct.unpack_from(">II", data, i + 8)
        if kind == b"IEND":
            return _Layout(True, size)
        end = i + 8 + length
        if end + 4 > n:
            break
        critical = not kind[0] & 0x20  # its type's first letter in capitals
        if critical and zlib.crc32(view[i + 4:end]) != struct.unpack_from(">I", data, end)[0]:
            return _Layout(True, size, damaged=True)
        i = end + 4
    return _Layout(False, size)


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """A WebP's size, from its first chunk: the canvas (VP8X), a lossless (VP8L) or lossy (VP8)
    image."""
    kind = data[12:16]
    if kind == b"VP8X" and len(data) >= 30:
        return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
    if kind == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1
    if kind == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack_from("<HH", data, 26)
        return width & 0x3FFF, height & 0x3FFF
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """A TIFF's first image's size, from its first directory (ImageWidth, ImageLength)."""
    order, size = "<" if data.startswith(b"II") else ">", dict[int, int]()
    try:
        (directory,) = struct.unpack_from(order + "I", data, 4)
        (count,) = struct.unpack_from(order + "H", data, directory)
        for k in range(count):
            tag, kind, _, value = struct.unpack_from(order + "HHI4s", data, directory + 2 + 12 * k)
            if tag in (256, 257):
                size[tag] = struct.unpack_from(order + ("H" if kind == 3 else "I"), value)[0]
    except struct.error:  # a directory past the end: OpenCV says it cannot read it
        return None
    return (size[256], size[257]) if len(size) == 2 else None


def _layout(data: bytes) -> _Layout:
    if data.startswith(JPEG_START):
        return _jpeg(data)
    if data.startswith(PNG_START):
        return _png(data)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _Layout(True, _webp_size(data))
    if data.startswith(TIFF_STARTS):
        return _Layout(True, _tiff_size(data))
    return _Layout(True)  # another format: OpenCV tells whether it can read it


def _reduction(size: tuple[int, int] | None, jpeg: bool, max_pixels: int) -> int:
    """How many times smaller libjpeg may decode the photo (1, 2, 4 or 8) and still be at least
    ``max_pixels``: a big JPEG is then never decoded whole, in memory."""
    if not jpeg or size is None:
        return 1
    return max((r for r in (1, 2, 4, 8) if size[0] * size[1] / (r * r) >= max_pixels), default=1)


_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}


def read_photo(path: Path, max_pixels: int = MAX_PIXELS,
               max_whole_pixels: int = MAX_WHOLE_PIXELS) -> Photo:
    """The photo at ``path`` in BGR colour, shrunk (``cv2.INTER_AREA``) to ``max_pixels`` if it is
    bigger; a file cut short, damaged, too big (a PNG, WebP or TIFF over ``max_whole_pixels``) or
    not a photo is a ``VisionError`` saying so."""
    path = Path(path)
    data = _file(path)
    layout, jpeg, png = _layout(data), data.startswith(JPEG_START), data.startswith(PNG_START)
    made_up = not layout.whole and (jpeg and data.endswith(JPEG_END)  # a marker its data made up
                                    or png and data.endswith(PNG_END))  # or a chunk's length
    if layout.damaged or made_up:
        raise _damaged(path)
    if not layout.whole:
        raise VisionError("photo-cut", f"la foto {path} está cortada: el archivo se termina antes "
                          "que la imagen (¿se copió o se bajó a medias?); copiala de nuevo entera")
    too_big = VisionError("bad-image", f"no puedo leer la foto {path}: es demasiado grande; "
                          "probá con una más chica")
    if not jpeg and layout.size is not None and layout.size[0] * layout.size[1] > max_whole_pixels:
        raise too_big  # said by its header, before gigabytes are taken to decode it
    reduction = _reduction(layout.size, jpeg, max_pixels)
    try:
        image, said = _decoded(data, _REDUCED[reduction])
    except cv2.error as err:  # more pixels than OpenCV reads (a giant scan, a decompression bomb)
        raise too_big from err
    if image is None and png and _PNG_DAMAGED.search(said):  # its CRCs right, its pixels not
        raise _damaged(path)
    if image is None:
        raise VisionError("bad-image", f"no puedo leer la foto {path}")
    if jpeg and _DAMAGED.search(said):
        raise _damaged(path)
    h, w = image.shape[:2]
    full = (w, h) if reduction == 1 or layout.size is None else _turned(layout.size, (w, h))
    return _shrunk(image, full, max_pixels)


def _damaged(path: Path) -> VisionError:
    return VisionError("photo-damaged", f"la foto {path} está dañada: tiene datos rotos adentro y "
                       "una parte puede verse gris o corrida (¿se copió o se guardó mal?); copiala "
                       "de nuevo o sacá otra")


def _file(path: Path) -> bytes:
    if path.is_dir():
        raise VisionError("bad-image", f"{path} es una carpeta, no una foto")
    if not path.is_file():  # missing (or a device, a pipe: never read to their end)
        raise VisionError("bad-image", f"no encuentro la foto {path}")
    try:
        return path.read_bytes()
    except OSError as err:  # no permission to read it, a disk error
        raise VisionError("bad-image", f"no puedo leer la foto {path}") from err


# What libjpeg says of a scan's data it could not decode as it is: the rest of the image, or of a
# restart interval, is grey or shifted (its other warnings leave the pixels whole: an unknown JFIF
# version, a bad ICC profile, and bytes between the whole image and its end marker, which some
# cameras pad with).
_DAMAGED = re.compile(r"Corrupt JPEG data: (?!bad ICC|\d+ extraneous bytes before marker 0xd9)"
                      r"|Premature end of JPEG file")
# What libpng says of a PNG it refuses (its CRCs right): its compressed data broken («incorrect data
# check», «Not enough image data», «bad adaptive filter value»), not memory it lacked.
_PNG_DAMAGED = re.compile(r"libpng error: (?!.*memory)", re.IGNORECASE)
_STDERR = threading.Lock()  # file descriptor 2 is the process's: one decode has it at a time


def _decoded(data: bytes, flag: int) -> tuple[np.ndarray | None, str]:
    """The image OpenCV decodes from ``data``, and what its decoders (libjpeg, libpng) wrote
    meanwhile to standard error: in English, from C to file descriptor 2, so caught there (in a
    pipe) and not shown.  Another thread's writes to standard error meanwhile would be caught too:
    only ``cards --image`` reads a photo, before any other thread starts.  With no standard error
    (file descriptor 2 closed), there is nothing to keep quiet: decoded as it is."""
    try:
        os.fstat(2)
    except OSError:
        return cv2.imdecode(np.frombuffer(data, np.uint8), flag), ""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # past a full pipe a message is lost; the decoder never waits
    try:
        with _STDERR:
            if sys.stderr is not None:
                sys.stderr.flush()  # Python's own text, written before, goes out before
            saved = os.dup(2)
            os.dup2(write_end, 2)
            try:
                image = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
            finally:
                os.dup2(saved, 2)
                os.close(saved)
    finally:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as said:
            text = said.read().decode(errors="replace")
    return image, text


def _turned(size: tuple[int, int], decoded: tuple[int, int]) -> tuple[int, int]:
    """The header's size, turned as the decoded image was (its EXIF orientation)."""
    return size if (size[0] >= size[1]) == (decoded[0] >= decoded[1]) else (size[1], size[0])


def _shrunk(image: np.ndarray, full: tuple[int, int], max_pixels: int) -> Photo:
    """The photo, ``full`` pixels wide and high (decoded at that size or smaller), at no more
    than ``max_pixels``."""
    h, w = image.shape[:2]
    full_w, full_h = full
    s = min(1.0, float(np.sqrt(max_pixels / (full_w * full_h))))
    size = (max(1, round(full_w * s)), max(1, round(full_h * s)))
    if size != (w, h):
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    if (w, h) == full and s == 1.0:
        return Photo(image)
    return Photo(image, (size[0] / full_w, size[1] / full_h))

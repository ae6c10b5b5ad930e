"""``cards --image``: a photo cut short or damaged is refused in Spanish, libjpeg's English kept
quiet; one with data after its image (a phone's motion photo) is read; a big one is shrunk on load,
and one far bigger than a camera's refused by its header."""

from __future__ import annotations

import functools
import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.cli import main
from referee.commands import cards
from referee.vision.errors import VisionError
from referee.vision.faces import Face
from referee.vision.photo import (
    MAX_PIXELS,
    MAX_WHOLE_PIXELS,
    NEEDED_PIXELS,
    PNG_START,
    read_photo,
)
from tests.vision.test_cards_command import _scene, models, photo
from tests.vision.test_detect import corner_error

__all__ = ["models", "photo"]  # the fixtures, shared with the command's tests

MOTION_VIDEO = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8 + b"\xff\xd9\xff\xd8"


def _table(width: int = 160, height: int = 120) -> np.ndarray:
    y, x = np.mgrid[0:height, 0:width]
    return np.dstack([x * 255 // width, y * 255 // height, (x + y) % 256]).astype(np.uint8)


def _encoded(ext: str, params: list[int] | None = None) -> bytes:
    ok, buf = cv2.imencode(ext, _table(), params or [])
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize("kind", [".jpg", "progressive", ".png"])
def test_a_photo_cut_anywhere_is_refused(kind: str, tmp_path: Path) -> None:
    data = _encoded(".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]) if kind == "progressive" else \
        _encoded(kind)
    path = tmp_path / "foto"
    end = len(data) - (4 if kind == ".png" else 0)  # the IEND chunk's checksum is no image
    for cut in np.linspace(8, end - 1, 25).astype(int):  # in its header, its data, its end
        path.write_bytes(data[:cut])
        with pytest.raises(VisionError) as refused:
            read_photo(path)
        assert refused.value.code == "photo-cut", cut
    path.write_bytes(data)
    assert read_photo(path).image.shape == (120, 160, 3)


def test_a_cut_jpeg_is_said_in_spanish_without_libjpegs_english(
        photo: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cortada.jpg"
    cut.write_bytes(photo.read_bytes()[:photo.stat().st_size * 6 // 10])
    # before: 0, the cards of the top half, and «Premature end of JPEG file» on the terminal
    assert main(["cards", "--image", str(cut), "--models-dir", str(tmp_path / "modelos")]) == 1
    out, err = capfd.readouterr()
    assert out == ""
    assert err == (f"Cartas: la foto {cut} está cortada: el archivo se termina antes que la imagen "
                   "(¿se copió o se bajó a medias?); copiala de nuevo entera\n")


@pytest.mark.parametrize("kind", [".jpg", ".png"])
def test_data_after_the_image_is_no_cut(kind: str, tmp_path: Path) -> None:
    """A phone's motion photo is a JPEG with a video after its end marker."""
    path = tmp_path / f"movimiento{kind}"
    path.write_bytes(_encoded(kind) + MOTION_VIDEO)
    alone = cv2.imdecode(np.frombuffer(_encoded(kind), np.uint8), cv2.IMREAD_COLOR)
    assert alone is not None and np.array_equal(read_photo(path).image, alone)


@pytest.mark.parametrize("kind", [".jpg", ".png"])
def test_a_big_photo_is_shrunk_on_load(kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"grande{kind}"
    path.write_bytes(_encoded(kind))
    shrunk = read_photo(path, max_pixels=80 * 60)
    assert shrunk.image.shape == (60, 80, 3) and shrunk.scale == (0.5, 0.5)
    third = read_photo(path, max_pixels=(160 // 3) * (120 // 3))
    assert third.image.shape == (40, 53, 3)
    assert third.scale == pytest.approx((53 / 160, 40 / 120))
    as_is = read_photo(path)
    assert as_is.scale == (1.0, 1.0)
    read = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert read is not None and np.array_equal(as_is.image, read)


def test_the_limit_keeps_a_phones_photo_and_the_smallest_card_whole() -> None:
    assert MAX_PIXELS >= max(4032 * 3024, NEEDED_PIXELS)


def test_a_shrunk_photo_says_its_cards_where_they_are_in_it(
        photo: Path, models: Path, wikimedia_dir: Path, wikimedia: dict[Card, Face],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cards, "read_photo", functools.partial(read_photo, max_pixels=480 * 360))
    assert main(["cards", "--image", str(photo), "--json", "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert sorted(f["card"] for f in found) == ["1o", "3e", "7o"]
    truth = {str(placed.card): placed.corners for placed in _scene(wikimedia).cards}
    for f in found:  # in the 640×480 photo's pixels, not the 480×360 it was read at
        assert corner_error(np.array(f["corners"]), truth[f["card"]]) < 0.04


def _damaged(data: bytes, where: float = 0.5) -> bytes:
    """``data``, a JPEG, with two bytes of its scan's data, ``where`` along it, made a restart
    marker (a JPEG with no restarts): the file is whole, the image after them garbled."""
    start = data.rindex(b"\xff\xda")
    at = start + round((len(data) - start) * where)
    while data[at - 1] == 0xFF:  # not in the middle of a marker or a stuffed 0xFF
        at += 1
    return data[:at] + b"\xff\xd3" + data[at + 2:]


DAMAGED = ("la foto {} está dañada: tiene datos rotos adentro y una parte puede verse gris o "
           "corrida (¿se copió o se guardó mal?); copiala de nuevo o sacá otra")


def test_a_damaged_jpeg_is_said_in_spanish_without_libjpegs_english(
        photo: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "dañada.jpg"
    damaged.write_bytes(_damaged(photo.read_bytes()))
    # before: 0, the cards of the photo's top half (its bottom grey), and «Corrupt JPEG data:
    # premature end of data segment» on the terminal
    assert main(["cards", "--image", str(damaged), "--models-dir", str(tmp_path / "modelos")]) == 1
    out, err = capfd.readouterr()
    assert out == ""
    assert err == f"Cartas: {DAMAGED.format(damaged)}\n"


@pytest.mark.parametrize("kind", [".jpg", "progressive"])
@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_a_damaged_jpeg_is_refused(
        kind: str, where: float, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    data = _encoded(".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]) if kind == "progressive" else \
        _encoded(".jpg")
    path = tmp_path / "dañada.jpg"
    path.write_bytes(_damaged(data, where))
    with pytest.raises(VisionError) as refused:
        read_photo(path)
    assert refused.value.code == "photo-damaged"
    assert capfd.readouterr() == ("", "")


def _png_chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc & 0xFFFFFFFF)


def _png_damaged(data: bytes, where: float, *, crc: bool = False) -> bytes:
    """``data``, a PNG, with a byte of its first IDAT chunk's data ``where`` along it changed;
    with ``crc``, the chunk's CRC made right again (its compressed data still broken)."""
    start = data.index(b"IDAT")
    (length,) = struct.unpack_from(">I", data, start - 4)
    at = start + 4 + round((length - 1) * where)
    changed = bytearray(data)
    changed[at] ^= 0x5A
    if crc:
        changed[start + 4 + length:start + 8 + length] = struct.pack(
            ">I", zlib.crc32(changed[start:start + 4 + length]))
    return bytes(changed)


@pytest.mark.parametrize("crc", [False, True])
@pytest.mark.parametrize("where", [0.0, 0.5, 1.0])
def test_a_damaged_png_is_refused_without_libpngs_english(
        where: float, crc: bool, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dañada.png"
    path.write_bytes(_png_damaged(_encoded(".png"), where, crc=crc))
    # before: «no puedo leer la foto», and «libpng error: IDAT: CRC error» (or «incorrect data
    # check») was caught off the terminal
    with pytest.raises(VisionError) as refused:
        read_photo(path)
    assert refused.value.code == "photo-damaged"
    assert refused.value.message == DAMAGED.format(path)
    assert capfd.readouterr() == ("", "")


def test_a_made_up_length_in_a_pngs_chunk_is_no_cut(tmp_path: Path) -> None:
    """An IDAT chunk's length changed to run past the file's end: the walk to IEND is lost, but
    the file ends with it, as a cut one does not."""
    data = _encoded(".png")
    at = data.index(b"IDAT") - 4
    path = tmp_path / "dañada.png"
    path.write_bytes(data[:at] + b"\x7f" + data[at + 1:])
    with pytest.raises(VisionError) as refused:
        read_photo(path)
    assert refused.value.code == "photo-damaged"  # before: "photo-cut", «está cortada»


def test_a_png_far_bigger_than_a_camera_photo_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "enorme.png"
    path.write_bytes(PNG_START + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 30_000, 30_000, 8, 0,
                                                                   0, 0, 0))
                     + _png_chunk(b"IDAT", zlib.compress(b"\0" * 64)) + _png_chunk(b"IEND", b""))
    # before: decoded whole, 2.7 GB for a real one; this one says no more than its header
    with pytest.raises(VisionError) as refused:
        read_photo(path)
    assert refused.value.message == (f"no puedo leer la foto {path}: es demasiado grande; "
                                     "probá con una más chica")
    assert MAX_WHOLE_PIXELS < 30_000 * 30_000


@pytest.mark.parametrize("kind", [".png", "lossy.webp", "lossless.webp", "alpha.webp", ".tiff"])
def test_a_photo_decoded_whole_is_refused_by_its_headers_size(kind: str, tmp_path: Path) -> None:
    image = _table()
    params = [cv2.IMWRITE_WEBP_QUALITY, 101 if kind == "lossless.webp" else 80]
    if kind == "alpha.webp":
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
        image[0, 0, 3] = 0  # an image with transparency: an extended WebP (VP8X)
    ok, buf = cv2.imencode("." + kind.rsplit(".", 1)[-1], image, params if "webp" in kind else [])
    assert ok
    path = tmp_path / f"foto{kind}"
    path.write_bytes(buf.tobytes())
    with pytest.raises(VisionError) as refused:
        read_photo(path, max_whole_pixels=160 * 120 - 1)
    assert "es demasiado grande" in refused.value.message
    assert read_photo(path, max_whole_pixels=160 * 120).image.shape == (120, 160, 3)


def test_libpngs_english_is_kept_quiet(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    data = _encoded(".png")
    end = data.index(b"IEND") - 4
    note = _png_chunk(b"tEXt", b"Comment\0una mesa", crc=0)  # a note with a wrong checksum
    path = tmp_path / "nota.png"
    path.write_bytes(data[:end] + note + data[end:])
    # before: «libpng warning: tEXt: CRC error» on the terminal
    assert read_photo(path).image.shape == (120, 160, 3)
    assert capfd.readouterr() == ("", "")


def test_a_marker_made_up_in_a_jpegs_data_is_no_cut(tmp_path: Path) -> None:
    """Bytes changed into a segment's start whose length runs past the file's end: the walk to
    the end marker is lost, but the file ends with it, as a cut one does not."""
    data = _encoded(".jpg")
    at = data.rindex(b"\xff\xda") + (len(data) - data.rindex(b"\xff\xda")) // 2
    path = tmp_path / "dañada.jpg"
    path.write_bytes(data[:at] + b"\xff\xc4\xff\xff" + data[at + 4:])
    with pytest.raises(VisionError) as refused:
        read_photo(path)
    assert refused.value.code == "photo-damaged"  # before: "photo-cut", «está cortada»


def test_a_camera_that_pads_before_the_end_marker_is_read(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """libjpeg calls the padding «extraneous bytes before marker 0xd9»: the image is whole."""
    data = _encoded(".jpg")
    end = data.rindex(b"\xff\xd9")
    path = tmp_path / "camara.jpg"
    path.write_bytes(data[:end] + b"\0" * 64 + data[end:])
    assert read_photo(path).image.shape[:2] == (120, 160)
    assert capfd.readouterr().err == ""

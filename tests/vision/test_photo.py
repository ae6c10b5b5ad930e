"""``cards --image``: a photo cut short is refused in Spanish, libjpeg's English kept quiet; one
with data after its image (a phone's motion photo) is read; a big one is shrunk on load."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.cli import main
from referee.commands import cards
from referee.vision.errors import VisionError
from referee.vision.faces import Face
from referee.vision.photo import MAX_PIXELS, NEEDED_PIXELS, read_photo
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

"""``truco-referee cards --image``: prints the cards, or JSON with card, confidence and corners."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card, parse_cards
from models.decks import banks_root, deck_dir
from referee.cli import main
from referee.commands.cards import _recognizer, add_arguments, preview
from referee.vision.bank import Bank, deck_key, save_bank
from referee.vision.detect import framed
from referee.vision.draw import label
from referee.vision.faces import Face, face_files, missing_faces
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.scenes import Scene, SceneOptions, render
from tests.vision.test_detect import corner_error

EASY = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, tables=("felt",))


def _scene(wikimedia: dict[Card, Face]) -> Scene:
    return render([wikimedia[c] for c in parse_cards(["7o", "1o", "3e"])],
                  np.random.default_rng(11), EASY)


@pytest.fixture
def photo(wikimedia: dict[Card, Face], tmp_path: Path) -> Path:
    scene = _scene(wikimedia)
    path = tmp_path / "mesa.jpg"
    cv2.imwrite(str(path), scene.image)
    return path


@pytest.fixture
def models(wikimedia_dir: Path, wikimedia_bank: Bank, tmp_path: Path) -> Path:
    """A models folder whose bank cache already holds the deck (as after a first run)."""
    root = tmp_path / "models"
    save_bank(wikimedia_bank, banks_root(root) / f"{deck_key([wikimedia_dir])}.npz")
    return root


def test_json_lists_cards_with_confidence_and_corners(
        photo: Path, models: Path, wikimedia_dir: Path, wikimedia: dict[Card, Face],
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["cards", "--image", str(photo), "--json", "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)])
    assert code == 0
    found = json.loads(capsys.readouterr().out)
    assert sorted(f["card"] for f in found) == ["1o", "3e", "7o"]
    truth = {str(placed.card): placed.corners for placed in _scene(wikimedia).cards}
    for f in found:
        assert 0.5 <= f["confidence"] <= 1
        assert len(f["corners"]) == 4 and all(len(p) == 2 for p in f["corners"])
        # the corners are the card's own, its sides snapped onto its edges
        assert corner_error(np.array(f["corners"]), truth[f["card"]]) < 0.03


def test_a_card_named_by_its_cues_says_so() -> None:
    corners = np.zeros((4, 2), np.float32)
    by_bank = Reading(Card.parse("7o"), 0.93, corners)
    by_cues = Reading(Card.parse("11o"), 0.0, corners, by_cues=True)
    unnamed = Reading(None, 0.4, corners)
    assert [r.as_json()["named_by"] for r in (by_bank, by_cues, unnamed)] == ["bank", "cues", None]
    assert (label(by_bank), label(by_cues)) == ("7o 93%", "11o por señas")


def test_plain_output_names_the_cards_in_spanish(
        photo: Path, models: Path, wikimedia_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--image", str(photo), "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 0
    out = capsys.readouterr().out
    assert "7 de oros" in out and "1 de oros" in out and "3 de espadas" in out


def test_without_a_deck_says_how_to_get_one(
        photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--image", str(photo), "--models-dir", str(tmp_path / "vacio")]) == 1
    err = capsys.readouterr().err
    assert "no tengo ningún mazo" in err and "--calibrate" in err and "--deck" in err


def test_a_deck_with_faces_missing_is_refused_with_the_missing_ones(
        photo: Path, wikimedia_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = tmp_path / "mazo"
    deck.mkdir()
    for card, path in face_files(wikimedia_dir).items():
        if str(card) != "6c":
            (deck / path.name).symlink_to(path)
    assert main(["cards", "--image", str(photo), "--deck", str(deck),
                 "--models-dir", str(tmp_path / "models")]) == 1
    err = capsys.readouterr().err
    assert "faltan caras: 6 de copas (06-copas.png)." in err
    # another folder that has it makes the deck whole
    other = tmp_path / "otro"
    other.mkdir()
    (other / "06-copas.png").symlink_to(face_files(wikimedia_dir)[Card.parse("6c")])
    assert missing_faces([deck, other]) == []


def test_unreadable_photo_is_reported(
        tmp_path: Path, models: Path, wikimedia_dir: Path, capfd: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "no-es-foto.jpg"
    bad.write_text("hola")
    assert main(["cards", "--image", str(bad), "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 1
    assert "no puedo leer la foto" in capfd.readouterr().err
    assert main(["cards", "--image", str(tmp_path / "no-esta.jpg"), "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 1
    err = capfd.readouterr().err
    assert "no encuentro la foto" in err and "WARN" not in err


def test_camera_preview_without_screen_saves_annotated_frames(
        photo: Path, recognizer: Recognizer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = cv2.imread(str(photo))
    out = tmp_path / "vistas"
    assert preview(recognizer, [frame] * 6, out, every=5) == 6
    assert sorted(p.name for p in out.iterdir()) == ["cartas-000001.jpg", "cartas-000006.jpg"]
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and {"7o", "1o", "3e"} <= set(printed[0].split())


def test_a_camera_that_gives_no_frame_leaves_no_empty_folder(recognizer: Recognizer,
                                                             tmp_path: Path) -> None:
    out = tmp_path / "vistas"
    assert preview(recognizer, [], out) == 0
    assert not out.exists()


def test_without_deck_option_the_installed_deck_is_used(
        photo: Path, wikimedia_dir: Path, wikimedia_bank: Bank, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "models"
    mine = deck_dir(root, "mi-mazo")
    mine.mkdir(parents=True)
    for path in face_files(wikimedia_dir).values():
        shutil.copy(path, mine / path.name)
    save_bank(wikimedia_bank, banks_root(root) / f"{deck_key([mine])}.npz")
    assert main(["cards", "--image", str(photo), "--json", "--models-dir", str(root)]) == 0
    assert sorted(f["card"] for f in json.loads(capsys.readouterr().out)) == ["1o", "3e", "7o"]


@pytest.mark.parametrize(("flags", "learns"), [(["--learn-deck"], True), ([], False)])
def test_learn_deck_makes_the_camera_learn_the_deck_as_it_reads(
        flags: list[str], learns: bool, models: Path, wikimedia_dir: Path) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--camera", "0", "--deck", str(wikimedia_dir),
                              "--models-dir", str(models), *flags])
    assert (_recognizer(args).learned is not None) is learns


def test_without_a_screen_the_camera_is_shown_on_a_live_page(photo: Path) -> None:
    import urllib.request

    from referee.vision.live_page import BOUNDARY, LivePage

    page = LivePage("127.0.0.1", 0)
    try:
        url = f"http://127.0.0.1:{page.port}"
        with urllib.request.urlopen(f"{url}/", timeout=5) as response:
            assert '<img src="/cuadros"' in response.read().decode()
        page.show(cv2.imread(str(photo)))
        with urllib.request.urlopen(f"{url}/cuadros", timeout=5) as stream:
            assert BOUNDARY in stream.headers["Content-Type"]
            head = stream.read(200)
            assert head.startswith(f"--{BOUNDARY}\r\nContent-Type: image/jpeg".encode())
            assert b"\r\n\r\n\xff\xd8" in head  # a JPEG follows its headers
    finally:
        page.close()


def test_the_live_page_encodes_frames_only_for_a_viewer(
        photo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    from referee.vision import live_page

    encoded: list[int] = []
    encode = cv2.imencode

    def counted(ext: str, image: np.ndarray, params: list[int]) -> tuple[bool, np.ndarray]:
        encoded.append(1)
        return encode(ext, image, params)

    monkeypatch.setattr(live_page.cv2, "imencode", counted)
    page = live_page.LivePage("127.0.0.1", 0)
    try:
        frame = cv2.imread(str(photo))
        for _ in range(5):
            page.show(frame)
        assert encoded == []  # nobody is looking
        with urllib.request.urlopen(f"http://127.0.0.1:{page.port}/cuadros", timeout=5) as stream:
            assert b"\xff\xd8" in stream.read(300)
        assert encoded == [1]  # the latest frame, once
    finally:
        page.close()


def test_no_more_than_the_newest_frames_are_kept(
        photo: Path, recognizer: Recognizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.commands import cards

    monkeypatch.setattr(cards, "KEEP_FRAMES", 3)
    out = tmp_path / "vistas"
    frame = cv2.imread(str(photo))
    assert preview(recognizer, [frame] * 5, out, every=1) == 5
    assert sorted(p.name for p in out.iterdir()) == [f"cartas-00000{n}.jpg" for n in (3, 4, 5)]


def test_an_earlier_longer_run_does_not_push_out_the_new_frames(
        photo: Path, recognizer: Recognizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.commands import cards

    monkeypatch.setattr(cards, "KEEP_FRAMES", 3)
    out = tmp_path / "vistas"
    out.mkdir()
    for n in (501, 502, 503):
        earlier = out / f"cartas-000{n}.jpg"
        earlier.write_bytes(b"")
        os.utime(earlier, ns=(10**18, 10**18 + n))  # an older run, numbers higher than this one's
    assert preview(recognizer, [cv2.imread(str(photo))] * 4, out, every=1) == 4
    assert sorted(p.name for p in out.iterdir()) == [f"cartas-00000{n}.jpg" for n in (2, 3, 4)]


@pytest.mark.parametrize("card", ["7o", "12c", "1o", "3e"])
def test_a_photo_cropped_to_the_card_is_read_as_that_card(
        card: str, models: Path, wikimedia_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parsed = Card.parse(card)
    face = next(wikimedia_dir.rglob(f"{parsed.rank:02d}-{parsed.suit.nombre}.*"))
    code = main(["cards", "--image", str(face), "--json", "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)])
    assert code == 0
    found = json.loads(capsys.readouterr().out)
    assert [f["card"] for f in found] == [card]
    h, w = cv2.imread(str(face)).shape[:2]
    corners = np.array(found[0]["corners"])
    assert corners.min() > -0.05 * w and (corners.max(axis=0) < [1.05 * w, 1.05 * h]).all()


def test_a_photo_of_a_table_is_read_as_it_is(photo: Path) -> None:
    image = cv2.imread(str(photo))
    assert image is not None
    assert framed(image)[1] == (0, 0) and framed(image)[0] is image


def test_images_named_as_no_card_are_named_when_faces_are_missing(
        photo: Path, wikimedia_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = tmp_path / "mazo"
    deck.mkdir()
    for card, path in face_files(wikimedia_dir).items():
        (deck / (path.name if str(card) != "1o" else "as.png")).symlink_to(path)
    (deck / "notas.txt").write_text("no es una cara")
    assert main(["cards", "--image", str(photo), "--deck", str(deck),
                 "--models-dir", str(tmp_path / "models")]) == 1
    err = capsys.readouterr().err
    assert "faltan caras: 1 de oros (01-oros.png) (no sé qué carta es as.png: se llaman como" in err

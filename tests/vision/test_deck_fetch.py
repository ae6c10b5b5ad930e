"""`models fetch` of a card deck: one sheet of faces, downloaded and cut into the 40 faces."""

from __future__ import annotations

import dataclasses
import errno
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.catalog import DECK_NAIPES_LIBRES
from models.decks import installed_decks
from models.download import FetchError
from models.fetch import check, fetch

SHEET = "sheet_full_2496x1595.png"


@pytest.fixture()
def served(wikimedia_dir: Path, tmp_path: Path) -> Iterator[str]:
    """The shared sheet (and a wrong-size image) served from 127.0.0.1, as the upstream would."""
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / SHEET).write_bytes((wikimedia_dir / SHEET).read_bytes())
    cv2.imwrite(str(tmp_path / "www" / "small.png"), np.zeros((100, 100, 3), np.uint8))
    (tmp_path / "www" / "page.png").write_text("<html>portal cautivo</html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "www"))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_fetched_sheet_becomes_the_40_faces_of_a_deck(served: str, wikimedia_dir: Path,
                                                        tmp_path: Path) -> None:
    models = tmp_path / "models"
    spec = dataclasses.replace(DECK_NAIPES_LIBRES, url=f"{served}/{SHEET}")
    deck = fetch(spec, models)
    faces = sorted(p.name for p in deck.glob("*.png"))
    assert len(faces) == 40 and "07-oros.png" in faces and "08-oros.png" not in faces
    for name in ("01-espadas.png", "07-oros.png", "12-bastos.png"):
        got = cv2.imread(str(deck / name), cv2.IMREAD_UNCHANGED).astype(int)
        want = cv2.imread(str(wikimedia_dir / "cards" / name), cv2.IMREAD_UNCHANGED).astype(int)
        assert got.shape == want.shape
        opaque = want[..., 3] > 0
        assert np.abs(got[opaque][:, :3] - want[opaque][:, :3]).mean() < 2, name
    assert installed_decks(models) == [deck]
    assert check(spec, models).ok


def test_a_sheet_of_another_layout_is_refused(served: str, tmp_path: Path) -> None:
    spec = dataclasses.replace(DECK_NAIPES_LIBRES, url=f"{served}/small.png")
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path / "models")
    # before: «….png.part: Baraja_espanola_completa.png.part is 100x100, expected the …»
    assert err.value.code == "bad-sheet"
    assert err.value.message.startswith(
        f"{DECK_NAIPES_LIBRES.archive} mide 100x100, y la hoja del mazo mide 2496x1595 (12 × 5 "
        "cartas); lo borré")
    assert err.value.message.count(DECK_NAIPES_LIBRES.archive) == 1
    assert installed_decks(tmp_path / "models") == []


def test_a_sheet_that_is_no_image_is_said_in_spanish(served: str, tmp_path: Path) -> None:
    spec = dataclasses.replace(DECK_NAIPES_LIBRES, url=f"{served}/page.png")
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path / "models")
    # before: «Baraja_espanola_completa.png.part: Baraja_espanola_completa.png.part is not an image»
    assert err.value.code == "bad-sheet"
    assert err.value.message.startswith(f"{DECK_NAIPES_LIBRES.archive} no es una imagen")
    assert ".part" not in err.value.message


def test_a_face_that_cannot_be_written_is_a_disk_error_in_spanish(
        served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = dataclasses.replace(DECK_NAIPES_LIBRES, url=f"{served}/{SHEET}")
    write_bytes = Path.write_bytes

    def full_disk(path: Path, data: bytes) -> int:
        if path.suffix == ".png" and path.parent.name.endswith(".unpacking"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write_bytes(path, data)

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(FetchError) as err:  # before: «cannot write …/01-oros.png»
        fetch(spec, tmp_path / "models")
    assert err.value.code == "disk-error" and "no queda lugar en el disco" in err.value.message
    assert "cannot write" not in err.value.message

"""`models fetch` of a card deck: one sheet of faces, downloaded and cut into the 40 faces."""

from __future__ import annotations

import dataclasses
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
    assert err.value.code == "bad-sheet" and "expected" in err.value.message
    assert installed_decks(tmp_path / "models") == []

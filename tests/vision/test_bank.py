"""The reference bank: built from a deck folder, cached by the faces' contents."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.cards import Card
from referee.vision.bank import bank_for, deck_key, load_bank
from referee.vision.faces import DeckError, face_files, load_deck


def small_deck(source: Path, target: Path, cards: tuple[str, ...]) -> Path:
    target.mkdir(parents=True)
    files = face_files(source)
    for text in cards:
        path = files[Card.parse(text)]
        shutil.copy(path, target / path.name)
    return target


def test_bank_is_cached_and_rebuilt_when_a_face_changes(wikimedia_dir: Path, tmp_path: Path) -> None:
    deck = small_deck(wikimedia_dir, tmp_path / "deck", ("1e", "7o"))
    cache = tmp_path / "banks"
    key = deck_key([deck])
    bank = bank_for([deck], cache)
    assert (cache / f"{key}.npz").exists()
    assert set(bank.labels) == {Card.parse("1e"), Card.parse("7o")}
    assert len(bank.labels) == 2 * 2 * 11  # two cards, both ways up, face + 10 augmented views
    again = load_bank(cache / f"{key}.npz")
    assert (again.vectors == bank.vectors).all() and again.labels == bank.labels

    (deck / "07-oros.png").write_bytes((wikimedia_dir / "cards" / "07-copas.png").read_bytes())
    assert deck_key([deck]) != key


def test_a_damaged_cached_bank_is_built_again(wikimedia_dir: Path, tmp_path: Path) -> None:
    deck = small_deck(wikimedia_dir, tmp_path / "deck", ("1e",))
    cache = tmp_path / "banks"
    cache.mkdir()
    (cache / f"{deck_key([deck])}.npz").write_bytes(b"PK")
    assert set(bank_for([deck], cache).labels) == {Card.parse("1e")}
    assert set(load_bank(cache / f"{deck_key([deck])}.npz").labels) == {Card.parse("1e")}


def test_folder_without_faces_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nada")
    with pytest.raises(DeckError, match="no hay caras de cartas"):
        load_deck(tmp_path)

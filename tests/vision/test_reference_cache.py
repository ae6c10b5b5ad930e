"""The deck's reference bank is cached under the models folder; a cache that cannot be written is
said once and the bank is used from memory."""

from __future__ import annotations

import errno
from collections.abc import Sequence
from pathlib import Path

import pytest

from models.decks import banks_root
from referee.vision import bank as bank_module
from referee.vision import reference
from referee.vision.bank import Bank, deck_key, load_bank, save_bank


@pytest.fixture
def builds(wikimedia_bank: Bank, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each time the bank was built (as the session's bank, already built once: the build itself
    is not what these tests are about)."""
    made: list[int] = []

    def build_bank(decks: Sequence[object], progress: object = None) -> Bank:
        made.append(len(decks))
        return wikimedia_bank

    monkeypatch.setattr(bank_module, "build_bank", build_bank)
    return made


def _cannot_save(err: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bank's cache cannot be written: system error ``err``."""
    def save_bank(bank: Bank, path: Path) -> None:
        raise OSError(err, "", str(path.parent))

    for module in (reference, bank_module):
        monkeypatch.setattr(module, "save_bank", save_bank, raising=False)


def test_a_read_only_models_folder_is_said_once_and_the_bank_used_from_memory(
        wikimedia_dir: Path, wikimedia_bank: Bank, builds: list[int], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _cannot_save(errno.EROFS, monkeypatch)
    bank = reference.reference_bank([wikimedia_dir], tmp_path)
    assert bank is wikimedia_bank  # before: the OSError, and no photo read
    assert builds == [1]  # built once, not again to be saved
    assert capsys.readouterr().err == (
        f"no puedo guardar la referencia del mazo en {banks_root(tmp_path)}: ese disco es de "
        "solo lectura; la uso sin guardarla (se vuelve a armar cada vez; elegí otra carpeta con "
        "--models-dir para guardarla)\n")


def test_a_bank_built_is_cached_and_then_loaded(
        wikimedia_dir: Path, wikimedia_bank: Bank, builds: list[int], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    reference.reference_bank([wikimedia_dir], tmp_path)
    cached = banks_root(tmp_path) / f"{deck_key([wikimedia_dir])}.npz"
    assert load_bank(cached).labels == wikimedia_bank.labels
    again = reference.reference_bank([wikimedia_dir], tmp_path)
    assert again.labels == wikimedia_bank.labels
    assert builds == [1]  # the second time, from the cache
    assert capsys.readouterr().err == ""


def test_a_damaged_cache_that_cannot_be_written_again_is_used_from_memory(
        wikimedia_dir: Path, wikimedia_bank: Bank, builds: list[int], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cached = banks_root(tmp_path) / f"{deck_key([wikimedia_dir])}.npz"
    save_bank(wikimedia_bank, cached)
    cached.write_bytes(cached.read_bytes()[:100])  # cut short, as by a disk that filled up
    _cannot_save(errno.ENOSPC, monkeypatch)
    assert reference.reference_bank([wikimedia_dir], tmp_path) is wikimedia_bank
    [said] = capsys.readouterr().err.splitlines()  # before: the OSError
    assert said.startswith("no puedo guardar la referencia del mazo") and "no queda lugar" in said


def test_what_cannot_be_cached_is_said_where_the_caller_says_things(
        wikimedia_dir: Path, builds: list[int], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _cannot_save(errno.EROFS, monkeypatch)
    said: list[str] = []
    reference.reference_bank([wikimedia_dir], tmp_path, say=said.append)
    assert len(said) == 1 and capsys.readouterr().err == ""


def test_a_folder_of_decks_given_as_a_deck_names_the_decks_inside(wikimedia_dir: Path,
                                                                    tmp_path: Path) -> None:
    from referee.vision.errors import VisionError

    decks = wikimedia_dir.parent  # the folder the decks are in, not a deck
    with pytest.raises(VisionError) as err:
        reference.reference_bank([decks], tmp_path)
    # before: «al mazo le faltan caras: 1 de espadas (01-espadas.png), … y 34 más»
    assert err.value.message.startswith(f"no hay caras de cartas en {decks}; adentro hay mazos: ")
    assert str(wikimedia_dir) in err.value.message
    empty = tmp_path / "vacía"
    empty.mkdir()
    with pytest.raises(VisionError, match="no hay caras de cartas en .*vacía: nombralas como"):
        reference.reference_bank([empty], tmp_path)

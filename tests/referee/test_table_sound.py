"""The table's average sound is kept between sessions: restored at start, saved as the table talks."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.table_sound import (
    SAVE_EVERY_S,
    TableSound,
    keep_lag,
    kept_lag,
    lag_file,
    sound_file,
    valid_mean,
)
from referee.wav import read_pcm

SETTLED = ",".join(["51.5", "19.2", "-6.1"] + ["1.5"] * 10)


class FakeRecognizer:
    def __init__(self, mean: str = ",".join(["48"] + ["0"] * 12)) -> None:
        self.cepstral_mean = mean


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_average_is_saved_and_restored_in_the_next_session(tmp_path: Path) -> None:
    path = sound_file(tmp_path, Path("/models/cmusphinx-es-5.2-ptm"))
    TableSound(FakeRecognizer(SETTLED), path).save()
    later = FakeRecognizer()
    assert TableSound(later, path).restore()
    assert later.cepstral_mean == SETTLED


@pytest.mark.parametrize("text", ["", "1,2,3", "a,b,c,d,e,f,g,h,i,j,k,l,m", ",".join(["1e9"] * 13)])
def test_a_broken_file_is_ignored(tmp_path: Path, text: str) -> None:
    path = tmp_path / "sound.txt"
    path.write_text(text)
    rec = FakeRecognizer()
    before = rec.cepstral_mean
    assert not TableSound(rec, path).restore()
    assert rec.cepstral_mean == before
    assert not valid_mean(text)


def test_a_file_that_is_not_even_text_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "sound.txt"
    path.write_bytes(b"\x95\xff\x00garbage")
    assert not TableSound(FakeRecognizer(), path).restore()


def test_no_file_yet_is_a_cold_start(tmp_path: Path) -> None:
    assert not TableSound(FakeRecognizer(), tmp_path / "none.txt").restore()


def test_saves_as_the_table_talks_but_not_on_every_word(tmp_path: Path) -> None:
    path, clock, rec = tmp_path / "sound.txt", Clock(), FakeRecognizer(SETTLED)
    sound = TableSound(rec, path, clock=clock)
    sound.heard()
    assert path.read_text().strip() == SETTLED
    rec.cepstral_mean = ",".join(["50"] * 13)
    clock.now += SAVE_EVERY_S / 2
    sound.heard()
    assert path.read_text().strip() == SETTLED
    clock.now += SAVE_EVERY_S
    sound.heard()
    assert path.read_text().strip() == rec.cepstral_mean


def test_each_acoustic_model_keeps_its_own(tmp_path: Path) -> None:
    assert sound_file(tmp_path, Path("a/es")) != sound_file(tmp_path, Path("b/en-us"))


@pytest.mark.shared
def test_sphinx_settles_on_the_table_and_takes_back_a_kept_average(shared_dir: Path,
                                                                   tmp_path: Path) -> None:
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not model.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {model}")
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    cold = rec.cepstral_mean
    voice = sorted((shared_dir / "speech" / "clean" / "festival-el_diphone").glob("call__*.wav"))[:8]
    for wav in voice:
        rec.settle(read_pcm(wav))
    settled = rec.cepstral_mean
    assert valid_mean(settled) and settled != cold
    path = sound_file(tmp_path, model)
    TableSound(rec, path).save()
    rec.reset()
    assert rec.cepstral_mean == cold  # a new stream starts from the generic average
    assert TableSound(rec, path).restore()
    assert rec.cepstral_mean == settled


def test_serve_starts_the_microphone_with_the_last_sessions_average(tmp_path: Path) -> None:
    import argparse

    from referee.table_listening import _table_sound

    class Rec(FakeRecognizer):
        model_dir = Path("/models/cmusphinx-es-5.2-ptm")

    TableSound(Rec(SETTLED), sound_file(tmp_path, Rec.model_dir)).save()
    said: list[str] = []
    rec = Rec()
    sound = _table_sound(argparse.Namespace(data_dir=tmp_path), rec, said.append)
    assert rec.cepstral_mean == SETTLED and sound is not None
    assert said == ["escucha: arranca con el sonido de la mesa de la última vez"]
    assert _table_sound(argparse.Namespace(data_dir=tmp_path), object(), said.append) is None


def test_the_lag_of_a_pair_of_microphones_is_kept_for_the_next_session(tmp_path: Path) -> None:
    path = lag_file(tmp_path, "USB mic", "hw:2,0")
    assert path.name == "microfonos-USB-mic-hw-2-0.txt"
    assert kept_lag(path) is None  # none yet
    keep_lag(path, 0.1495)
    assert kept_lag(path) == 0.1495
    assert kept_lag(lag_file(tmp_path, "hw:2,0", "USB mic")) is None  # the other way round


@pytest.mark.parametrize("text", ["", "rápido", "nan", "3.0", "-0.9"])
def test_a_broken_or_impossible_lag_is_none(tmp_path: Path, text: str) -> None:
    path = lag_file(tmp_path, "A", "B")
    path.write_text(text, encoding="utf-8")
    assert kept_lag(path) is None

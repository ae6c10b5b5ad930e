"""The evidence store at its edges: a disk that fills up or refuses a file while the referee
listens costs the evidence, said once in Spanish, never the listening."""

from __future__ import annotations

import errno
import json
import wave
from pathlib import Path

import pytest

from referee import evidence
from referee.evidence import EvidenceError, EvidenceStore

CLIP = bytes(3200)  # 0.1 s of silence


def _record(store: EvidenceStore, text: str = "truco") -> evidence.Evidence:
    return store.record(t=1.0, text=text, call=text, points=None, accepted=True, reason="",
                        confidence=0.9, team="A", clip_pcm=CLIP)


def _full_disk(path: Path, pcm: bytes, rate: int = 16000) -> None:
    """``write_wav`` on a disk that fills up half way through the clip."""
    with path.open("wb") as fh:
        fh.write(b"RIFF")
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_clip_the_disk_refuses_leaves_no_half_clip_and_is_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append)
    monkeypatch.setattr(evidence, "write_wav", _full_disk)
    first, second = _record(store), _record(store, "quiero")  # before: OSError from the first
    assert (first.clip, second.clip) == ("", "")
    assert list(store.clips_dir.iterdir()) == []
    assert [e.text for e in store.all()] == ["truco", "quiero"]  # the records stay
    assert told[0] == (f"no pude guardar el audio como evidencia en {tmp_path}: no queda lugar "
                       "en el disco; el árbitro sigue escuchando sin guardarlo")


def test_an_index_the_disk_refuses_is_said_and_listening_goes_on(tmp_path: Path) -> None:
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append)
    store.index.mkdir()  # something that is not a file stands where the index goes
    item = _record(store)  # before: IsADirectoryError
    assert item.clip and (store.clips_dir / item.clip).is_file()
    assert told == [(f"no pude guardar lo oído como evidencia en {tmp_path}: es una carpeta, "
                     "no un archivo; el árbitro sigue escuchando sin guardarlo")]


def test_what_the_store_keeps_reads_back_whole(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, on_trouble=lambda said: pytest.fail(said))
    item = _record(store)
    lines = store.index.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [item.id]
    with wave.open(str(store.clip_path(item.id))) as clip:
        assert clip.readframes(clip.getnframes()) == CLIP


def test_a_folder_that_cannot_be_made_is_said_in_spanish(tmp_path: Path) -> None:
    with pytest.raises(EvidenceError) as refused:
        EvidenceStore(tmp_path / ("x" * 300))
    assert refused.value.message.endswith(": el nombre es demasiado largo")  # before: English

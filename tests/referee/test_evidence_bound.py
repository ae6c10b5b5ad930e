"""The evidence folder is bounded like a dashcam's loop: past its limit the oldest sessions' clips
go, whole sessions, never the one being recorded; what was heard stays in the index, the clips let
go are said once in Spanish, and a folder that cannot be cleaned never stops the listening."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from referee import evidence, evidence_bound
from referee.commands import listen
from referee.evidence import Evidence, EvidenceStore

CLIP = bytes(3200)  # 0.1 s of silence
LONG_AGO = time.time() - 30 * 24 * 3600


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The sessions' days said in UTC, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _old_session(folder: Path, session: str, sizes: list[int], when: float = LONG_AGO) -> list[str]:
    """A session an earlier ``listen`` left: its records in the index and its clips (fake, of
    ``sizes`` bytes, written at ``when``); their ids."""
    (folder / "clips").mkdir(parents=True, exist_ok=True)
    ids = []
    with (folder / "index.jsonl").open("a", encoding="utf-8") as index:
        for n, size in enumerate(sizes, 1):
            ident = f"{session}-{n:05d}"
            clip = folder / "clips" / f"{ident}.wav"
            clip.write_bytes(bytes(size))
            os.utime(clip, (when, when))
            item = Evidence(ident, 1.0, "truco", "truco", None, True, None, 0.9, "A",
                            clip.name, when)
            index.write(json.dumps(asdict(item)) + "\n")
            ids.append(ident)
    return ids


def _record(store: EvidenceStore, clip: bytes = CLIP) -> Evidence:
    return store.record(t=1.0, text="truco", call="truco", points=None, accepted=True,
                        reason=None, confidence=0.9, team="A", clip_pcm=clip)


def _clips(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "clips").iterdir())


def test_a_new_session_lets_go_of_the_oldest_sessions_clips_and_keeps_their_records(
        tmp_path: Path) -> None:
    gone = [*_old_session(tmp_path, "20241102T200000Z", [20_000, 20_000]),
            *_old_session(tmp_path, "20241105T200000Z", [40_000])]
    kept = [*_old_session(tmp_path, "20241109T200000Z", [40_000]),
            *_old_session(tmp_path, "20241120T200000Z", [40_000])]
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append, max_bytes=100_000)  # before: kept all
    assert _clips(tmp_path) == [f"{ident}.wav" for ident in kept]
    assert told == [("borré los audios de 2 sesiones viejas (del 2 al 5 de noviembre de 2024, "
                    "80 KB) para no pasar de 100 KB; lo que se oyó en ellas sigue anotado")]
    assert [(e.id, e.clip) for e in store.all()] == [
        *[(ident, "") for ident in gone], *[(ident, f"{ident}.wav") for ident in kept]]
    assert store.get(gone[0]) is not None and store.get(gone[0]).clip == ""  # type: ignore[union-attr]
    assert store.get(kept[0]).clip == f"{kept[0]}.wav"  # type: ignore[union-attr]
    assert store.clip_path(gone[0]) is None
    assert [json.loads(line).get("let_go") for line in store.index.read_text().splitlines()
            if "let_go" in line] == ["20241102T200000Z", "20241105T200000Z"]


def test_while_it_records_old_sessions_go_but_never_the_one_in_progress(tmp_path: Path) -> None:
    old = _old_session(tmp_path, "20240301T200000Z", [8_000])
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append, max_bytes=10_000)
    assert told == [] and _clips(tmp_path) == [f"{old[0]}.wav"]  # under the limit: nothing goes
    first = _record(store)  # 8 000 + 3 244 bytes: past it
    assert _clips(tmp_path) == [first.clip]
    assert told == [("borré los audios de 1 sesión vieja (del 1 de marzo de 2024, 8 KB) para no "
                    "pasar de 10 KB; lo que se oyó en ella sigue anotado")]
    mine = [first, *(_record(store) for _ in range(4))]  # this session alone passes it
    assert _clips(tmp_path) == [item.clip for item in mine]
    assert told[1:] == [("los audios de la evidencia ocupan 13 KB, más de 10 KB, pero los que "
                        "quedan son de esta sesión o de hace menos de una hora: no los borro "
                        "todavía")]  # said once, not at every clip


def test_a_session_recorded_within_the_hour_is_left_alone(tmp_path: Path) -> None:
    recent = _old_session(tmp_path, "20240301T200000Z", [8_000], when=time.time() - 600)
    told: list[str] = []
    EvidenceStore(tmp_path, on_trouble=told.append, max_bytes=5_000)
    assert _clips(tmp_path) == [f"{recent[0]}.wav"]  # another listen may be recording it
    assert told and told[0].endswith("no los borro todavía")


def test_no_limit_lets_nothing_go(tmp_path: Path) -> None:
    old = _old_session(tmp_path, "20240301T200000Z", [8_000])
    store = EvidenceStore(tmp_path, on_trouble=lambda said: pytest.fail(said))
    _record(store)
    assert f"{old[0]}.wav" in _clips(tmp_path)


def test_a_folder_that_cannot_be_cleaned_is_said_and_listening_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _old_session(tmp_path, "20240301T200000Z", [8_000])

    def refuse(path: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(evidence.Path, "unlink", refuse)
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append, max_bytes=5_000)  # no exception
    item = _record(store)
    assert _clips(tmp_path) == [f"{old[0]}.wav", item.clip]
    assert told == [(f"no pude borrar los audios viejos de la evidencia en {tmp_path}: no tengo "
                    "permiso para escribir ahí; el árbitro sigue escuchando, pero la carpeta "
                    "puede pasar de 5 KB")]  # once: no more is tried
    assert [e.id for e in store.all()] == [*old, item.id]


def test_listen_keeps_1_gb_of_clips_unless_told(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    listen.add_arguments(parser)
    folder = tmp_path / "evidencia"
    store = listen.open_evidence(parser.parse_args(["--evidence", str(folder)]))
    assert store is not None and store.max_bytes == 1_000_000_000
    _old_session(folder, "20240301T200000Z", [600_000])
    _old_session(folder, "20240302T200000Z", [600_000])
    args = parser.parse_args(["--evidence", str(folder), "--evidence-max", "1"])
    store = listen.open_evidence(args)
    assert store is not None and store.max_bytes == 1_000_000
    assert _clips(folder) == ["20240302T200000Z-00001.wav"]
    unbounded = listen.open_evidence(parser.parse_args(["--evidence", str(folder),
                                                        "--evidence-max", "0"]))
    assert unbounded is not None and unbounded.max_bytes == 0
    assert capsys.readouterr().err == (
        "[evidencia] borré los audios de 1 sesión vieja (del 1 de marzo de 2024, 600 KB) para no "
        "pasar de 1 MB; lo que se oyó en ella sigue anotado\n")


THIS_YEAR = time.gmtime().tm_year


@pytest.mark.parametrize("first, last, said", [
    ("20241028T200000Z", "20241109T200000Z", "del 28 de octubre al 9 de noviembre de 2024"),
    ("20241230T200000Z", "20250102T200000Z", "del 30 de diciembre de 2024 al 2 de enero de 2025"),
    ("20241102T100000Z", "20241102T220000Z", "del 2 de noviembre de 2024"),
    (f"{THIS_YEAR}0102T200000Z", f"{THIS_YEAR}0109T200000Z", "del 2 al 9 de enero"),
])
def test_the_days_let_go_are_said_as_a_person_would(first: str, last: str, said: str) -> None:
    assert evidence_bound.days_words(first, last) == said


@pytest.mark.parametrize("size, said", [
    (300, "1 KB"), (80_000, "80 KB"), (412_300_000, "412 MB"), (1_000_000_000, "1 GB"),
    (1_520_000_000, "1.5 GB"),
])
def test_sizes_are_said_as_disks_are_sold(size: int, said: str) -> None:
    assert evidence_bound.size_words(size) == said

"""The speech benchmark's table of several voices: what the cepstral mean settles on before each
file (the caller's own talk, or with ``--table-talk`` a table's, the caller among them), and one
calibration for every voice (``--calibrate-together``)."""

from __future__ import annotations

import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import speech_voices
from benchmarks.speech_listening import settle_files

FILES = {voice: [f"{voice}/{n}.wav" for n in range(200)] for voice in ("a", "b", "c", "real")}


def _voices(talk: list[str]) -> Counter[str]:
    return Counter(file.split("/")[0] for file in talk)


def test_alone_the_mean_settles_on_the_callers_other_half_of_files() -> None:
    talk = settle_files("a", 1, FILES)
    assert 20 <= len(talk) <= 30  # about 30 s of files of about 1.2 s
    assert _voices(talk) == {"a": len(talk)}
    assert all(zlib.crc32(file.encode()) % 2 == 1 for file in talk)


def test_at_a_table_every_voice_talks_the_caller_among_them_in_like_shares() -> None:
    alone = settle_files("real", 0, FILES)
    talk = settle_files("real", 0, FILES, frozenset({"a", "b", "c"}))
    assert len(talk) == len(alone) == len(set(talk))
    shares = _voices(talk)
    assert set(shares) == {"a", "b", "c", "real"}  # a caller not of the table's voices too
    assert min(shares.values()) >= len(talk) // 8
    assert all(zlib.crc32(file.encode()) % 2 == 0 for file in talk)
    # the same talk every run, and another caller hears it in another order
    assert talk == settle_files("real", 0, FILES, frozenset({"a", "b", "c"}))
    assert settle_files("a", 0, FILES, frozenset({"a", "b", "c", "real"})) != talk


@pytest.mark.parametrize("together", ["", "all", "others", "pairs"])
def test_a_table_calibrates_its_voices_into_one_calibration_or_each_into_its_own(
        together: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calibrated: list[list[list[tuple[bytes, str]]]] = []

    def calibrate(model_dir: Path, voices: Any) -> Any:
        calibrated.append(voices)
        return [len(calibrated)], type("Stats", (), {"frames": 6000})()

    monkeypatch.setattr("referee.asr.adapt.calibrate", calibrate)
    monkeypatch.setattr("referee.asr.ptm_model.write_means", lambda path, means: path.write_text(str(means)))
    monkeypatch.setattr(speech_voices, "calibration_script",
                        lambda voice: [(f"{voice}/{n}.wav", f"{voice} {n}") for n in range(3)])
    monkeypatch.setattr(speech_voices, "_prompt", lambda file, *how: file.encode())
    means = speech_voices.calibrate_voices({"b", "a", "c"}, tmp_path, together=together)
    assert sorted(means) == ["a", "b", "c"]
    # each voice's prompts stay together (each is aligned with its own cepstral mean)
    groups = [[[text for _, text in prompts] for prompts in voices] for voices in calibrated]
    if together == "all":
        assert groups == [[["a 0", "a 1", "a 2"], ["b 0", "b 1", "b 2"], ["c 0", "c 1", "c 2"]]]
        assert len(set(means.values())) == 1
    elif together == "others":  # each voice heard with the calibration it had no part in
        assert groups == [[["b 0", "b 1", "b 2"], ["c 0", "c 1", "c 2"]],
                          [["a 0", "a 1", "a 2"], ["c 0", "c 1", "c 2"]],
                          [["a 0", "a 1", "a 2"], ["b 0", "b 1", "b 2"]]]
        assert [Path(means[v]).read_text() for v in "abc"] == ["[1]", "[2]", "[3]"]
    elif together == "pairs":  # a table of two: each voice and the one after it
        assert groups == [[["a 0", "a 1", "a 2"], ["b 0", "b 1", "b 2"]],
                          [["b 0", "b 1", "b 2"], ["c 0", "c 1", "c 2"]],
                          [["c 0", "c 1", "c 2"], ["a 0", "a 1", "a 2"]]]
        assert [Path(means[v]).read_text() for v in "abc"] == ["[1]", "[2]", "[3]"]
    else:
        assert groups == [[["a 0", "a 1", "a 2"]], [["b 0", "b 1", "b 2"]], [["c 0", "c 1", "c 2"]]]
        assert [Path(means[v]).read_text() for v in "abc"] == ["[1]", "[2]", "[3]"]

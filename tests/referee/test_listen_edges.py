"""``listen`` at its edges: options that do not go together, a recording stopped with Ctrl-C, and
evidence that says what was printed (the team, and a call taken back)."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path
from types import SimpleNamespace

import pytest

from referee.asr.base import Result, Word
from referee.cli import INTERRUPTED, main
from referee.commands import listen
from referee.commands.listen_printer import Printer
from referee.evidence import EvidenceStore
from tests.referee.test_listen_phrases import _utt


def _silence(tmp_path: Path, seconds: float = 2.0) -> Path:
    path = tmp_path / "x.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(int(2 * 16000 * seconds)))
    return path


class HearsTrucoThenCtrlC:
    """A recognizer that hears «truco» in the first chunk and is stopped with Ctrl-C on the next."""

    name, low_accuracy, sample_rate = "falso", False, 16000

    def __init__(self) -> None:
        self.chunks = 0

    def feed(self, pcm: bytes) -> list[Result]:
        self.chunks += 1
        if self.chunks > 1:
            raise KeyboardInterrupt
        word = Word("truco", 0.9, 0.1, 0.5)
        return [Result("truco", (word,), final=True, start=0.1, end=0.5, stream_time=0.6)]

    def flush(self) -> list[Result]:
        return []

    def reset(self) -> None:
        pass


@pytest.mark.parametrize("options, said", [
    (["--mic", "0"], "--mic y --wav no van juntos"),  # before: the microphone silently ignored
    (["--evidence", "ev", "--no-evidence"], "--evidence y --no-evidence no van juntos"),
])
def test_options_that_do_not_go_together_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], said: str) -> None:
    assert main(["listen", "--wav", str(_silence(tmp_path)), *options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"truco-referee listen: {said}")


def test_a_recording_stopped_with_ctrl_c_says_so_and_exits_130(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", lambda choice: HearsTrucoThenCtrlC())
    code = main(["listen", "--json", "--wav", str(_silence(tmp_path)), "--no-evidence"])
    out, err = capsys.readouterr()
    assert code == INTERRUPTED  # before: 0, as if the whole recording had been heard
    assert [json.loads(line)["call"] for line in out.splitlines()] == ["truco"]
    assert "la grabación no se escuchó entera" in err and "tanteador: A 0 — B 0" in err


def test_the_evidence_keeps_the_team_printed_and_a_call_taken_back(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, on_trouble=lambda said: pytest.fail(said))
    out = io.StringIO()
    printer = Printer(out, True, 0.6, store)
    printer.table.apply_line("hand")
    heard = _utt([("truco", 0.8)], early=True)  # one microphone: no team but the seat's
    printer(heard)
    printer.revise([(heard, _utt([("truco", 0.3)], early=True))])
    printed = [json.loads(line) for line in out.getvalue().splitlines()]
    kept = store.all()
    # before: the index held one record, applied, of no team, for a truco printed as taken back
    assert [(e.accepted, e.team) for e in kept] == [(r["accepted"], r["team"]) for r in printed]
    assert [(e.accepted, e.team) for e in kept] == [(True, "A"), (False, "A")]
    assert printed[1]["evidence"] == kept[0].id  # the line points to what was heard


def test_an_applied_call_has_no_reason_not_an_empty_one(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, on_trouble=lambda said: pytest.fail(said))
    out = io.StringIO()
    printer = Printer(out, True, 0.6, store)
    printer.table.apply_line("hand")
    printer(_utt([("truco", 0.9)]))
    printer(_utt([("turco", 0.9)]))  # a look-alike keeps its reason
    truco, turco = (json.loads(line) for line in out.getvalue().splitlines())
    assert truco["accepted"] and truco["reason"] is None  # before: ""
    assert not turco["accepted"] and turco["reason"] == "«turco» no es truco"
    assert [e.reason for e in store.all()] == [None, "«turco» no es truco"]  # as printed

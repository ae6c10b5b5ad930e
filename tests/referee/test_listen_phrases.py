"""``listen`` with a doubtful call in a phrase: what is said after it waits for it (its meaning and
its seat may depend on it), a number waits for a doubtful number of the same hand, and what is
printed always agrees with what the game holds, also after an early call is taken back."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from referee.asr.base import Result, Word
from referee.cli import main
from referee.commands import listen
from referee.commands.listen_printer import Printer
from referee.utterance import Utterance
from tests.referee.two_front_ends import printed_lines


def _utt(words: list[tuple[str, float]], early: bool = False, t0: float = 0.0,
         team: str | None = None) -> Utterance:
    """An utterance of these words, each with its own confidence, 0.5 s apart."""
    said = tuple(Word(w, c, t0 + 0.5 * k, t0 + 0.5 * k + 0.4) for k, (w, c) in enumerate(words))
    return Utterance(" ".join(w for w, _ in words), said, t0, said[-1].end, said[-1].end + 0.2,
                     min(c for _, c in words), team, early)


def _printer(*lines: str) -> tuple[Printer, io.StringIO]:
    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    for line in lines:
        printer.table.apply_line(line)
    return printer, out


def _records(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("said, before, held", [
    # the «quiero» accepts the doubtful envido; alone it would accept the truco (B1: quiero)
    ([("envido", 0.5), ("quiero", 0.95)], ["hand", "A1: truco"], ("quiero", "envido")),
    # the «real envido» raises the doubtful envido; alone it would be A1's (A1: real envido)
    ([("envido", 0.5), ("real", 0.9), ("envido", 0.9)], ["hand"], ("real envido", "envido")),
])
def test_a_call_said_after_a_doubtful_one_waits_for_it(
        said: list[tuple[str, float]], before: list[str], held: tuple[str, str]) -> None:
    printer, out = _printer(*before)
    printer(_utt(said))
    records = _records(out)
    assert printer.table.lines == before  # before: the sure call, read alone, was applied
    assert [(r["call"], r["accepted"], r["unsure"]) for r in records] == [
        ("envido", False, True), (held[0], False, True)]
    assert records[1]["reason"] == f"dudoso: depende de «{held[1]}», dudoso"


@pytest.mark.parametrize("said, before, applied", [
    # A answers B's retruco: the vale cuatro is A1's with the doubtful «quiero» or without it
    ([("quiero", 0.5), ("vale", 0.9), ("cuatro", 0.9)], ["hand", "A1: truco", "B1: retruco"],
     "A1: vale cuatro"),
    # B's «retruco» to A's truco is B's raise with the doubtful «quiero» or without it
    ([("quiero", 0.5), ("retruco", 0.9)], ["hand", "A1: truco"], "B1: retruco"),
])
def test_a_call_the_doubtful_one_before_it_cannot_change_is_applied(
        said: list[tuple[str, float]], before: list[str], applied: str) -> None:
    printer, out = _printer(*before)
    printer(_utt(said))
    records = _records(out)
    assert printer.table.lines == [*before, applied]  # before: it waited for the doubtful one
    assert [(r["call"], r["accepted"], r["unsure"]) for r in records] == [
        (said[0][0], False, True), (records[1]["call"], True, False)]
    assert printed_lines(records) == [applied]


def test_the_calls_before_a_doubtful_one_are_applied_as_read_in_the_phrase() -> None:
    printer, out = _printer("hand")
    printer(_utt([("truco", 0.9), ("envido", 0.5), ("quiero", 0.95)]))
    records = _records(out)
    assert printer.table.lines == ["hand", "A1: truco"]  # before: B1: quiero accepted the truco
    assert [(r["call"], r["accepted"]) for r in records] == [
        ("truco", True), ("envido", False), ("quiero", False)]
    assert printed_lines(records) == printer.table.lines[1:]


@pytest.mark.parametrize("said, reason", [
    ([("quiero", 0.5), ("truco", 0.9)], "A1: quiero: no hay nada cantado para contestar"),
    ([("retruco", 0.5), ("envido", 0.9)], "A1: retruco: primero va el truco"),
])
def test_a_doubtful_call_the_rules_refuse_is_refused_and_holds_nothing(
        said: list[tuple[str, float]], reason: str) -> None:
    printer, out = _printer("hand")
    printer(_utt(said))
    records = _records(out)
    # before: printed dudoso, and the sure call after it waited for it
    assert [(r["call"], r["accepted"], r["unsure"]) for r in records] == [
        (said[0][0], False, False), (said[1][0], True, False)]
    assert records[0]["reason"] == reason
    assert printer.table.lines == ["hand", f"A1: {said[1][0]}"]


@pytest.mark.parametrize("early, final, lines", [
    # «envido quiero» with the envido chatter: the quiero goes with it (before: the table kept
    # B1: quiero, never printed, while the JSON said A1's quiero was applied)
    ([("envido", 0.8), ("quiero", 0.8)], [("envido", 0.3), ("quiero", 0.95)],
     ["hand", "A1: truco"]),
    # the sure truco before the doubtful envido stays as it was applied
    ([("truco", 0.8), ("envido", 0.8), ("quiero", 0.8)],
     [("truco", 0.9), ("envido", 0.3), ("quiero", 0.95)], ["hand", "A1: truco"]),
])
def test_an_early_phrase_taken_back_leaves_printed_what_the_game_holds(
        early: list[tuple[str, float]], final: list[tuple[str, float]], lines: list[str]) -> None:
    before = ["hand", "A1: truco"] if early[0][0] == "envido" else ["hand"]
    printer, out = _printer(*before)
    heard = _utt(early, early=True)
    printer(heard)
    printer.revise([(heard, _utt(final, early=True))])
    records = _records(out)
    assert printer.table.lines == lines
    assert printed_lines(records) == printer.table.lines[len(before):]
    retracted = [r for r in records if r.get("retracted")]
    assert retracted[-1]["call"] == "quiero" and retracted[-1]["unsure"]
    assert retracted[-1]["reason"] == "dudoso: depende de «envido», dudoso"


def test_a_call_refused_because_of_an_early_call_taken_back_waits_for_it() -> None:
    printer, out = _printer("hand")
    heard = _utt([("envido", 0.8), ("truco", 0.8)], early=True)
    printer(heard)  # the truco is refused while the envido stands
    printer.revise([(heard, _utt([("envido", 0.2), ("truco", 0.95)], early=True))])
    records = _records(out)
    # before: judged again and applied (A1: truco), as if the doubtful envido had not been said
    assert printer.table.lines == ["hand"]
    assert (records[-1]["call"], records[-1]["unsure"]) == ("truco", True)
    assert records[-1]["reason"] == "dudoso: depende de «envido», dudoso"
    assert printed_lines(records) == printer.table.lines[1:]


@pytest.mark.parametrize("then", [[("treinta", 0.9)], [("son", 0.9), ("buenas", 0.9)]])
def test_a_declaration_waits_for_a_doubtful_number_of_the_same_hand(
        then: list[tuple[str, float]]) -> None:
    printer, out = _printer("hand", "A1: envido", "B1: quiero")
    printer(_utt([("veintiocho", 0.5)], team="A"))
    printer(_utt(then, t0=2.0))  # before: «treinta» applied as A1's, as if the mano said it
    records = _records(out)
    assert printer.table.lines == ["hand", "A1: envido", "B1: quiero"]
    assert [(r["accepted"], r["unsure"]) for r in records] == [(False, True), (False, True)]
    assert records[1]["reason"] == "dudoso: depende de «veintiocho», dudoso"


def test_a_doubtful_number_holds_nothing_in_the_next_hand() -> None:
    printer, out = _printer("hand", "A1: envido", "B1: quiero")
    printer(_utt([("veintiocho", 0.5)], team="A"))
    for line in ("A1: 27", "B1: son buenas", "A1: truco", "B1: no quiero", "hand",
                 "B1: envido", "A1: quiero"):
        printer.table.apply_line(line)
    printer(_utt([("treinta", 0.9)], t0=4.0))
    assert printer.table.lines[-1] == "B1: 30"
    assert _records(out)[-1]["accepted"]


class SaysPhrases:
    """A recognizer that hears these phrases, each word with its confidence, once the WAV ends."""

    name, low_accuracy, sample_rate = "falso", False, 16000

    def __init__(self, phrases: list[list[tuple[str, float]]]) -> None:
        self.phrases = phrases

    def feed(self, pcm: bytes) -> list[Result]:
        return []

    def flush(self) -> list[Result]:
        results = []
        for k, phrase in enumerate(self.phrases):
            t = 2.0 * k
            words = tuple(Word(w, c, t + 0.5 * i, t + 0.5 * i + 0.4)
                          for i, (w, c) in enumerate(phrase))
            results.append(Result(" ".join(w for w, _ in phrase), words, final=True, start=t,
                                  end=words[-1].end, stream_time=words[-1].end + 0.3))
        return results

    def reset(self) -> None:
        pass


def _listen(tmp_path: Path, phrases: list[list[tuple[str, float]]],
            monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
            ) -> tuple[list[dict[str, Any]], str]:
    """``listen --json`` over a silent WAV with a recognizer that hears ``phrases``."""
    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", lambda choice: SaysPhrases(phrases))
    path = tmp_path / "x.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(2 * 16000))
    assert main(["listen", "--json", "--wav", str(path), "--no-evidence"]) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def test_listen_holds_a_declaration_whose_seat_a_doubtful_one_left_unsettled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    phrases = [[("envido", 0.9)], [("quiero", 0.9)], [("veintiocho", 0.5)], [("treinta", 0.9)]]
    records, err = _listen(tmp_path, phrases, monkeypatch, capsys)
    assert [(r["seat"], r["call"], r["accepted"]) for r in records] == [
        ("A1", "envido", True), ("B1", "quiero", True), ("A1", "puntos", False),
        ("A1", "puntos", False)]  # before: A1's 30 applied, as if the mano said it
    assert "depende de «veintiocho»" in records[-1]["reason"] and records[-1]["unsure"]
    assert "tanteador: A 0 — B 0" in err


def test_listen_applies_nothing_said_after_a_doubtful_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    records, _ = _listen(tmp_path, [[("envido", 0.5), ("real", 0.9), ("envido", 0.9)],
                                    [("no", 0.9), ("quiero", 0.9)]], monkeypatch, capsys)
    assert [(r["call"], r["accepted"], r["unsure"]) for r in records] == [
        ("envido", False, True), ("real envido", False, True), ("no quiero", False, False)]


def test_a_call_taken_back_asks_for_no_tap_listen_cannot_take() -> None:
    printer, out = _printer("hand")
    heard = _utt([("truco", 0.8)], early=True)
    printer(heard)
    printer.revise([(heard, _utt([("truco", 0.3)], early=True))])
    retracted = [r for r in _records(out) if r.get("retracted")]
    assert retracted[-1]["reason"] == ("dudoso: la frase entera no lo confirmó (confianza 0.30); "
                                       "no se aplica sin confirmar")

"""One phrase heard in several utterances (calls handed over early from partial results, the rest
at its end): once a call of the phrase is dudoso, every call said after it in the phrase waits
too, in whichever utterance it came; while nothing before them is doubtful, early calls stay
applied as soon as they are heard."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from referee.asr.base import Result, Word
from referee.audio import AudioChunk
from referee.commands.listen_printer import Printer
from referee.listener import Listener
from referee.utterance import Utterance

Said = tuple[str, float, float, float]  # a word, its start and end, its confidence in the end


class PhraseScript:
    """A recognizer that hears phrases word by word: each word shows up in the partial results
    once the clock passes its end, with a path score (0.8) for confidence; 0.3 s after the last
    word of a phrase the final result gives each word its own confidence."""

    name, low_accuracy, sample_rate = "phrase", False, 16000

    def __init__(self, *phrases: list[Said]) -> None:
        self.phrases = list(phrases)
        self.t = 0.0

    def _result(self, said: list[Said], final: bool) -> Result:
        words = tuple(Word(w, conf if final else 0.8, start, end) for w, start, end, conf in said)
        return Result(" ".join(w.text for w in words), words, final, words[0].start,
                      words[-1].end, self.t)

    def feed(self, pcm: bytes) -> list[Result]:
        self.t += len(pcm) / 2 / 16000
        if not self.phrases:
            return []
        phrase = self.phrases[0]
        if self.t >= phrase[-1][2] + 0.3:
            self.phrases.pop(0)
            return [self._result(phrase, final=True)]
        heard = [w for w in phrase if w[2] <= self.t]
        return [self._result(heard, final=False)] if heard else []

    def flush(self) -> list[Result]:
        return []

    def reset(self) -> None:
        self.t = 0.0


def listen(*phrases: list[Said], before: tuple[str, ...] = ("hand",),
           seconds: float = 8.0) -> tuple[Printer, list[dict[str, Any]], list[Utterance]]:
    """``listen``'s printer after hearing these phrases on a table that played ``before``: the
    printer, what it printed, and the utterances the listener handed over."""
    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    for line in before:
        printer.table.apply_line(line)
    heard: list[Utterance] = []

    def hear(utt: Utterance) -> None:
        heard.append(utt)
        printer(utt)

    listener = Listener(PhraseScript(*phrases), hear, channel_teams=(),
                        on_revisions=printer.revise)
    for i in range(int(seconds * 10)):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    return printer, [json.loads(line) for line in out.getvalue().splitlines()], heard


def shown(records: list[dict[str, Any]]) -> list[tuple[str | None, bool, str]]:
    """Each printed record: its call, whether applied, and its reason (up to the first comma)."""
    return [(r["call"], r["accepted"], str(r["reason"] or "").split(",")[0]) for r in records]


ENVIDO_REAL_ENVIDO = [("envido", 0.5, 0.9, 0.3), ("real", 1.4, 1.7, 0.9),
                      ("envido", 1.7, 2.1, 0.9)]


def test_the_early_utterances_of_a_phrase_say_which_phrase_they_are() -> None:
    _, _, heard = listen(ENVIDO_REAL_ENVIDO, [("truco", 4.0, 4.4, 0.9)])
    assert [(u.text, u.early) for u in heard] == [
        ("envido", True), ("real envido", True), ("truco", True)]
    assert heard[0].phrase == heard[1].phrase != heard[2].phrase


@pytest.mark.parametrize("said, before", [
    # «real envido» is B's raise only if A said «envido»; alone it would be A's opening
    (ENVIDO_REAL_ENVIDO, ("hand",)),
    # the «quiero» accepts the envido; with the envido gone it would accept the truco
    ([("envido", 0.5, 0.9, 0.3), ("quiero", 1.4, 1.8, 0.95)], ("hand", "A1: truco")),
])
def test_a_call_of_a_later_early_utterance_waits_for_a_doubtful_one_before_it(
        said: list[Said], before: tuple[str, ...]) -> None:
    printer, records, _ = listen(said, before=before)
    later = " ".join(w for w, *_ in said[1:])
    # before: both stayed applied, the doubtful envido among them, and nothing said so
    assert printer.table.lines == list(before)
    assert shown(records)[2:] == [
        (later, False, "dudoso: depende de «envido»"),
        ("envido", False, ("dudoso: la frase entera no lo confirmó (confianza 0.30); "
                           "no se aplica sin confirmar"))]
    assert all(r["retracted"] for r in records[2:])


@pytest.mark.parametrize("said, before", [
    # «bueno, te digo truco» with chatter heard early as «envido»: A1's envido makes the truco
    # wait for B's answer; without the envido it is A1's truco
    ([("envido", 0.5, 0.9, 0.3), ("truco", 1.4, 1.8, 0.95)], ("hand",)),
    # B's retruco accepts the truco, and then the envido can no longer be called
    ([("retruco", 0.5, 0.9, 0.3), ("falta", 1.4, 1.7, 0.95), ("envido", 1.7, 2.1, 0.95)],
     ("hand", "A1: truco")),
])
def test_a_call_the_rules_refused_waits_for_an_early_call_taken_back_that_refused_it(
        said: list[Said], before: tuple[str, ...]) -> None:
    printer, records, _ = listen(said, before=before)
    # before: judged again once that one was taken back and applied, as if it had not been said
    assert printer.table.lines == list(before)
    later = " ".join(w for w, *_ in said[1:])
    assert shown(records)[-1] == (later, False, f"dudoso: depende de «{said[0][0]}»")
    assert records[-1]["unsure"] and not any(r.get("rejudged") for r in records)


@pytest.mark.parametrize("first", ["envido", "truco"])
def test_a_call_the_end_of_the_phrase_hands_over_waits_for_an_early_one_taken_back(
        first: str) -> None:
    # a flor is never handed over early; read alone, after the envido is taken back, it would
    # be A1's flor, cancelling nothing; after A1's truco it is B's
    printer, records, _ = listen([(first, 0.5, 0.9, 0.3), ("flor", 1.4, 1.8, 0.95)],
                                 before=("set flor on", "hand"))
    assert printer.table.lines == ["set flor on", "hand"]  # before: A1: flor applied
    assert shown(records)[-1] == ("flor", False, f"dudoso: depende de «{first}»")


def test_a_number_the_end_of_the_phrase_hands_over_waits_for_the_calls_taken_back() -> None:
    printer, records, _ = listen([("envido", 0.5, 0.9, 0.3), ("quiero", 1.4, 1.8, 0.95),
                                  ("veintiocho", 2.2, 2.8, 0.95)])
    assert printer.table.lines == ["hand"]  # before: A1: envido, B1: quiero and A1: 28
    assert shown(records)[-1] == ("puntos", False, "dudoso: depende de «quiero»")


def test_early_calls_nothing_doubtful_comes_before_stay_as_soon_as_heard() -> None:
    printer, records, _ = listen([("truco", 0.5, 0.9, 0.9), ("envido", 1.4, 1.8, 0.3),
                                  ("quiero", 2.2, 2.6, 0.95)])
    assert printer.table.lines == ["hand", "A1: truco"]
    assert [(r["call"], r["accepted"], r["early"]) for r in records][:3] == [
        ("truco", True, True), ("envido", True, True), ("quiero", True, True)]
    assert records[0]["latency"] <= 0.3
    assert [r["call"] for r in records if r.get("retracted")] == ["quiero", "envido"]


def test_the_next_phrase_does_not_wait_for_a_call_taken_back_in_the_one_before() -> None:
    printer, records, _ = listen(ENVIDO_REAL_ENVIDO, [("truco", 4.0, 4.4, 0.9)])
    assert printer.table.lines == ["hand", "A1: truco"]
    assert shown(records)[-1] == ("truco", True, "")


class MissedNo(PhraseScript):
    """The partial results miss the «no» that the whole phrase hears."""

    def _result(self, said: list[Said], final: bool) -> Result:
        partial = [w for w in said if w[0] != "no"]
        return super()._result(said if final or not partial else partial, final)


def test_what_the_whole_phrase_heard_over_an_early_call_does_not_wait_for_it() -> None:
    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    for line in ("hand", "A1: truco"):
        printer.table.apply_line(line)
    listener = Listener(MissedNo([("no", 0.5, 0.7, 0.9), ("quiero", 0.72, 1.1, 0.9)]), printer,
                        channel_teams=(), on_revisions=printer.revise)
    for i in range(40):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["call"], r["accepted"], r["early"]) for r in records] == [
        ("quiero", True, True), ("quiero", False, True), ("no quiero", True, False)]
    assert printer.table.lines[-1] == "B1: no quiero"


def test_a_son_buenas_taken_back_holds_the_next_declaration_of_the_hand() -> None:
    printer, records, _ = listen([("son", 0.5, 0.8, 0.3), ("buenas", 0.8, 1.1, 0.3)],
                                 [("treinta", 3.0, 3.4, 0.9), ("y", 3.4, 3.5, 0.9),
                                  ("tres", 3.5, 3.9, 0.9)],
                                 before=("hand", "A1: envido", "B1: quiero", "A1: 30"))
    assert [(r["call"], r["early"]) for r in records][:1] == [("son buenas", True)]
    # before: B1: 33 applied, as if the «son buenas» had not been said
    assert printer.table.lines[-1] == "A1: 30"
    assert shown(records)[-1] == ("puntos", False, "dudoso: depende de «son buenas»")


def test_a_later_call_the_doubtful_one_cannot_change_is_applied_at_once() -> None:
    # A answers B's retruco «quiero … vale cuatro», the whole phrase unsure of the «quiero»: the
    # vale cuatro is A1's with it or without it, so it stays and the «quiero» alone is taken back
    # (before, the vale cuatro was taken back too, and B's «no quiero» after it was read as A's)
    before = ("hand", "A1: truco", "B1: quiero retruco")
    printer, records, _ = listen([("quiero", 0.5, 0.9, 0.3), ("vale", 1.4, 1.7, 0.9),
                                  ("cuatro", 1.7, 2.1, 0.9)], [("no", 4.0, 4.2, 0.9),
                                                               ("quiero", 4.2, 4.6, 0.9)],
                                 before=before)
    assert printer.table.lines[3:] == ["B1: retruco", "A1: vale cuatro", "B1: no quiero"]
    assert [(r["call"], r["reason"].split(" (")[0]) for r in records if r.get("retracted")] == [
        ("quiero", "dudoso: la frase entera no lo confirmó")]
    assert printer.table.snapshot()["score"] == {"A": 3, "B": 0}

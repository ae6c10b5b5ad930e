"""``listen`` and the tablet (``serve``) give each item of a heard phrase the same verdict: applied,
dudoso, waiting for a doubtful one before it, or refused with the same reason; and a phrase heard
in parts ends the same on both."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine import Settings
from referee.asr.base import Word
from referee.audio import AudioChunk
from referee.commands.listen_printer import Printer
from referee.listener import Listener
from referee.utterance import Utterance
from referee.voice import VoiceReferee
from tests.referee.test_phrase_in_parts import ENVIDO_REAL_ENVIDO, PhraseScript, Said, listen
from web_scoreboard import TableService, create_app
from web_scoreboard.store import Store


def _utt(words: list[tuple[str, float]]) -> Utterance:
    """The whole phrase, each word with its own confidence."""
    said = tuple(Word(w, c, 0.5 * k, 0.5 * k + 0.4) for k, (w, c) in enumerate(words))
    return Utterance(" ".join(w for w, _ in words), said, 0.0, said[-1].end, said[-1].end + 0.2,
                     min(c for _, c in words), None, False)


def _listen(before: list[str], utt: Utterance) -> tuple[list[tuple[str, str | None]], list[str]]:
    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    for line in before:
        printer.table.apply_line(line)
    printer(utt)
    shown = []
    for record in map(json.loads, out.getvalue().splitlines()):
        status = "accepted" if record["accepted"] else "unsure" if record["unsure"] else "rejected"
        shown.append((status, record["reason"] if status != "accepted" else None))
    return shown, printer.table.lines


@contextmanager
def _tablet(tmp_path: Path, before: list[str]) -> Iterator[TableService]:
    """A scoreboard's table that played ``before``."""
    store = Store(tmp_path / "scoreboard.sqlite3")
    try:
        service: TableService = create_app(Settings(), store, pin="2468").state.service
        service.start()
        for line in before:
            service.submit_line(line)
        yield service
    finally:
        store.close()


def _serve(tmp_path: Path, before: list[str],
           utt: Utterance) -> tuple[list[tuple[str, str | None]], list[str]]:
    with _tablet(tmp_path, before) as service:
        VoiceReferee(service, lambda _: None)(utt)
        heard = reversed(service.snapshot()["heard"])
        return [(h["status"], h["reason"]) for h in heard], list(service.table.lines)


def _same(status: str, listen_reason: str | None, tablet_reason: str | None) -> bool:
    """The same reason, but for the way to confirm a doubtful call: a tap on the tablet only."""
    if status == "unsure" and listen_reason and listen_reason.startswith("dudoso ("):
        return tablet_reason == "dudoso: tocá para confirmar"
    return listen_reason == tablet_reason


@pytest.mark.parametrize("before, said", [
    # a doubtful call the rules refuse: refused with their reason, and the call after it applied
    (["hand"], [("quiero", 0.5), ("truco", 0.9)]),
    (["hand"], [("retruco", 0.5), ("envido", 0.9)]),
    (["hand", "A1: truco"], [("vale", 0.3), ("cuatro", 0.3), ("quiero", 0.9)]),
    # a doubtful call the rules take: dudoso, and what follows waits for it
    (["hand"], [("envido", 0.5), ("real", 0.9), ("envido", 0.9)]),
    (["hand", "A1: truco"], [("envido", 0.5), ("quiero", 0.95)]),
    (["hand"], [("truco", 0.9), ("envido", 0.5), ("quiero", 0.95)]),
    # a call the doubtful one before it cannot change: applied at once
    (["hand", "A1: truco", "B1: retruco"], [("quiero", 0.5), ("vale", 0.9), ("cuatro", 0.9)]),
    (["hand", "A1: truco"], [("quiero", 0.5), ("retruco", 0.9)]),
    # a call the rules refuse with the doubtful one and without it: refused, it waits for nothing
    (["hand", "A1: envido"], [("envido", 0.5), ("vale", 0.9), ("cuatro", 0.9)]),
])
def test_listen_prints_what_the_tablet_shows(
        tmp_path: Path, before: list[str], said: list[tuple[str, float]]) -> None:
    listened, listen_lines = _listen(before, _utt(said))
    shown, tablet_lines = _serve(tmp_path, before, _utt(said))
    assert [s for s, _ in listened] == [s for s, _ in shown]
    assert all(_same(s, a, b) for (s, a), (_, b) in zip(listened, shown, strict=True)), (
        listened, shown)
    assert listen_lines == tablet_lines


def test_a_doubtful_call_the_rules_refuse_reads_the_same_on_both(tmp_path: Path) -> None:
    said = [("quiero", 0.5), ("truco", 0.9)]
    listened, _ = _listen(["hand"], _utt(said))
    assert listened[0] == ("rejected", "A1: quiero: no hay nada cantado para contestar")
    assert listened == _serve(tmp_path, ["hand"], _utt(said))[0]


def _phrase_on_both(tmp_path: Path, before: list[str], said: list[Said]
                    ) -> tuple[list[tuple[str | None, bool]], list[tuple[str | None, bool]]]:
    """One phrase heard in parts (early calls, the rest at its end) by ``listen`` and by the
    tablet: each call's final state on both (its call, whether it is applied)."""
    printer, records, _ = listen(said, before=tuple(before))
    final: dict[str, dict[str, Any]] = {}
    for record in records:  # a call printed again (taken back, judged again) is its last record
        final[f"{record['call']}@{record['t']}"] = record
    listened = [(r["call"], r["accepted"]) for r in final.values() if r["call"] is not None]
    with _tablet(tmp_path, before) as service:
        referee = VoiceReferee(service, lambda _: None)
        listener = Listener(PhraseScript(said), referee, channel_teams=(),
                            on_revisions=referee.revise)
        for i in range(80):
            listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
        listener.close()
        heard = reversed(service.snapshot()["heard"])
        shown = [(h["extra"]["call"], h["status"] == "accepted") for h in heard
                 if h["extra"].get("call") is not None]
        assert printer.table.lines == list(service.table.lines)
    return listened, shown


@pytest.mark.parametrize("before, said", [
    (["hand"], ENVIDO_REAL_ENVIDO),
    (["hand", "A1: truco"], [("envido", 0.5, 0.9, 0.3), ("quiero", 1.4, 1.8, 0.95)]),
    (["hand"], [("envido", 0.5, 0.9, 0.3), ("quiero", 1.4, 1.8, 0.95),
                ("veintiocho", 2.2, 2.8, 0.95)]),
    (["hand"], [("truco", 0.5, 0.9, 0.9), ("envido", 1.4, 1.8, 0.3), ("quiero", 2.2, 2.6, 0.95)]),
    (["hand"], [("truco", 0.5, 0.9, 0.9), ("envido", 1.4, 1.8, 0.9)]),
    # the vale cuatro is A's with the doubtful «quiero» or without it: it stays applied
    (["hand", "A1: truco", "B1: retruco"], [("quiero", 0.5, 0.9, 0.3), ("vale", 1.4, 1.7, 0.9),
                                            ("cuatro", 1.7, 2.1, 0.9)]),
])
def test_a_phrase_heard_in_parts_ends_the_same_in_listen_and_on_the_tablet(
        tmp_path: Path, before: list[str], said: list[Said]) -> None:
    listened, shown = _phrase_on_both(tmp_path, before, said)
    assert listened == shown


def test_a_call_refused_with_the_doubtful_one_and_without_it_is_refused_not_left_waiting(
        tmp_path: Path) -> None:
    said = [("envido", 0.5), ("vale", 0.9), ("cuatro", 0.9)]
    listened, _ = _listen(["hand", "A1: envido"], _utt(said))
    shown, _ = _serve(tmp_path, ["hand", "A1: envido"], _utt(said))
    assert [s for s, _ in listened] == [s for s, _ in shown] == ["unsure", "rejected"]
    # no tap could ever apply it; said as the game stands, without the doubtful «envido»
    refused = "A1: vale cuatro: B tiene que contestar el envido"
    assert listened[1] == shown[1] == ("rejected", refused)

"""``listen`` (``Printer``) and the tablet (``VoiceReferee`` → ``TableService``) fed the same
utterances of a phrase handed over in parts, side by side: early calls, the whole phrase's
verdict on them, the rest of the phrase, and taps on the tablet (mirrored in ``listen`` where it
has the same change: an undo takes back the table's last line)."""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import Settings
from referee.asr.base import Word
from referee.commands.listen_printer import Printer
from referee.utterance import Utterance
from referee.voice import VoiceReferee
from web_scoreboard import ActionError, TableService, create_app
from web_scoreboard.store import Store

GAP_S = 0.5  # one word every half second


@dataclass(frozen=True)
class Call:
    """A call of a phrase: its words, the confidence the whole phrase gives them, and the team
    whose microphone heard it loudest (None with one microphone)."""

    words: str
    confidence: float
    team: str | None = None


def utterance(calls: Sequence[Call], start: float, phrase: int | None, early: bool,
              confidence: float | None = None) -> Utterance:
    """The calls as one utterance from ``start``, one word every ``GAP_S``: each word with its
    call's confidence, or ``confidence`` (the path score a partial result gives every word)."""
    words: list[Word] = []
    for call in calls:
        for word in call.words.split():
            at = start + GAP_S * len(words)
            conf = call.confidence if confidence is None else confidence
            words.append(Word(word, conf, at, at + 0.4))
    return Utterance(" ".join(c.words for c in calls), tuple(words), start, words[-1].end,
                     words[-1].end + 0.1, min(w.conf for w in words), calls[0].team, early,
                     phrase=phrase)


def in_parts(calls: Sequence[Call], early: Sequence[int], phrase: int = 1,
             start: float = 0.0) -> list[tuple[str, Any]]:
    """A phrase handed over in parts: the first ``sum(early)`` calls early, ``early`` of them in
    each early utterance (with a partial's path score, 0.8), then the whole phrase's verdict on
    them, then the rest of the phrase at its end."""
    steps: list[tuple[str, Any]] = []
    parts, at, t = [], 0, start
    for size in early:
        said = calls[at:at + size]
        parts.append((utterance(said, t, phrase, True, 0.8), utterance(said, t, phrase, False)))
        steps.append(("hear", parts[-1][0]))
        t += GAP_S * sum(len(c.words.split()) for c in said)
        at += size
    if parts:
        steps.append(("revise", [(utt, final) for utt, final in parts]))
    if at < len(calls):
        steps.append(("hear", utterance(calls[at:], t, phrase, False)))
    return steps


def whole(calls: Sequence[Call], phrase: int = 1, start: float = 0.0) -> list[tuple[str, Any]]:
    """The same phrase handed over whole at its end."""
    return [("hear", utterance(calls, start, phrase, False))]


@dataclass
class Ended:
    """How both front ends ended: their logs, what went wrong, and what each says it applied."""

    listened: list[str]
    tablet: list[str]
    troubles: list[str]
    printed: list[str]  # the lines listen printed as applied, less those printed taken back
    shown: list[str]  # the lines of the tablet's heard rows shown applied


class Both:
    """A ``Printer`` and a tablet that played the same lines, fed the same steps."""

    def __init__(self, service: TableService, before: Sequence[str]) -> None:
        self.out = io.StringIO()
        self.errors = io.StringIO()
        self.printer = Printer(self.out, True, 0.6, None)
        self.service = service
        self.logged: list[str] = []
        self.referee = VoiceReferee(service, self.logged.append)
        for line in before:
            self.printer.table.apply_line(line)
            service.submit_line(line)
        self.before = len(before)

    def step(self, kind: str, what: Any) -> None:
        with redirect_stderr(self.errors):
            if kind == "hear":
                self.printer(what)
                self.referee(what)
            elif kind == "revise":
                self.printer.revise(what)
                self.referee.revise(what)
            elif kind == "undo":  # a tap on the tablet; listen's table takes back the same line
                try:
                    self.service.undo()
                except ActionError:
                    return
                self.printer.table.undo_line()
            else:
                raise ValueError(kind)

    def ended(self) -> Ended:
        troubles = [x for x in self.errors.getvalue().splitlines() if x]
        troubles += [x for x in self.logged if "no pude" in x]
        records = [json.loads(x) for x in self.out.getvalue().splitlines()]
        heard = list(reversed(self.service.snapshot()["heard"]))
        shown = [line for h in heard if h["status"] == "accepted"
                 for line in (h["extra"].get("applied") or [])]
        return Ended(list(self.printer.table.lines), list(self.service.table.lines), troubles,
                     printed_lines(records), shown)


def printed_lines(records: list[dict[str, Any]]) -> list[str]:
    """The log lines listen's records say were applied: each one printed applied, less each one
    printed again as taken back (the last one printed applied)."""
    lines: list[str] = []
    for r in records:
        line = f"{r['seat']}: {r['points'] if r['call'] == 'puntos' else r['call']}"
        if r["accepted"]:
            lines.append(line)
        elif r.get("retracted"):
            del lines[len(lines) - 1 - lines[::-1].index(line)]
    return lines


@contextmanager
def tablet(settings: Settings | None = None) -> Iterator[TableService]:
    """A fresh scoreboard's table service."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "scoreboard.sqlite3")
        try:
            service: TableService = create_app(settings or Settings(), store,
                                               pin="2468").state.service
            service.start()
            yield service
        finally:
            store.close()


def run(before: Sequence[str], steps: Sequence[tuple[str, Any]],
        settings: Settings | None = None) -> Ended:
    """Both front ends after ``before`` and then ``steps``."""
    with tablet(settings) as service:
        both = Both(service, before)
        for kind, what in steps:
            both.step(kind, what)
        return both.ended()

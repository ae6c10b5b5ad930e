"""The listen command's printer: each utterance heard is interpreted against the table, and what
it meant is printed (and stored as evidence)."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from engine.events import Team, team_of
from engine.settings import Settings
from referee.doubt import (
    DECLARATIONS,
    Earlier,
    Held,
    PhraseHeld,
    Read,
    rejudged_reason,
    taken_back_reason,
    verdict,
    waiting_reason,
)
from referee.evidence import EvidenceStore
from referee.interpret import Interpretation
from referee.phrases import confidence_needed, normalize
from referee.utterance import Utterance, item_confidence

Applied = tuple[dict[str, Any], tuple[int, int]]  # a call's record and its token span
Refused = tuple[dict[str, Any], tuple[int, int], int]  # ... and the table's lines when judged
Early = tuple[int, int, list[Applied], list[Refused]]  # lines before and after, applied, refused


class Printer:
    """Interprets each utterance against the table and prints (and stores) what it meant.

    A doubtful call is not applied, and neither is a call said after it in the same phrase whose
    meaning or seat the doubtful one can change («envido quiero»: the «quiero» accepts the
    envido, not the truco before it; ``doubt.Held``), also when the two reach it in different
    utterances of the phrase (``Utterance.phrase``: calls handed over early, and the rest at the
    end of the phrase).  One it cannot change is applied («quiero vale cuatro» to a retruco: A's
    vale cuatro with the «quiero» or without it).  A declaration (a number, «son buenas») heard
    while an earlier one of the same hand is held waits too: its seat comes from the declaration
    order, which the held one left unsettled."""

    def __init__(self, out: TextIO, as_json: bool, unsure_below: float,
                 evidence: EvidenceStore | None, settings: Settings | None = None) -> None:
        from referee.table import Table

        self.table = Table(settings)
        self.out = out
        self.as_json = as_json
        self.unsure_below = unsure_below
        self.evidence = evidence
        # early utterance → (table lines before, after, what it applied: record and token span,
        # what the rules refused in it: record, token span and the table's lines when judged)
        self._early: dict[int, Early] = {}
        # the last declaration held, not applied: its hand (``_hand_key``) and its words
        self._open: tuple[tuple[int, int], str] | None = None
        # the phrase being heard: where it began, its calls and the words of the last one held
        self._phrase: PhraseHeld[str] = PhraseHeld()
        self.printed = 0  # lines printed: calls and look-alikes heard, and their revisions

    def __call__(self, utt: Utterance) -> None:
        team = as_team(utt.team)
        before = len(self.table.lines)
        earlier = self._phrase.earlier(utt.phrase, utt.start, before)
        try:
            preview = self.table.preview(utt.text, team, earlier.deals(before))
            confs = [item_confidence(utt, i.heard.start, i.heard.end) for i in preview]
            holds, declared = self._holds(preview, confs, utt, earlier)
            items = self._hear_unless_held(utt.text, team, preview, holds, earlier)
        except Exception as err:  # noqa: BLE001 - a bad transcript must never stop the referee
            print(f"no pude interpretar «{utt.text}»: {err}", file=sys.stderr)
            return
        if declared is not None:  # in the hand the phrase was applied in
            self._open = (self._hand_key(), declared)
        early_applied: list[Applied] = []
        refused: list[Refused] = []
        for item, conf, hold in zip(items, confs, holds):
            accepted = bool(item.accepted) and hold is None
            record: dict[str, Any] = {
                "t": round(utt.end, 3), "text": utt.text, "call": item.call,
                "points": item.heard.points, "accepted": accepted,
                "reason": (item.reason or None) if hold is None else hold,  # None: no reason
                "confidence": round(conf, 3), "team": team, "seat": item.seat,
                "guess": list(item.guess),
                "unsure": hold is not None, "early": utt.early, "latency": round(utt.latency, 3),
            }
            record["evidence"] = self._keep(record, utt.clip)
            self._print(record, item.heard.label)
            span = (item.heard.start, item.heard.end)
            if accepted:
                early_applied.append(({**record, "heard": item.heard.text}, span))
            elif item.call is not None and hold is None:
                refused.append(({**record, "heard": item.heard.text}, span,
                                before + len(early_applied)))
        if utt.early:
            self._early[id(utt)] = (before, len(self.table.lines), early_applied, refused)

    def _holds(self, preview: list[Interpretation], confs: list[float], utt: Utterance,
               earlier: Earlier[str]) -> tuple[list[str | None], str | None]:
        """Why each item of an utterance waits instead of being applied, or None, and the words of
        the last declaration held that later ones of the hand wait for (``doubt.Held``): a call
        waits for one held before it in the phrase (in this utterance or an earlier one of the
        phrase, ``earlier``) if that one can change it, or a declaration for one of the same hand
        held before (``_open_declaration``); a call under its bar is doubtful (not an early one:
        the whole phrase decides, ``revise``), unless the rules refuse it: then it is refused with
        their reason, as on the tablet (``doubt.verdict``), and nothing after it waits for it."""
        holds: list[str | None] = []
        held = earlier.reading(self._open_declaration(), self._reader(earlier.start))
        declared: str | None = None
        for item, conf in zip(preview, confs):
            said = (item.heard.text, as_team(utt.team))
            before = held.before(item.call, said)  # None for a look-alike: never applied
            doubtful = not utt.early and conf < confidence_needed(item.call, self.unsure_below)
            accepted = bool(item.accepted)
            if not accepted and before is None and held.phrase is not None:
                # refused with the held ones and without them: it is heard on its own words
                # (``_hear_unless_held``), so it is judged on them, as on the tablet
                accepted = self._taken_alone(item.heard.text, as_team(utt.team), earlier)
            shown = verdict(item.call, accepted, doubtful, before is not None)
            hold = (waiting_reason(str(before)) if shown == "waits"
                    else unsure_reason(conf) if shown == "unsure" else None)
            if held.add(item.heard.text, item.call, hold is not None, said):
                declared = item.heard.text
            holds.append(hold)
        self._phrase.note(utt.phrase, held, utt.end)
        return holds, declared

    def _taken_alone(self, words: str, team: Team | None, earlier: Earlier[str]) -> bool:
        """Whether the rules take a call's words on their own, as the game stands."""
        deals = earlier.deals(len(self.table.lines))
        alone = [i for i in self.table.preview(words, team, deals) if i.call is not None]
        return len(alone) == 1 and bool(alone[0].accepted)

    def _reader(self, start: int) -> Read:
        """Reads calls said one after the other from where their phrase began, the log's first
        ``start`` lines (``doubt.Held``: with the held ones and without them)."""
        return lambda calls: self.table.read_calls(calls, start)

    def _hear_unless_held(self, text: str, team: Team | None, preview: list[Interpretation],
                          holds: list[str | None], earlier: Earlier[str]) -> list[Interpretation]:
        """Apply the items of the phrase not held: up to the first held one read as part of the
        whole phrase (the words before it, in the same context), each after it on its own words
        (the held ones cannot change it: it reads the same without them, ``doubt.Held``); the
        held items as previewed.  Only while nothing of the phrase (begun as ``earlier`` says)
        is applied may a call deal the next hand (``Earlier.deals``)."""
        cut = next((k for k, hold in enumerate(holds) if hold is not None), None)
        if cut is None:
            return self._hear(text, team, earlier)
        words = normalize(text).split()[:preview[cut].heard.start]
        items = self._hear(" ".join(words), team, earlier) if words else []
        for item, hold in zip(preview[len(items):], holds[len(items):]):
            alone = ([] if hold is not None or item.call is None else
                     [i for i in self._hear(item.heard.text, team, earlier) if i.call is not None])
            items.append(alone[0] if len(alone) == 1 else item)
        return items

    def _hear(self, text: str, team: Team | None, earlier: Earlier[str]) -> list[Interpretation]:
        """Hear words of a phrase begun as ``earlier`` says: they deal the next hand, when the
        last one is over, only if nothing of the phrase is applied yet (``Earlier.deals``)."""
        return self.table.hear(text, team, earlier.deals(len(self.table.lines)))

    def _hand_key(self) -> tuple[int, int]:
        """Which hand is in play: the deal, and the duel within it (pica-pica)."""
        game = self.table.game
        duel = next((k for k, hand in enumerate(game.deal) if hand is game.hand), -1)
        return len(game.deals), duel

    def _open_declaration(self) -> str | None:
        """The words of the last declaration of the hand in play held, not applied: the seat
        of the next one comes from the declaration order, which it left unsettled."""
        hand = self.table.game.hand
        if self._open is None or self._open[0] != self._hand_key() or hand is None or hand.over:
            return None
        return self._open[1]

    def _keep(self, record: dict[str, Any], clip: bytes = b"") -> str | None:
        """Store a heard item as evidence, with the team printed; its id, or None without an
        evidence folder.  A call judged again is stored again, without a clip (its line points to
        the first one's), so the evidence says what the game holds."""
        if self.evidence is None:
            return None
        return self.evidence.record(
            t=record["t"], text=record["text"], call=record["call"], points=record["points"],
            accepted=record["accepted"], reason=record["reason"],
            confidence=record["confidence"], team=seat_team(record), clip_pcm=clip,
        ).id

    def revise(self, revisions: list[tuple[Utterance, Utterance]]) -> None:
        """The whole phrase's verdict on the calls heard early from it (``Listener.on_revisions``,
        in the order they were said): the applied ones it is not sure of, and those applied after
        one of them in the phrase, by the same early utterance or a later one, that it can change
        (``_verdict``), are taken back, and printed again as not applied (``_take_back``); what
        the end of the phrase hands over after them waits for them too, if they can change it
        (``_phrase``).  Then the ones the rules refused are judged again (``_rejudge``), first to
        last, but for those that wait for one taken back before them, which can change them."""
        early = [(revised, self._early.pop(id(utt), (0, 0, [], []))) for utt, revised in revisions]
        if not early:
            return
        self._phrase.again(early[0][0].phrase)
        # the calls taken back, across the phrase, read from where it began
        held: Held[str] = Held(read=self._reader(early[0][1][0]))
        verdicts, waiting = [], []
        for revised, (_, _, applied, refused) in early:
            judged, waits = self._verdict(revised, applied, refused, held)
            verdicts.append(judged)
            waiting.append(waits)
            self._phrase.note(revised.phrase, held, revised.end)
        began: Earlier[str] = Earlier(early[0][1][0])
        self._take_back([lines for _, lines in early], verdicts, began)
        for (revised, (*_, refused)), waits in zip(early, waiting):
            self._rejudge(revised, refused, waits, began)

    def _verdict(self, revised: Utterance, applied: list[Applied], refused: list[Refused],
                 held: Held[str]) -> tuple[list[tuple[float, str | None]], dict[int, str]]:
        """Each call an early utterance applied: its confidence in the whole phrase, and why it
        is taken back (None: it stays): said after one taken back (``held``, from this utterance
        or an earlier one of the phrase) that can change its meaning or its seat («envido
        quiero» without the envido accepts the truco), or under its bar.  And why each call the
        rules refused in it waits (by its place in ``refused``): said after one taken back that
        can change it (what refused it may be that one).  Read in the order they were said."""
        verdict: list[tuple[float, str | None]] = []
        waits: dict[int, str] = {}
        said_in = sorted([(span, k, True) for k, (_, span) in enumerate(applied)]
                         + [(span, k, False) for k, (_, span, _) in enumerate(refused)])
        for span, k, was_applied in said_in:
            record = applied[k][0] if was_applied else refused[k][0]
            said = (record["heard"], as_team(record.get("team")))
            before = held.before(record["call"], said)
            reason = None if before is None else waiting_reason(before)
            if was_applied:
                conf = item_confidence(revised, *span)
                if reason is None and conf < confidence_needed(record["call"], self.unsure_below):
                    reason = taken_back_reason(conf, tap=False)
                verdict.append((conf, reason))
            elif reason is not None:
                waits[k] = reason
            held.add(record["heard"], record["call"], reason is not None, said)
        return verdict, waits

    def _take_back(self, early: list[Early], verdicts: list[list[tuple[float, str | None]]],
                   began: Earlier[str]) -> None:
        """Undo the calls the early utterances of a phrase applied (``early``: the table's lines
        before and after each, and its calls) from the first one the whole phrase takes back on
        (``verdicts``), if nothing came after them, apply again the ones after it that stay (those
        taken back cannot change them), and print those taken back again as not applied, last
        utterance first; the ones before it stay as they were applied (and printed)."""
        first = next(((u, k) for u, verdict in enumerate(verdicts)
                      for k, (_, reason) in enumerate(verdict) if reason is not None), None)
        if first is None:
            return
        u, k = first
        before, after, applied, _ = early[u]
        ends = [lines[1] for lines in early[u:]]
        if len(self.table.lines) != ends[-1] or ends[:-1] != [x[0] for x in early[u + 1:]]:
            return  # something came after them
        cut = before if k == 0 else after - len(applied) + k  # with the hand dealt for the first
        later = [(record, reason) for (_, _, calls, _), verdict in zip(early[u:], verdicts[u:])
                 for (record, _), (_, reason) in zip(calls, verdict)][k + 1:]
        while len(self.table.lines) > cut:
            self.table.undo()
        for record in (record for record, reason in later if reason is None):
            self._hear(record["heard"], as_team(record.get("team")), began)
        for (_, _, calls, _), judged in reversed(list(zip(early, verdicts))):
            for (record, _), (conf, reason) in zip(calls, judged, strict=True):
                if reason is not None:
                    self._retract(record, conf, reason)

    def _retract(self, record: dict[str, Any], conf: float, reason: str,
                 applied: bool = True) -> None:
        """Print a call taken back again, as not applied and why (``applied`` False: a call the
        rules refused, printed again as one that waits)."""
        if record["call"] in DECLARATIONS:  # the next declaration of the hand waits for it
            self._open = (self._hand_key(), record["heard"])
        retracted = {**record, "accepted": False, "confidence": round(conf, 3),
                     "unsure": True, "reason": reason, **({"retracted": True} if applied else {})}
        retracted.pop("heard")
        self._keep(retracted)
        self._print(retracted, str(record.get("call")))

    def _rejudge(self, revised: Utterance, refused: list[Refused], waits: dict[int, str],
                 began: Earlier[str]) -> None:
        """Apply a call the rules refused when the whole phrase confirms it and the table has
        only lost lines since it was judged; printed again as applied.  One that waits for a
        call of its phrase taken back before it (``waits``, by its place: an «envido» heard in
        chatter, which refuses the «truco» said after it if it was said) is printed again as
        dudoso instead."""
        for k, (record, span, length) in enumerate(refused):
            conf = item_confidence(revised, *span)
            if k in waits:
                self._retract(record, conf, waits[k], applied=False)
                continue
            if conf < confidence_needed(record["call"], self.unsure_below):
                continue
            if len(self.table.lines) >= length:
                continue
            items = self._hear(record["heard"], as_team(record.get("team")), began)
            if not any(i.accepted for i in items):
                continue
            again = {**record, "accepted": True, "confidence": round(conf, 3),
                     "seat": items[0].seat, "guess": list(items[0].guess), "rejudged": True,
                     "reason": rejudged_reason(record["reason"])}
            again.pop("heard")
            self._keep(again)
            self._print(again, str(record.get("call")))

    def _print(self, record: dict[str, Any], label: str) -> None:
        self.printed += 1
        if self.as_json:
            shown = {**record, "team": seat_team(record)}
            print(json.dumps(shown, ensure_ascii=False), file=self.out, flush=True)
            return
        who = record["seat"] or record["team"] or "?"
        if record["call"] is None:
            what = f"✗ «{label}» (parecido, no es canto)"
        elif record["call"] == "puntos":
            what = f"{'✓' if record['accepted'] else '·'} {record['points']} puntos"
        else:
            what = f"{'✓' if record['accepted'] else '·'} {record['call'].upper()}"
        line = f"{record['t']:7.2f}s  {who:>3}  {what}  (conf {record['confidence']:.2f})"
        if not record["accepted"] and record["reason"]:
            line += f"  — {record['reason']}"
        print(line, file=self.out, flush=True)


def as_team(value: object) -> Team | None:
    """A team name, or None for anything else (no channel told the team apart)."""
    return "A" if value == "A" else "B" if value == "B" else None


def seat_team(record: dict[str, Any]) -> str | None:
    """The team of the seat taken to have said it; without a seat, the microphone's (or None)."""
    return team_of(record["seat"]) if record["seat"] else record["team"]


def unsure_reason(confidence: float) -> str:
    """Why a doubtful call is not applied: listen has no tablet to confirm it."""
    return f"dudoso (confianza {round(confidence, 3):.2f}): no se aplica sin confirmar"

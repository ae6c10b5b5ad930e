"""The voice referee at the table: what the listener hears goes to the scoreboard's game.

Each utterance is interpreted against the game as it stands, its legal calls are applied (or left
"unsure" for a tap when the recognizer was not sure), look-alikes are kept with the reason, and
every item is stored with its audio clip as evidence.  One line per item goes to the terminal.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from rich.markup import escape

from referee.audio import AudioChunk, AudioError
from referee.doubt import Earlier, Held, PhraseHeld, Said
from referee.listener import Listener
from referee.phrases import confidence_needed, parse
from referee.utterance import Utterance, item_confidence

UNSURE_BELOW = 0.6


class HearingService(Protocol):
    """What the voice referee needs from the scoreboard (``web_scoreboard.TableService``)."""

    def hear(self, text: str, team: str | None = None, *, clip: bytes | None = None,
             extra: dict[str, Any] | None = None,
             confidence: Callable[[int, int], float] | None = None,
             needed: Callable[[str | None], float] | None = None,
             earlier: Earlier[int] | None = None) -> list[dict[str, Any]]: ...

    def revise_heard(self, heard_id: int, confidence: float, unsure_below: float,
                     phrase_confidence: float | None = None,
                     waits_for: int | None = None, then: Sequence[int] = ()) -> bool: ...

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None: ...

    def log_length(self) -> int: ...


Log = Callable[[str], None]


class VoiceReferee:
    """The listener's callback: hands each utterance to the scoreboard and logs what it became."""

    def __init__(self, service: HearingService, log: Log = print,
                 unsure_below: float = UNSURE_BELOW) -> None:
        self.service = service
        self.log = log
        self.unsure_below = unsure_below
        # early utterance → its applied rows, each with the token span of its item
        self._early: dict[int, list[tuple[dict[str, Any], tuple[int, int] | None]]] = {}
        # the phrase being heard: where it began, its calls and the id of the last row held
        self._phrase: PhraseHeld[int] = PhraseHeld()

    def __call__(self, utt: Utterance) -> None:
        team = utt.team if utt.team in ("A", "B") else None
        # Each call is judged on its own words.  A call handed over early has no real confidence
        # yet: it is applied, and the whole phrase's confidence decides later whether it stays
        # (``revise``).  A call said after one held in an earlier utterance of the same phrase
        # waits for it if that one can change it (``earlier``), as it would in the same utterance.
        extra = {"t": round(utt.end, 3), "latency": round(utt.latency, 3), "early": utt.early,
                 # the weakest word of the whole phrase: voice learning takes phrases, not calls
                 "phrase_confidence": round(utt.confidence, 3),
                 # where the words lie in the clip (voice learning cuts them out)
                 "speech": [round(utt.start - utt.clip_start, 3), round(utt.end - utt.clip_start, 3)]}
        try:
            earlier = self._phrase.earlier(utt.phrase, utt.start, self.service.log_length())
            rows = self.service.hear(
                utt.text, team, clip=utt.clip or None, extra=extra,
                confidence=lambda start, end: item_confidence(utt, start, end),
                needed=None if utt.early else self.needed, earlier=earlier)
        except Exception as err:  # noqa: BLE001 - a bad transcript must never stop the referee
            self.log(f"[red]no pude anotar «{escape(utt.text)}»: {escape(str(err))}[/red]")
            return
        held = earlier.reading()
        for row in rows:
            extra = row.get("extra", {})
            held.add(int(row["id"]), extra.get("call"), row.get("status") == "unsure",
                     (str(extra.get("words")), team))
        self._phrase.note(utt.phrase, held, utt.end)
        if utt.early:
            items = parse(utt.text)
            spans: list[tuple[int, int] | None] = (
                [(h.start, h.end) for h in items] if len(items) == len(rows) else [None] * len(rows))
            self._early[id(utt)] = [(r, span) for r, span in zip(rows, spans, strict=True)
                                    if _revisable(r)]
        for row in rows:  # what was applied is logged by the scoreboard, once it is stored
            if row.get("status") != "accepted":
                self.log(describe(row, utt))

    def needed(self, call: str | None) -> float:
        """The confidence a heard call needs to be applied (``phrases.confidence_needed``)."""
        return confidence_needed(call, self.unsure_below)

    def revise(self, revisions: list[tuple[Utterance, Utterance]]) -> None:
        """The whole phrase's verdict on the calls heard early from it (``Listener.on_revisions``,
        in the order they were said): a call whose words the whole phrase is not sure of is taken
        back and waits for a tap like any doubtful one, and so is every call applied after it in
        the phrase, in the same early utterance or a later one, that it can change (``_waits``);
        those it cannot change stay, taken back with it and applied again after it.  What the
        end of the phrase hands over after it waits too, if it can change it (``_phrase``).  A
        call the rules refused is judged again if the phrase confirms it and what refused it was
        taken back (``HearingService.revise_heard``)."""
        rows = [(revised, row, span) for utt, revised in revisions
                for row, span in self._early.pop(id(utt), [])]
        if not rows:
            return
        confidences = {int(row["id"]): item_confidence(revised, *span) if span
                       else revised.confidence for revised, row, span in rows}
        waits, taken = self._waits(rows, confidences)
        # applied calls last to first (each taken back only if nothing but the calls after it in
        # the phrase that stay came after it), then the refused ones in the order they were said
        applied = [r for r in rows if r[1].get("status") == "accepted"]
        refused = [r for r in rows if r[1].get("status") != "accepted"]
        ids = [int(row["id"]) for _, row, _ in applied]
        stay = {heard_id: [later for later in ids[k + 1:] if later not in taken]
                for k, heard_id in enumerate(ids) if heard_id in taken}
        for revised, row, _ in [*reversed(applied), *refused]:
            heard_id = int(row["id"])
            confidence = confidences[heard_id]
            before = waits.get(heard_id)
            try:
                back = self.service.revise_heard(heard_id, confidence,
                                                 self.needed(row.get("extra", {}).get("call")),
                                                 phrase_confidence=revised.confidence,
                                                 waits_for=before[0] if before else None,
                                                 then=stay.get(heard_id, []))
            except Exception as err:  # noqa: BLE001 - never stop the referee
                self.log(f"[red]no pude revisar «{escape(revised.text)}»: {escape(str(err))}[/red]")
                return
            if back:
                why = (f"depende de «{escape(before[1])}»" if before else
                       f"la frase entera no lo confirmó (conf {confidence:.2f})")
                what = row.get("line") or row.get("extra", {}).get("words")
                self.log(f"{revised.end:7.2f}s [yellow]↶ {escape(str(what))} — dudoso: "
                         f"{why}[/yellow]")

    def _waits(self, rows: list[tuple[Utterance, dict[str, Any], tuple[int, int] | None]],
               confidences: dict[int, float]) -> tuple[dict[int, tuple[int, str]], set[int]]:
        """The calls of a phrase, applied or refused by the rules, said after one the whole phrase
        is not sure of (or after one that waits itself) that it can change, read from where the
        phrase began: each one's id → the id and words of the one it waits for; and the ids of
        the applied ones taken back (``_phrase`` keeps them for what the end of the phrase hands
        over)."""
        phrase = rows[0][0].phrase
        self._phrase.again(phrase)
        # where the phrase began: for one heard alone, the log when its first row was heard
        began = rows[0][1].get("extra", {}).get("log_length")
        length = self.service.log_length() if began is None else int(began)
        start = self._phrase.earlier(phrase, rows[0][0].start, length).start
        held: Held[int] = Held(read=lambda calls: self.service.read_calls(calls, start))
        words: dict[int, str] = {}
        waits: dict[int, tuple[int, str]] = {}
        taken: set[int] = set()
        for revised, row, _ in rows:
            extra = row.get("extra", {})
            heard_id = int(row["id"])
            applied = row.get("status") == "accepted"
            words[heard_id] = str(extra.get("words") or row.get("line"))
            said = (words[heard_id], revised.team if revised.team in ("A", "B") else None)
            before = held.before(extra.get("call"), said)
            if before is not None:
                waits[heard_id] = (before, words[before])
            if applied and (before is not None
                            or confidences[heard_id] < self.needed(extra.get("call"))):
                taken.add(heard_id)
            held.add(heard_id, extra.get("call"), heard_id in taken or heard_id in waits, said)
            self._phrase.note(phrase, held, revised.end)
        return waits, taken


def _revisable(row: dict[str, Any]) -> bool:
    """An early row the whole phrase's verdict may change: an applied call, or a call (not a
    look-alike) the rules refused."""
    return row.get("status") == "accepted" or (
        row.get("status") == "rejected" and row.get("extra", {}).get("call") is not None)


def describe(row: dict[str, Any], utt: Utterance) -> str:
    """One terminal line for a heard item (rich markup)."""
    stamp = f"{utt.end:7.2f}s"
    conf = f"conf {float(row.get('extra', {}).get('confidence', utt.confidence)):.2f}"
    status = row.get("status")
    line, text, reason = (escape(str(row.get(k))) for k in ("line", "text", "reason"))
    if status == "accepted":
        return f"{stamp} [green]✓ {line}[/green]  ({conf})"
    if status == "unsure":
        return f"{stamp} [yellow]? {line} — dudoso, confirmalo en la tablet[/yellow]  ({conf})"
    return f"{stamp} [red]✗ «{text}»[/red] — {reason}  ({conf})"


def listen_in_background(listener: Listener, source: Iterable[AudioChunk], log: Log,
                         on_end: Callable[[], None] | None = None) -> threading.Thread:
    """Run the listener over a source in a daemon thread; audio trouble is logged, not raised."""

    def run() -> None:
        try:
            listener.run(source)
        except AudioError as err:
            log(f"[red]problema con el audio: {escape(err.message)}[/red]")
        except Exception as err:  # noqa: BLE001 - the scoreboard keeps running anyway
            log(f"[red]la escucha se detuvo: {escape(str(err))}[/red]")
        finally:
            if on_end:
                on_end()

    thread = threading.Thread(target=run, name="listener", daemon=True)
    thread.start()
    return thread

"""The speech benchmark's scoring: what each file's outcome would apply, and the figures of a run."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from benchmarks.game_states import TALK_MOMENTS, legal_labels, moments_for
from benchmarks.speech_corpus import Item
from referee.phrases import EASIER, SURER, confidence_needed, longer_calls

# The per-call bars a call is applied by (``phrases.confidence_needed``): flor's higher one and
# the lower one of calls of several words; ``--same-bar`` drops both.
Bars = tuple[dict[str, float], frozenset[str]]
OWN_BARS: Bars = (SURER, EASIER)
SAME_BAR: Bars = ({}, frozenset())


def needed(label: str, min_conf: float, bars: Bars = OWN_BARS) -> float:
    """The confidence a heard label needs to be applied (``phrases.confidence_needed``); a
    number's label («puntos:27») is judged as the referee judges every number, «puntos»."""
    return confidence_needed(label.split(":")[0], min_conf, *bars)


@dataclass
class Outcome:
    item: Item
    # (label, confidence, latency, utterance, phrase): the early utterances of a phrase and what
    # its end hands over share the phrase; an early call the whole phrase heard as other words
    # has no phrase (it holds nothing back: those words are handed over on their own)
    heard: list[tuple[str, float, float, int, int | None]]
    audio_s: float
    cpu_s: float
    # each call handed over early (applied at once), with the confidence the whole phrase gave it
    early: list[tuple[str, float]] = field(default_factory=list)
    after_s: float = 0.0  # of ``audio_s``, the noise heard before and after the file
    # per utterance, how long after its chunk was heard it was handed over (``speech_listening.Heard``)
    busy_s: list[float] = field(default_factory=list)
    # with a microphone per team: (utterances given to the speaker's (the first channel's) team,
    # utterances given a team), of those that hand over a call or a number
    teams: tuple[int, int] = (0, 0)
    # the words of each look-alike and number the whole phrase heard, refused where a call is
    # said («mazo», «cuatro»): the tablet offers the longer call each was the end of beside it
    # («Era «me voy al mazo»», «Era «vale cuatro»»)
    refused: tuple[str, ...] = ()

    def applied(self, min_conf: float, bars: Bars = OWN_BARS,
                strict: bool = False) -> list[tuple[str, float, int]]:
        """(label, latency, utterance) of what would be applied at this threshold (a rare call
        needs more, ``phrases.SURER``, a call of several words less, ``phrases.EASIER``): in each utterance,
        what comes before its first call under the bar (the rest waits for a tap, as at the
        table).  ``strict``: in each phrase, across its utterances, as if every call after a
        doubtful one waited; at the table only those the doubtful one can change wait
        (``doubt.Held``), so the two bound what the table applies.  A number under the bar holds
        nothing back: the rules refuse it where a call is said (it is legal only while the tantos
        are said), and a refused item is no doubtful one."""
        out, held = [], set()
        for label, conf, lat, utterance, phrase in self.heard:
            key = (phrase if phrase is not None else ("alone", utterance)) if strict else utterance
            if key not in held and conf >= needed(label, min_conf, bars):
                out.append((label, lat, utterance))
            elif not label.startswith("puntos"):
                held.add(key)
        return out

    def got(self, min_conf: float, bars: Bars = OWN_BARS, strict: bool = False) -> list[str]:
        return [label for label, _, _ in self.applied(min_conf, bars, strict)]

    def latencies(self, min_conf: float, bars: Bars = OWN_BARS,
                  busy: bool = False) -> list[float]:
        """In audio time; ``busy``: plus the time this machine took to hand each over
        (``busy_s``, if it was measured)."""
        extra = self.busy_s if busy else []
        return [lat + (extra[u] if extra else 0.0) for _, lat, u in self.applied(min_conf, bars)]


@dataclass
class Talk:
    """What files with no call in them (look-alikes, chatter) made the referee hear and apply."""

    heard: list[int] = field(default_factory=lambda: [0, 0])  # files where anything was heard
    calls: list[int] = field(default_factory=lambda: [0, 0])  # ... a call, not only a number
    # In game: only what the rules allow at that moment is applied (benchmarks.game_states).
    game: list[int] = field(default_factory=lambda: [0, 0])
    game_sin_flor: list[int] = field(default_factory=lambda: [0, 0])


@dataclass
class Score:
    per_call: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    per_voice: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    strict: list[int] = field(default_factory=lambda: [0, 0])  # calls, ``Outcome.applied(strict)``
    # calls applied, or left dudoso as said or as the end of a longer call («envido» for «falta
    # envido»: the tablet offers «Era «falta envido»»; a refused look-alike or number likewise,
    # «mazo» for «me voy al mazo»), or whose end or opposite answer was the
    # last call applied (it offers «⇄ Era «falta envido»», «⇄ Era «no quiero»»): right with one
    # tap at most
    one_tap: list[int] = field(default_factory=lambda: [0, 0])
    numbers: list[int] = field(default_factory=lambda: [0, 0])
    lookalike: Talk = field(default_factory=Talk)
    chatter: Talk = field(default_factory=Talk)
    real_other: list[int] = field(default_factory=lambda: [0, 0])
    extra: list[int] = field(default_factory=lambda: [0, 0])
    # what look-alikes and chatter apply sin flor, by call: (file, moment) pairs
    false_calls_sin_flor: Counter[str] = field(default_factory=Counter)
    extra_game: list[int] = field(default_factory=lambda: [0, 0])
    # said -> [files where its opposite answer came first, files] ("quiero" for "no quiero")
    opposite: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    numbers_wrong_game: list[int] = field(default_factory=lambda: [0, 0])
    timed: list[tuple[float, str]] = field(default_factory=list)  # (latency, the file and call)
    busy_latencies: list[float] = field(default_factory=list)  # and the time to hand each over
    # files with a call or a number, with a microphone per team: ``Outcome.teams``
    teams: list[int] = field(default_factory=lambda: [0, 0])
    # calls handed over early (applied at once) that the whole phrase then took back, by call
    early_back: list[int] = field(default_factory=lambda: [0, 0])
    early_back_calls: Counter[str] = field(default_factory=Counter)
    audio_s: float = 0.0
    after_s: float = 0.0  # of ``audio_s``, the noise heard before and after the files
    cpu_s: float = 0.0
    misses: list[str] = field(default_factory=list)

    @property
    def latencies(self) -> list[float]:
        return [latency for latency, _ in self.timed]


# The files with no call in them, as the misses name them.
TALK_GROUPS = {"lookalike": "look-alike", "chatter": "chatter"}

# An answer taken for its opposite: the worst mistake a referee can make on an answer.
OPPOSITES = {"no quiero": "quiero", "quiero": "no quiero"}


def _first_answer(got: list[str]) -> str | None:
    """The answer a table applies of those handed over: the first; once it is applied no call
    waits for an answer, and an answer after it is refused."""
    return next((g for g in got if g in OPPOSITES), None)


def _in_game(got: list[str], moments: Iterable[str], expected: Iterable[str] = (),
             flor: bool = True) -> list[int]:
    """[moments where something not expected would be applied, moments]."""
    wanted = set(expected)
    hits = [any(g in legal_labels(m, flor) and g not in wanted for g in got) for m in moments]
    return [sum(hits), len(hits)]


def _count_false_calls(counts: Counter[str], got: list[str], moments: Iterable[str]) -> None:
    """Count, by call, what a look-alike or chatter file would apply at these moments of talk at
    a table sin flor (a call legal at three moments counts three times)."""
    for moment in moments:
        counts.update({g for g in got if g in legal_labels(moment, False)})


def _add(total: list[int], pair: list[int]) -> None:
    total[0] += pair[0]
    total[1] += pair[1]


def _tally(total: list[int], hit: bool) -> None:
    _add(total, [int(hit), 1])


def score(outcomes: Iterable[Outcome], min_conf: float, bars: Bars = OWN_BARS) -> Score:
    s = Score()
    for o in outcomes:
        it, got = o.item, o.got(min_conf, bars)
        s.audio_s += o.audio_s
        s.after_s += o.after_s
        s.cpu_s += o.cpu_s
        for label, conf in o.early:
            back = conf < needed(label, min_conf, bars)
            _tally(s.early_back, back)
            s.early_back_calls[label] += back
        triggered = bool(got)
        a_call = any(not g.startswith("puntos") for g in got)
        with_call = it.group in ("call", "chatter_call", "real_call")
        a_number = it.label.startswith("puntos")
        if with_call or a_number:
            _add(s.teams, list(o.teams))
        if with_call and not a_number:
            expected = it.label.split("+")
            doubtful = Counter(label for label, *_ in o.heard) - Counter(got)
            for call in expected:
                _tally(s.per_call[call], call in got)
                _tally(s.one_tap, call in got or call in doubtful
                       or any(call in longer_calls(label) for label in (*doubtful, *o.refused))
                       or bool(got) and call in (*longer_calls(got[-1]), OPPOSITES.get(got[-1])))
                _tally(s.per_voice[it.voice], call in got)
                _tally(s.strict, call in o.got(min_conf, bars, strict=True))
                if call not in got:
                    s.misses.append(f"{it.voice}: «{it.text}» → {got}")
            _tally(s.extra, any(g not in expected for g in got))
            _add(s.extra_game, _in_game(got, moments_for(expected)[:1], expected))
            for said, other in OPPOSITES.items():
                if said in expected:
                    _tally(s.opposite[said], _first_answer(got) == other and other not in expected)
            if it.group != "chatter_call" and expected[-1] in got:
                s.timed.append((min(o.latencies(min_conf, bars)), f"{it.voice} {it.render}: «{it.text}»"))
                s.busy_latencies.append(min(o.latencies(min_conf, bars, busy=True)))
        elif a_number:
            ok = [g for g in got if g.startswith("puntos")] == [it.label]
            _tally(s.numbers, ok)
            _add(s.numbers_wrong_game, _in_game(got, moments_for([it.label])[:1], [it.label]))
            if not ok:
                s.misses.append(f"{it.voice}: «{it.text}» → {got}")
        elif it.group in TALK_GROUPS:
            talk = s.lookalike if it.group == "lookalike" else s.chatter
            _tally(talk.heard, triggered)
            _tally(talk.calls, a_call)
            # said at one moment of talk (heard as the table expects there), or heard once for all
            moments = [it.moment] if it.moment else TALK_MOMENTS
            _add(talk.game, _in_game(got, moments))
            _add(talk.game_sin_flor, _in_game(got, moments, flor=False))
            _count_false_calls(s.false_calls_sin_flor, got, moments)
            if triggered:
                at = f" ({it.moment})" if it.moment else ""
                s.misses.append(f"{it.voice}: {TALK_GROUPS[it.group]} «{it.text}»{at} → {got}")
        elif it.group == "real_other" and it.text[:1] != "(" and not it.text.isdigit():
            _tally(s.real_other, triggered)
    return s


"""The one phrase table: every phrase the referee knows, what call it is, and its look-alikes.

The recognizers' grammars and lexicons and the transcript parser are all built from these tables,
so a phrase added here is heard, parsed and shown everywhere.  The rules count only the exact
official words: a look-alike ("turco", "embudo", "bueno", "vale") is listed as a decoy so that a
recognizer can hear it as itself and the referee can reject it with a reason, instead of forcing
it onto the nearest call.  An official call inside any sentence still counts ("¿tenés envido?").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from engine.events import Call

# Phrase (as spoken, with accents) -> the calls it carries, in order.
CALL_PHRASES: dict[str, tuple[Call, ...]] = {
    "truco": (Call.TRUCO,),
    "retruco": (Call.RETRUCO,),
    "vale cuatro": (Call.VALE_CUATRO,),
    "quiero": (Call.QUIERO,),
    "no quiero": (Call.NO_QUIERO,),
    "envido": (Call.ENVIDO,),
    "real envido": (Call.REAL_ENVIDO,),
    "falta envido": (Call.FALTA_ENVIDO,),
    "flor": (Call.FLOR,),
    "contraflor": (Call.CONTRAFLOR,),
    "contra flor": (Call.CONTRAFLOR,),
    "contraflor al resto": (Call.CONTRAFLOR_AL_RESTO,),
    "contra flor al resto": (Call.CONTRAFLOR_AL_RESTO,),
    "con flor quiero": (Call.CON_FLOR_QUIERO,),
    "con flor me achico": (Call.CON_FLOR_ME_ACHICO,),
    "son buenas": (Call.SON_BUENAS,),
    "me voy al mazo": (Call.MAZO,),
}

# Look-alike (as spoken) -> the call it only sounds like.  Heard, shown, never applied.
DECOYS: dict[str, Call] = {
    "turco": Call.TRUCO,
    "trucha": Call.TRUCO,
    "truquito": Call.TRUCO,
    "retrato": Call.RETRUCO,
    "vale": Call.VALE_CUATRO,
    "bueno": Call.QUIERO,
    "quieto": Call.QUIERO,
    "cuero": Call.QUIERO,
    "quiere": Call.QUIERO,
    "querés": Call.QUIERO,
    "quieres": Call.QUIERO,
    "embudo": Call.ENVIDO,
    "envidia": Call.ENVIDO,
    "tenés puntos": Call.ENVIDO,
    "tienes puntos": Call.ENVIDO,
    "floro": Call.FLOR,
    "mazo": Call.MAZO,
}

# Calls a player undoes by saying them after a «no» (or «ni», «nunca»…) with at most a few words
# between: «no te la quiero» and «ni en pedo quiero» refuse, «no me voy al mazo» stays.  Read as
# the call they would reverse, such a phrase would give the other answer than the one meant, the
# worst mistake a referee makes; read as a refusal, it would take words the rules do not count
# («no quiero» is the call).  So they are look-alikes: shown with the reason, never applied, and
# the table taps what was meant.  A question still counts («¿no querés?» is no call anyway, and
# «¿no tenés envido?» is an envido): only these two calls are undone by a «no».
NEGATED: frozenset[Call] = frozenset({Call.QUIERO, Call.MAZO})
NEGATIONS: frozenset[str] = frozenset({"no", "ni", "nunca", "jamas", "tampoco"})
NEGATION_REACH = 3  # words at most between the «no» and the call

# What a player says to make a call, never a call itself: "te canto truco", "envido, te digo".
# The recognizers hear these as themselves, so their sounds are not forced onto a call or a
# number ("te canto truco" was heard as "siete retruco").  The parser ignores them.
CARRIERS: tuple[str, ...] = ("canto", "te canto", "digo", "te digo")

# Calls that need a surer hearing than the table's threshold to be applied; below it they wait
# for a tap like any doubtful call.  "Flor" is one short word that chatter turns into more often
# than any other call (a stray one gives three points), while a player holds a flor in about one
# hand in twenty: on the tuning voices 0.9 halved the chatter applied in game at a table with
# flor and left two flores in ten for a tap (docs/voice.md#confidence).  An envido number too: a
# wrong one gives the envido to the wrong team, and what the recognizer mishears a number as is
# mostly another number ("veinte" for "veintinueve").  With each word's posterior read from the
# whole lattice (``asr.lattice``), 0.9 applied more right numbers on the tuning voices than 0.6 had
# before (65.2% against 59.1% clean, 47.0% at 10 dB both) and fewer wrong ones (8 against 9 of
# 132; docs/voice.md#confidence).
SURER: dict[str, float] = {Call.FLOR.value: 0.9, "puntos": 0.9}

# Calls of several words that chatter does not make, which need only part of the table's
# threshold (``EASIER_SHARE``).  A call's confidence is the mean of its words', and the posterior
# of a short word is shared with its neighbours ("vale" in "vale cuatro"), so a call said right
# is often judged less sure than a lone "truco"; while every look-alike and chatter the voice
# referee applied on the speech benchmark was a single call word or a number.  The answers keep
# the table's threshold: chatter's «¿alguien quiere más café?» was heard «no quiero», and an
# answer taken for its opposite is the worst mistake (docs/voice.md#confidence).
EASIER: frozenset[str] = frozenset({
    Call.REAL_ENVIDO.value, Call.FALTA_ENVIDO.value, Call.VALE_CUATRO.value,
    Call.CONTRAFLOR_AL_RESTO.value, Call.SON_BUENAS.value, Call.MAZO.value,
})
EASIER_SHARE = 2 / 3
# What the per-call bars are, for the help of ``--unsure-below`` (the UI's Spanish).
BARS_SAID = (f"la flor y los tantos piden {SURER[Call.FLOR.value]}, y los cantos de varias "
             "palabras, como «vale cuatro», dos tercios del umbral")


def confidence_needed(label: str | None, unsure_below: float, surer: dict[str, float] = SURER,
                      easier: frozenset[str] = EASIER) -> float:
    """The confidence a heard call (its ``Heard.label``) needs to be applied: the table's
    threshold, raised for the calls in ``surer`` and lowered to ``EASIER_SHARE`` of it for the
    calls in ``easier``.  A threshold of 0 (apply everything, as for a call handed over early,
    which the whole phrase revises) stays 0."""
    if unsure_below <= 0:
        return 0.0
    if label in easier:
        return EASIER_SHARE * unsure_below
    return max(unsure_below, surer.get(label or "", 0.0))


def longer_calls(words: str) -> tuple[str, ...]:
    """The calls whose phrase ends with these words after words of its own, by their canonical
    names: what a call heard without its first word may have been («envido» → «real envido»,
    «falta envido»; «quiero» → «no quiero», «con flor quiero»).  A doubtful call offers them on
    the tablet beside its confirmation."""
    tail = normalize(words).split()
    if not tail:
        return ()
    found = (calls[0].value for phrase, calls in CALL_PHRASES.items()
             if len(calls) == 1 and len(said := normalize(phrase).split()) > len(tail)
             and said[-len(tail):] == tail)
    return tuple(dict.fromkeys(found))


UNITS = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
         "diez", "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete",
         "dieciocho", "diecinueve", "veinte", "veintiuno", "veintidós", "veintitrés",
         "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve",
         "treinta")


def _number_words() -> dict[str, int]:
    words = {w: n for n, w in enumerate(UNITS)}
    for n in range(1, 9):
        words[f"treinta y {UNITS[n]}"] = 30 + n
    words["veintiún"] = 21
    words["treinta y un"] = 31
    return words


# Envido and flor numbers, 0-38, in words.  Whether a number is a possible envido is the
# engine's question (8-19 never are); the parser only reads it.
NUMBER_WORDS: dict[str, int] = _number_words()
MAX_NUMBER = 38
# A number typed in digits (a log, the tablet's «Evento» box) is read up to here, so that the engine
# refuses «40» as a number, as it refuses «treinta y nueve», not as words it does not know.
MAX_DIGITS = 99
# A number past any envido or flor that still starts like one: read whole, so that the engine
# refuses it as a whole instead of taking «treinta» and leaving «nueve».  Read only: no
# recognizer's grammar holds it.
BEYOND_WORDS: dict[str, int] = {"treinta y nueve": 39}
# A number as some write it in a log, read alike: «veinte y ocho» is 28 (no recognizer's grammar
# holds it: one says «veintiocho»).
WRITTEN_WORDS: dict[str, int] = {f"veinte y {UNITS[n]}": 20 + n for n in range(1, 10)}
# What an envido number is said with right after it: «treinta y tres son mejores».
NUMBER_TAILS: tuple[str, ...] = ("son mejores",)


def normalize(text: str) -> str:
    """Lowercase, drop accents and punctuation, collapse spaces: the form phrases are matched in."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    plain = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    plain = re.sub(r"(?<![a-z0-9])[-−](?=\d)", "menos", plain)  # «-1» is no number of tantos
    return " ".join(re.sub(r"[^a-z0-9ñ\[\]]+", " ", plain).split())


Kind = Literal["call", "points", "decoy"]


@dataclass(frozen=True)
class Heard:
    """One thing found in a transcript: an official call, an envido number, or a look-alike."""

    kind: Kind
    text: str                     # the words as matched (normalized)
    start: int                    # token span in the normalized transcript
    end: int
    call: Call | None = None      # the call (kind "call"), or the call a decoy resembles
    points: int | None = None     # kind "points"

    @property
    def label(self) -> str:
        """The canonical name a listener prints: the call, "puntos", or the decoy's words."""
        if self.kind == "call":
            assert self.call is not None
            return self.call.value
        return "puntos" if self.kind == "points" else self.text

    @property
    def key(self) -> str:
        """The call's name, or «puntos:N» for a number: what a moment of the game may expect."""
        return f"puntos:{self.points}" if self.kind == "points" else self.label


def _build_matcher() -> dict[tuple[str, ...], tuple[Kind, object]]:
    table: dict[tuple[str, ...], tuple[Kind, object]] = {}
    for phrase, calls in CALL_PHRASES.items():
        table[tuple(normalize(phrase).split())] = ("call", calls)
    for phrase, call in DECOYS.items():
        table[tuple(normalize(phrase).split())] = ("decoy", call)
    for phrase, number in (*NUMBER_WORDS.items(), *BEYOND_WORDS.items(), *WRITTEN_WORDS.items()):
        table[tuple(normalize(phrase).split())] = ("points", number)
    table["vale", "4"] = ("call", (Call.VALE_CUATRO,))  # as a log writes it
    return table


_MATCHER = _build_matcher()
_LONGEST = max(len(k) for k in _MATCHER)


def _match_at(tokens: list[str], i: int) -> tuple[int, Kind, object] | None:
    for length in range(min(_LONGEST, len(tokens) - i), 0, -1):
        hit = _MATCHER.get(tuple(tokens[i:i + length]))
        if hit:
            return length, hit[0], hit[1]
    token = tokens[i]
    if token.isdigit() and int(token) <= MAX_DIGITS:
        return 1, "points", int(token)
    return None


def parse(text: str) -> list[Heard]:
    """Every call, number and look-alike in a transcript, left to right, longest phrase first.

    >>> [h.label for h in parse("¿Y si te canto truco?")]
    ['truco']
    >>> [h.label for h in parse("quiero retruco")]
    ['quiero', 'retruco']
    >>> [h.label for h in parse("vale la pena")]
    ['vale']
    """
    tokens = normalize(text).split()
    found: list[Heard] = []
    i = 0
    while i < len(tokens):
        hit = _match_at(tokens, i)
        if hit is None:
            i += 1
            continue
        length, kind, value = hit
        words = " ".join(tokens[i:i + length])
        if kind == "call":
            for call in value:  # type: ignore[attr-defined]
                found.append(Heard("call", words, i, i + length, call=call))
        elif kind == "decoy":
            found.append(Heard("decoy", words, i, i + length, call=value))  # type: ignore[arg-type]
        else:
            found.append(Heard("points", words, i, i + length, points=value))  # type: ignore[arg-type]
        i += length
    return _negated(tokens, found)


def _negated(tokens: list[str], found: list[Heard]) -> list[Heard]:
    """The calls in ``NEGATED`` said after a negation (``NEGATION_REACH`` words before at most,
    none of them part of another thing found) made look-alikes of their own words, from the
    negation on: «no te la quiero» is no «quiero»."""
    covered = {t for h in found for t in range(h.start, h.end)}
    out = []
    for heard in found:
        if heard.kind == "call" and heard.call in NEGATED:
            for j in range(heard.start - 1, max(heard.start - 2 - NEGATION_REACH, -1), -1):
                if j in covered:
                    break
                if tokens[j] in NEGATIONS:
                    heard = Heard("decoy", " ".join(tokens[j:heard.end]), j, heard.end,
                                  call=heard.call)
                    break
        out.append(heard)
    return out


def grammar_phrases() -> list[str]:
    """Every phrase a recognizer may output: calls, numbers and decoys, as spoken (with accents)."""
    phrases = list(CALL_PHRASES) + list(NUMBER_WORDS) + list(DECOYS)
    # Envido numbers are also said with a lead-in; keep the common ones whole.
    phrases += [f"tengo {w}" for w in NUMBER_WORDS]
    phrases += [f"{w} {tail}" for w in NUMBER_WORDS for tail in NUMBER_TAILS]
    phrases += ["quiero retruco", "quiero vale cuatro", "envido envido"]
    return sorted(set(phrases))


def vocabulary() -> list[str]:
    """Every word of every phrase (with accents), for lexicons."""
    return sorted({word for phrase in grammar_phrases() for word in phrase.split()})


_DECOY_SPELLING = {normalize(phrase): phrase for phrase in DECOYS}


def decoy_reason(heard: Heard) -> str:
    """Why a look-alike is not a call, as the scoreboard shows it, spelled as in the table:
    «turco» no es truco, «querés» no es quiero."""
    assert heard.call is not None
    return f"«{_DECOY_SPELLING.get(heard.text, heard.text)}» no es {heard.call.value}"

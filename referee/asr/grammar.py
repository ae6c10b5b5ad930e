"""Recognizer grammars generated from the phrase table: a JSGF grammar for PocketSphinx, a word list
for Vosk.  The table (``referee.phrases``) is the only source of phrases.

The Sphinx grammar (a finite-state grammar built directly, no JSGF) is a loop over the calls and
envido numbers, the look-alikes (so "turco" is heard as itself, not forced onto "truco"), the words
a call is made with ("te canto", so "te canto truco" is not heard as "siete retruco"), and a garbage
path of single phones that soaks up chatter.  Weights make a call cost a little more than garbage, so a call is chosen only when
it fits the sound clearly better.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from referee.asr.lexicon import GLUE, SPANISH_PHONES

GARBAGE_PREFIX = "_"


def spoken_words(phrase: str) -> list[str]:
    """The words of a phrase as the recognizer spells them: lowercase, accents kept, no punctuation."""
    text = unicodedata.normalize("NFC", phrase.lower())
    return [w for w in re.split(r"[^a-záéíóúüñ]+", text) if w]


# Words of one sound decoded glued to the word after them, as the grammar's words (``tokens``):
# with «y» a word of its own, Sphinx took «treinta y tres» for «veintitrés» far more often than
# with «y+tres» one word (docs/voice.md, "A word of one sound").
GLUED_TO_NEXT = frozenset({"y"})


def tokens(phrase: str) -> tuple[str, ...]:
    """The grammar's words for a phrase's words: each word of ``GLUED_TO_NEXT`` glued to the next
    one («treinta y+tres»); ``untokened`` reads them back."""
    out: list[str] = []
    for word in phrase.split():
        if out and out[-1] in GLUED_TO_NEXT:
            out[-1] += GLUE + word
        else:
            out.append(word)
    return tuple(out)


def untokened(token: str, start: float, end: float) -> list[tuple[str, float, float]]:
    """The words of one of the grammar's words (``tokens``) heard from ``start`` to ``end``, each
    over a share of that time as long as its share of the letters."""
    words = token.split(GLUE)
    total = sum(map(len, words))
    out, at = [], start
    for word in words:
        until = at + (end - start) * len(word) / total
        out.append((word, at, until))
        at = until
    return out


def is_garbage(word: str) -> bool:
    """True for the garbage path's pseudo-words, which never reach the transcript."""
    return word.startswith(GARBAGE_PREFIX) or word in ("<s>", "</s>", "<sil>", "[unk]", "[noise]")


def is_unheard(word: str) -> bool:
    """True for the pseudo-words that stand for speech heard as no word of the table (the
    garbage path, ``[unk]``), not for silence or noise."""
    return word.startswith(GARBAGE_PREFIX) or word == "[unk]"


def unheard_spans(segments: list[tuple[str, float, float]]) -> tuple[tuple[float, float], ...]:
    """Where (start, end) each unheard word lies among a result's segments (word, start, end)."""
    return tuple((start, end) for word, start, end in segments if is_unheard(word))


# Everyday Spanish words that carry no call: a path for table talk so that chatter is heard as
# chatter instead of being forced onto the nearest call or number.  General function words and
# table words, not taken from any test corpus; none of them is in the phrase table.
FILLER_WORDS: tuple[str, ...] = (
    "a", "al", "algo", "ahí", "allá", "andá", "bien", "che", "como", "con", "cómo", "de", "del",
    "dale", "decí", "el", "ella", "en", "entonces", "es", "esa", "ese", "esta", "este", "eh",
    "hay", "la", "las", "le", "lo", "los", "más", "mano", "me", "mi", "mío", "muy", "nada", "ni",
    "no", "nos", "o", "otra", "otro", "para", "pero", "poco", "por", "qué", "que", "quién", "sí",
    "si", "sin", "su", "también", "tan", "te", "tengo", "toca", "todo", "tomá", "tu", "tú", "uh",
    "un", "una", "va", "vamos", "ver", "vos", "y", "ya", "yo", "juego", "juega", "jugá", "carta",
    "cartas", "gané", "ganaste", "tenés", "mejor", "mejores", "pena", "vez", "hoy", "acá", "así",
)


@dataclass(frozen=True)
class PhraseList:
    """Every phrase a recognizer may output, split as the grammar needs it."""

    phrases: tuple[str, ...]
    decoys: tuple[str, ...]
    fillers: tuple[str, ...] = ()
    carriers: tuple[str, ...] = ()  # "te canto", "te digo": said with a call, never one

    @property
    def calls(self) -> tuple[str, ...]:
        """Phrases that carry a call (the rest are envido numbers)."""
        from referee.phrases import parse

        return tuple(p for p in self.phrases if any(h.kind == "call" for h in parse(p)))

    @property
    def numbers(self) -> tuple[str, ...]:
        calls = set(self.calls)
        return tuple(p for p in self.phrases if p not in calls)

    @classmethod
    def from_table(cls) -> PhraseList:
        """Read calls, numbers and decoys from ``referee.phrases``."""
        from referee import phrases as table

        decoys = tuple(_decoy_texts(table.DECOYS))
        everything = tuple(dict.fromkeys(" ".join(spoken_words(p)) for p in table.grammar_phrases()))
        decoy_set = {" ".join(spoken_words(d)) for d in decoys}
        known = {w for p in everything for w in p.split()}
        return cls(
            phrases=tuple(p for p in everything if p and p not in decoy_set),
            decoys=tuple(sorted(d for d in decoy_set if d)),
            fillers=tuple(w for w in FILLER_WORDS if w not in known),
            carriers=tuple(" ".join(spoken_words(c)) for c in table.CARRIERS),
        )

    @cached_property
    def _unfinished(self) -> frozenset[tuple[str, ...]]:
        """The beginnings of phrases that the rest of the phrase would change: «falta» (envido),
        «me voy al» (mazo), «treinta» (y tres), «contraflor» (al resto); not «quiero» (retruco),
        whose rest is a phrase of its own."""
        from referee.phrases import parse

        def keys(text: str) -> list[str]:
            return [h.key for h in parse(text)]

        out = set()
        for phrase in (*self.phrases, *self.decoys, *self.carriers):
            words = phrase.split()
            for k in range(1, len(words)):
                head, rest = " ".join(words[:k]), " ".join(words[k:])
                if keys(head) + keys(rest) != keys(phrase):
                    out.add(tuple(words[:k]))
        return frozenset(out)

    def unfinished(self, words: Sequence[str]) -> bool:
        """True if the last of these words begin a phrase whose rest would change them: the rest
        may still be coming."""
        return any(tuple(words[k:]) in self._unfinished for k in range(len(words)))

    def words(self) -> list[str]:
        """Every distinct word and glued word (``tokens``), sorted: the decoder's dictionary."""
        return sorted({w for p in (*self.phrases, *self.decoys, *self.fillers, *self.carriers)
                       for w in (*p.split(), *tokens(p))})


def _decoy_texts(decoys: object) -> Iterable[str]:
    """Accept DECOYS as strings, (text, ...) tuples or a mapping keyed by text."""
    items: Iterable[object] = decoys.keys() if isinstance(decoys, dict) else decoys  # type: ignore[assignment]
    for item in items:
        if isinstance(item, str):
            yield item
        elif isinstance(item, tuple) and item and isinstance(item[0], str):
            yield item[0]
        else:
            text = getattr(item, "text", None) or getattr(item, "phrase", None)
            if isinstance(text, str):
                yield text


def garbage_words(phones: Iterable[str] = sorted(SPANISH_PHONES)) -> dict[str, tuple[str, ...]]:
    """Pseudo-words, one per phone, that make up the garbage path."""
    return {f"{GARBAGE_PREFIX}{p}": (p,) for p in phones}


def garbage_syllables() -> dict[str, tuple[str, ...]]:
    """Pseudo-words for the garbage path: every consonant+vowel syllable, lone vowels and lone
    consonants, so chatter costs about one grammar step per syllable, as real words do."""
    vowels = ["a", "e", "i", "o", "u"]
    consonants = sorted(SPANISH_PHONES - set(vowels))
    out: dict[str, tuple[str, ...]] = {f"{GARBAGE_PREFIX}{v}": (v,) for v in vowels}
    out.update({f"{GARBAGE_PREFIX}{c}": (c,) for c in consonants})
    out.update({f"{GARBAGE_PREFIX}{c}{v}": (c, v) for c in consonants for v in vowels})
    return out


Transition = tuple[int, int, float, str] | tuple[int, int, float]
Grammar = tuple[int, int, list[Transition]]  # start state, final state, transitions


def fsg_transitions(
    plist: PhraseList,
    garbage: Iterable[str],
    weights: dict[str, float],
    number_runs: bool = False,
    favour: Mapping[str, float] | None = None,
) -> Grammar:
    """A finite-state grammar as (start, final, transitions): a hub state looping over calls,
    numbers, decoys, filler words, carriers and garbage phones; each multi-word phrase is a chain
    of states that returns to the hub, phrases that start with the same words sharing them
    (``prefix_tree``).  ``weights`` gives each class its share of the hub's
    probability (keys ``call``, ``number``, ``decoy``, ``filler``, ``carrier``, ``garbage``),
    split evenly inside the class, so a class's size does not change how often it wins;
    ``favour`` multiplies a phrase's share (what the table expects now: ``expectation``).

    Unless ``number_runs``, a number cannot follow a number, even with garbage in between: a
    number ends in a second hub that offers everything but numbers (until a call or a look-alike),
    so "veintisiete" is not split into "veinte" "siete" and chatter does not become a list of
    numbers.

    The grammar ends only at the hubs: a phrase whose search cannot end there is heard as nothing,
    which is truer than the longer phrase it was inside when the audio ran out (docs/voice.md,
    "A phrase heard as nothing")."""
    hub, final, after_number = 0, 1, 2
    trans: list[Transition] = [(hub, final, 1.0)]
    groups = {
        "call": plist.calls,
        "number": plist.numbers,
        "decoy": plist.decoys,
        "filler": plist.fillers,
        "carrier": plist.carriers,
        "garbage": tuple(sorted(garbage)),
    }
    total = sum(weights.get(k, 0.0) for k, items in groups.items() if items)
    sources = [hub] if number_runs else [hub, after_number]
    if not number_runs:
        trans.append((after_number, final, 1.0))
    paths: list[tuple[int, tuple[str, ...], int, float]] = []
    for kind, items in groups.items():
        mass = weights.get(kind, 0.0)
        if not items or mass <= 0:
            continue
        prob = mass / total / len(items)
        for phrase in items:
            share = min(1.0, prob * (favour or {}).get(phrase, 1.0))
            for origin in sources:
                if origin == after_number and kind == "number":
                    continue
                # Numbers lead to the no-number hub; garbage stays where it is, so a stray
                # phone cannot open the way to a second number; the rest returns to the hub.
                end = after_number if kind == "number" and not number_runs else (
                    origin if kind == "garbage" else hub)
                paths.append((origin, tokens(phrase), end, share))
    return hub, final, trans + prefix_tree(paths, first_state=3)


def prefix_tree(paths: Sequence[tuple[int, tuple[str, ...], int, float]],
                first_state: int) -> list[Transition]:
    """The transitions of phrases (origin state, words, end state, weight) whose first words are
    shared: one «tengo» out of the hub, and the state after it offers every number, not forty
    chains that each start with a «tengo» of their own.  A shared word weighs as much as the
    heaviest phrase through it and each word after it that phrase's share of it, so every
    phrase weighs what it did as a chain of its own.  What it saves is the lattice the
    confidences are read from: it is built by looking, for every word that ends, at every word
    that may follow it (docs/voice.md, "Phrases that start alike")."""
    inner: dict[tuple[int, tuple[str, ...]], int] = {}  # (origin, words so far) -> its state
    heaviest: dict[tuple[int, tuple[str, ...]], float] = {}
    for origin, words, _end, share in paths:
        for k in range(1, len(words)):
            key = (origin, words[:k])
            inner.setdefault(key, first_state + len(inner))
            heaviest[key] = max(heaviest.get(key, 0.0), share)
    arcs: dict[tuple[int, int, str], float] = {}
    for origin, words, end, share in paths:
        for k, word in enumerate(words):
            src = inner[(origin, words[:k])] if k else origin
            last = k == len(words) - 1
            dst = end if last else inner[(origin, words[:k + 1])]
            weight = share if last else heaviest[(origin, words[:k + 1])]
            arcs[(src, dst, word)] = weight / heaviest[(origin, words[:k])] if k else weight
    return [(src, dst, weight, word) for (src, dst, word), weight in arcs.items()]


def expectation(plist: PhraseList, expected: frozenset[str], up: float,
                down: float) -> dict[str, float]:
    """How much more (``up``) or less (``down``) each call and number phrase weighs when the
    table expects ``expected`` (``Heard.key``: "quiero", "puntos:27"): a phrase is expected when
    everything it says is.  Nothing expected (no table): every phrase as it is."""
    from referee.phrases import parse

    if not expected:
        return {}
    keys = {p: {h.key for h in parse(p) if h.kind != "decoy"} for p in (*plist.calls, *plist.numbers)}
    return {p: up if said <= expected else down for p, said in keys.items() if said}


def vosk_grammar(plist: PhraseList) -> str:
    """The JSON phrase list for a Vosk grammar recognizer: phrases, decoys, fillers, carriers and
    ``[unk]``."""
    return json.dumps([*plist.phrases, *plist.decoys, *plist.fillers, *plist.carriers, "[unk]"],
                      ensure_ascii=False)

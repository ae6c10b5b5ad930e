"""Recognizer grammars generated from the phrase table: a JSGF grammar for PocketSphinx, a word list
for Vosk.  The table (``referee.phrases``) is the only source of phrases.

The Sphinx grammar (a finite-state grammar built directly, no JSGF) is a loop over four kinds of item: the calls and envido numbers, the look-alikes
(so "turco" is heard as itself, not forced onto "truco"), and a garbage path of single phones that
soaks up chatter.  Weights make a call cost a little more than garbage, so a call is chosen only when
it fits the sound clearly better.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.asr.lexicon import SPANISH_PHONES

GARBAGE_PREFIX = "_"


def spoken_words(phrase: str) -> list[str]:
    """The words of a phrase as the recognizer spells them: lowercase, accents kept, no punctuation."""
    text = unicodedata.normalize("NFC", phrase.lower())
    return [w for w in re.split(r"[^a-záéíóúüñ]+", text) if w]


def is_garbage(word: str) -> bool:
    """True for the garbage path's pseudo-words, which never reach the transcript."""
    return word.startswith(GARBAGE_PREFIX) or word in ("<s>", "</s>", "<sil>", "[unk]", "[noise]")


@dataclass(frozen=True)
class PhraseList:
    """Every phrase a recognizer may output, split as the grammar needs it."""

    phrases: tuple[str, ...]
    decoys: tuple[str, ...]

    @classmethod
    def from_table(cls) -> PhraseList:
        """Read calls, numbers and decoys from ``referee.phrases``."""
        from referee import phrases as table

        decoys = tuple(_decoy_texts(table.DECOYS))
        everything = tuple(dict.fromkeys(" ".join(spoken_words(p)) for p in table.grammar_phrases()))
        decoy_set = {" ".join(spoken_words(d)) for d in decoys}
        return cls(
            phrases=tuple(p for p in everything if p and p not in decoy_set),
            decoys=tuple(sorted(d for d in decoy_set if d)),
        )

    def words(self) -> list[str]:
        """Every distinct word, sorted."""
        return sorted({w for p in (*self.phrases, *self.decoys) for w in p.split()})


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


Transition = tuple[int, int, float, str] | tuple[int, int, float]


def fsg_transitions(
    plist: PhraseList,
    garbage: Iterable[str],
    call_weight: float = 1.0,
    decoy_weight: float = 1.0,
    garbage_weight: float = 1.0,
) -> tuple[int, int, list[Transition]]:
    """A finite-state grammar as (start, final, transitions): a hub state looping over phrases,
    decoys and garbage phones; each phrase is a chain of states that returns to the hub."""
    hub, final = 0, 1
    trans: list[Transition] = [(hub, final, 1.0)]
    gwords = sorted(garbage)
    total = call_weight + decoy_weight + garbage_weight
    next_state = 2
    groups = (
        (plist.phrases, call_weight / total),
        (plist.decoys, decoy_weight / total),
    )
    for items, mass in groups:
        for phrase in items:
            words = phrase.split()
            prob = mass / len(items)
            src = hub
            for k, word in enumerate(words):
                dst = hub if k == len(words) - 1 else next_state
                if dst != hub:
                    next_state += 1
                trans.append((src, dst, prob if k == 0 else 1.0, word))
                src = dst
    for word in gwords:
        trans.append((hub, hub, garbage_weight / total / len(gwords), word))
    return hub, final, trans


def vosk_grammar(plist: PhraseList) -> str:
    """The JSON phrase list for a Vosk grammar recognizer: phrases, decoys and ``[unk]``."""
    return json.dumps([*plist.phrases, *plist.decoys, "[unk]"], ensure_ascii=False)

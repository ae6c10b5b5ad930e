"""Spanish pronunciations for the recognizers, generated from spelling (Spanish is spelled as said).

Phones are those of the CMU Sphinx Spanish model (cmusphinx-es-5.2):
``a b ch d e f g gn i j k l ll m n o p r rr s t u x y z``.  Each word gets its standard reading plus
regional variants (seseo for ``z``/``ce``/``ci``, ``ll``/``y`` merged, a weak final ``s``), so a
Rioplatense "mazo" (``m a s o``) and a Castilian one (``m a z o``) both match.  For the English
fallback the same pronunciations are mapped onto the phones of the model inside the pocketsphinx wheel.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import product

SPANISH_PHONES = frozenset(
    ["a", "b", "ch", "d", "e", "f", "g", "gn", "i", "j", "k", "l", "ll", "m", "n", "o", "p", "r", "rr", "s", "t", "u", "x", "y", "z"]
)

_VOWELS = "aeiou"
_ACCENTS = str.maketrans("áéíóú", "aeiou")  # the ü stays: "güe" is not "gue"


def normalize_word(word: str) -> str:
    """Lowercase, keep ñ and ü, drop accents and anything that is not a letter."""
    word = unicodedata.normalize("NFC", word.lower()).translate(_ACCENTS)
    return "".join(ch for ch in word if ch.isalpha())


# How Spanish is read, letter by letter: at each place in a word the first pattern that matches
# gives its phones; a letter no pattern matches is its own phone (the vowels, b, d, f, ...).
_SPELLING: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern), tuple(phones.split())) for pattern, phones in (
        ("ch", "ch"),
        ("c(?=[ei])", "z"),
        ("c", "k"),
        ("qu?", "k"),            # the u of "que", "qui" is not said
        ("g(?=[ei])", "j"),
        ("gu(?=[ei])", "g"),     # "gue", "gui": the u is not said ("güe", "güi": it is)
        ("ll", "ll"),
        ("rr", "rr"),
        ("(?<![^nls])r", "rr"),  # a word's first r, or one after n, l or s, is trilled
        ("y(?![aeiou])", "i"),   # "y" alone or before a consonant is a vowel
        ("ü", "u"),
        ("ñ", "gn"),
        ("h", ""),
        ("v", "b"),
        ("w", "u"),
    ))


def _phones(word: str) -> list[str]:
    """The standard (Castilian-spelling) reading of one normalized word (``_SPELLING``)."""
    out: list[str] = []
    i = 0
    while i < len(word):
        for pattern, phones in _SPELLING:
            found = pattern.match(word, i)
            if found:
                out += phones
                i = found.end()
                break
        else:
            out.append(word[i])
            i += 1
    return out


def pronunciations(word: str, velar: bool = True) -> list[tuple[str, ...]]:
    """Every accepted pronunciation of a word, the standard one first; with ``velar``, a "bu"
    before a vowel also said "gü" ("güeno", "son güenas"), as Rioplatense speech often does."""
    base = tuple(_phones(normalize_word(word)))
    if not base:
        return []
    variants = [base]

    def add(p: tuple[str, ...]) -> None:
        if p and p not in variants:
            variants.append(p)

    seseo = tuple("s" if p == "z" else p for p in base)
    add(seseo)
    for v in variants[:]:  # a copy: add() grows the list
        add(tuple("y" if p == "ll" else p for p in v))
    if velar and base[:2] == ("b", "u") and len(base) > 2 and base[2] in _VOWELS:
        for v in variants[:]:
            add(("g",) + v[1:])
    syllables = sum(1 for k, p in enumerate(base) if p in _VOWELS and (k == 0 or base[k - 1] not in _VOWELS))
    if syllables >= 2 and base[-2:] == ("a", "s"):
        for v in variants[:]:  # the s of the forms so far only, once
            add(v[:-1])  # "son buena(s)": aspirated or dropped final s of a plural
    return variants


# Spanish phone -> phones of the English (en-us) model in the pocketsphinx wheel.
_TO_ENGLISH: dict[str, tuple[str, ...]] = {
    "a": ("AA",), "e": ("EH",), "i": ("IY",), "o": ("OW",), "u": ("UW",),
    "b": ("B",), "ch": ("CH",), "d": ("D",), "f": ("F",), "g": ("G",), "gn": ("N", "Y"),
    "j": ("HH",), "k": ("K",), "l": ("L",), "ll": ("Y",), "m": ("M",), "n": ("N",),
    "p": ("P",), "r": ("D",), "rr": ("R",), "s": ("S",), "t": ("T",), "x": ("K", "S"),
    "y": ("Y",), "z": ("S",),
}


def to_english(phones: Iterable[str], tap: str = "D") -> tuple[str, ...]:
    """Map a Spanish pronunciation onto the English model's phones; ``tap`` stands for the single r."""
    out: list[str] = []
    for p in phones:
        out.extend((tap,) if p == "r" else _TO_ENGLISH[p])
    return tuple(out)


def english_pronunciations(word: str) -> list[tuple[str, ...]]:
    """Pronunciations for the English fallback: each Spanish one mapped, with the r as flap and as R.
    Not the "gü" of a "bu" (``velar``): mapped onto the English phones it heard one call fewer on
    the tuning voices (docs/voice.md#changes-and-their-figures)."""
    result: list[tuple[str, ...]] = []
    for pron in pronunciations(word, velar=False):
        for tap in ("D", "R"):
            cand = to_english(pron, tap)
            if cand not in result:
                result.append(cand)
    return result


# Words decoded as one: «y+tres» is «y» and «tres» said one after the other (``grammar.tokens``).
GLUE = "+"


def glued(word: str, read: Callable[[str], list[tuple[str, ...]]]) -> list[tuple[str, ...]]:
    """Every pronunciation of a word, or of words glued into one (``GLUE``): each reading of the
    first followed by each of the next, as ``read`` reads one word."""
    return [sum(parts, ()) for parts in product(*(read(w) for w in word.split(GLUE)))]


def dictionary_lines(words: Iterable[str], english: bool = False) -> list[str]:
    """Sphinx dictionary lines (``word phone ...``, alternates as ``word(2)``) for the given words,
    glued ones (``GLUE``) too."""
    lines: list[str] = []
    for word in sorted({w.lower() for w in words if normalize_word(w)}):
        prons = glued(word, english_pronunciations if english else pronunciations)
        for k, pron in enumerate(prons):
            name = word if k == 0 else f"{word}({k + 1})"
            lines.append(f"{name} {' '.join(pron)}")
    return lines


@contextmanager
def dictionary_file(lines: Iterable[str]) -> Iterator[str]:
    """The path of a temporary pronunciation dictionary holding ``lines``, for as long as a decoder
    reads it (PocketSphinx loads a dictionary only from a file)."""
    fd, path = tempfile.mkstemp(suffix=".dict", prefix="truco-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        yield path
    finally:
        os.unlink(path)

"""Doubtful calls: which items of a phrase wait behind one, and the reasons shown for them.

One rule for ``listen`` and the scoreboard (docs/voice.md, "Confidence"): once an item of a
phrase is held (doubtful, or waiting itself), every call after it in the phrase waits for it, since
its meaning and its seat were read with the held one counted; and a declaration heard while an
earlier one of the same hand is held waits for it too, since its seat comes from the declaration
order, which the held one left unsettled.  A doubtful call the rules refuse is not held: it is
refused with the rules' reason, since a tap could not apply it (``verdict``).  A phrase may reach
them in several utterances (the calls handed over early from partial results, the rest at its end):
``PhraseHeld`` carries the rule from one to the next.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

# The calls that declare the tantos: one heard while another of the hand waits as dudoso waits too
# (its seat comes from the declaration order).
DECLARATIONS = ("puntos", "son buenas")

# Word boundaries move a little between partial and final results: an utterance that starts this
# much before the end of a held one is taken to be said after it, not over it.
OVERLAP_S = 0.05

T = TypeVar("T")
Verdict = Literal["look-alike", "waits", "refused", "unsure", "applied"]


def verdict(call: str | None, accepted: bool, doubtful: bool, waits: bool) -> Verdict:
    """What becomes of one heard item: a look-alike (no call) is kept as such; a call that
    ``waits`` for a held one before it waits, even if the rules refuse it now (what refused it
    may be the one it waits for); otherwise a call the rules refuse is refused, even a
    ``doubtful`` one (a tap could not apply it, so nothing after it waits for it); a doubtful
    call the rules take waits for a tap; the rest is applied."""
    if call is None:
        return "look-alike"
    if waits:
        return "waits"
    if not accepted:
        return "refused"
    return "unsure" if doubtful else "applied"


class Held(Generic[T]):
    """What the next item of a phrase waits for, as the phrase is read item by item: the last item
    held in the phrase, or, for a declaration, the last declaration of the hand held (from the
    phrases before, ``declaration``).  An item is whatever its user keeps: its words, a row."""

    def __init__(self, declaration: T | None = None, phrase: T | None = None) -> None:
        self.declaration = declaration
        self.phrase = phrase  # held in an earlier utterance of the same phrase (``PhraseHeld``)

    def before(self, call: str | None) -> T | None:
        """The item a call waits for, or None; a look-alike (no call) waits for nothing."""
        if call is None:
            return None
        if self.phrase is not None:
            return self.phrase
        return self.declaration if call in DECLARATIONS else None

    def add(self, item: T, call: str | None, held: bool) -> bool:
        """Note the next item of the phrase: if ``held``, what comes after it waits for it, and
        so do the later declarations of the hand if it is one (a doubtful declaration the rules
        refuse is not held, ``verdict``).  True if those now wait for it."""
        if not held:
            return False
        self.phrase = item
        if call in DECLARATIONS:
            self.declaration = item
            return True
        return False


class PhraseHeld(Generic[T]):
    """The last item held in the phrase being heard, for the utterances of that phrase said after
    it: the listener hands a phrase over in several utterances (``Utterance.phrase``), and a
    call said after one held, in another utterance of the phrase, waits for it just the same.
    Items whose utterance overlaps the held one (what the whole phrase heard where an early call
    was, handed over on its own) do not wait for it."""

    def __init__(self) -> None:
        self._held: tuple[int, T, float] | None = None  # the phrase, the item, where it ends

    def before(self, phrase: int | None, start: float) -> T | None:
        """The item an utterance of ``phrase`` that starts at ``start`` waits for, or None (no
        phrase given: an utterance heard alone)."""
        if phrase is None or self._held is None or self._held[0] != phrase:
            return None
        return self._held[1] if start >= self._held[2] - OVERLAP_S else None

    def note(self, phrase: int | None, item: T, end: float) -> None:
        """An item of ``phrase`` is held, in an utterance that ends at ``end``; the one said last
        is what comes after waits for."""
        if phrase is None:
            return
        if self._held is not None and self._held[0] == phrase and self._held[2] > end:
            return
        self._held = (phrase, item, end)


def waiting_reason(before: str) -> str:
    """Why a heard item waits for a tap although it may be sure: it depends on a doubtful one said
    before it (``before``, its words)."""
    return f"dudoso: depende de «{before}», dudoso"


def decided_reason(before: str, confirmed: bool) -> str:
    """Why a heard item that waited for a doubtful one said before it (``before``, its words)
    still waits for its own tap once that one is decided: confirmed, it reads as it was heard;
    discarded, it is read on its own words."""
    if confirmed:
        return f"dudoso: «{before}» ya se confirmó; tocá para confirmar"
    return f"dudoso: «{before}» se descartó, se lee solo; tocá para confirmar"


def taken_back_reason(confidence: float, tap: bool = True) -> str:
    """Why a call applied from a partial hearing was taken back by the whole phrase (and, where a
    tablet can confirm it, ``tap``, how)."""
    then = "tocá para confirmar" if tap else "no se aplica sin confirmar"
    return f"dudoso: la frase entera no lo confirmó (confianza {confidence:.2f}); {then}"


def rejudged_reason(before: str | None) -> str:
    """Why a call the rules refused was applied after all: what refused it was taken back."""
    return f"anotado al retirarse lo que lo impedía (antes: {before})"

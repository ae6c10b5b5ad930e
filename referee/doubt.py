"""Doubtful calls: which items of a phrase wait behind one, and the reasons shown for them.

One rule for ``listen`` and the scoreboard (docs/voice.md, "Confidence"): once an item of a
phrase is held (doubtful, or waiting itself), a call after it in the phrase waits for it if the
held ones can change what it means or who said it: read with them and without them, from where
the phrase began, the phrase's calls up to it read it otherwise (another line, the hand's bets
left otherwise after it, or refused by one reading only: «envido real envido»: B's raise, or A's
own bet).  One they cannot change is applied at once («quiero vale
cuatro» to a retruco: A's vale cuatro either way).  A declaration heard while an earlier one of the
same hand is held waits for it too, since its seat comes from the declaration order, which the
held one left unsettled.  A doubtful call the rules refuse is not held: it is refused with the
rules' reason, since a tap could not apply it (``verdict``).  A phrase may reach them in several
utterances (the calls handed over early from partial results, the rest at its end):
``PhraseHeld`` carries the rule from one to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

# The calls that declare the tantos: one heard while another of the hand waits as dudoso waits too
# (its seat comes from the declaration order).
DECLARATIONS = ("puntos", "son buenas")

# Word boundaries move a little between partial and final results: an utterance that starts this
# much before the end of a held one is taken to be said after it, not over it.
OVERLAP_S = 0.05

T = TypeVar("T")
# A call as heard: its words, and the team of the microphone that heard it (None: no telling).
Said = tuple[str, str | None]
# Reads calls said one after the other from where their phrase began, without changing the game:
# the line each would apply, None where the rules refuse it (or its words are not one call); None
# for them all when there is no telling (the log lost lines since the phrase began).
Read = Callable[[Sequence[Said]], Sequence[str | None] | None]
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
    held in the phrase, if the held ones can change it (``changes``), or, for a declaration, the
    last declaration of the hand held (from the phrases before, ``declaration``).  An item is
    whatever its user keeps: its words, a row."""

    def __init__(self, declaration: T | None = None, phrase: T | None = None,
                 read: Read | None = None, said: Sequence[tuple[Said, bool]] = ()) -> None:
        self.declaration = declaration
        self.phrase = phrase  # held in an earlier utterance of the same phrase (``PhraseHeld``)
        self.read = read  # from where the phrase began; without it every call waits
        # the calls of the phrase so far, and whether each is held (from its earlier utterances)
        self.said: list[tuple[Said, bool]] = list(said)
        self.given = len(self.said)

    def before(self, call: str | None, said: Said | None = None) -> T | None:
        """The item a call (heard as ``said``) waits for, or None; a look-alike (no call) waits
        for nothing."""
        if call is None:
            return None
        if self.phrase is not None and self.changes(said):
            return self.phrase
        return self.declaration if call in DECLARATIONS else None

    def changes(self, said: Said | None) -> bool:
        """Whether the calls held in the phrase can change what the call ``said`` after them
        means or who said it: the phrase's calls up to it, read with them and without them
        (``read``: its line and where it leaves the hand's bets), read it otherwise, or only one
        of the two refuses it (refused both ways, it is refused, and waits for nothing).  Unknown
        (no reader, no words, no telling): they can."""
        if self.read is None or said is None:
            return True
        kept = [call for call, held in self.said if not held]
        with_them = self.read([*(call for call, _ in self.said), said])
        without = self.read([*kept, said])
        return with_them is None or without is None or with_them[-1] != without[-1]

    def add(self, item: T, call: str | None, held: bool, said: Said | None = None) -> bool:
        """Note the next item of the phrase (a call heard as ``said``): if ``held``, what comes
        after it waits for it, if it can change them, and so do the later declarations of the hand
        if it is one (a doubtful declaration the rules refuse is not held, ``verdict``).  True if
        those now wait for it."""
        if call is not None and said is not None:
            self.said.append((said, held))
        if not held:
            return False
        self.phrase = item
        if call in DECLARATIONS:
            self.declaration = item
            return True
        return False


@dataclass(frozen=True)
class Earlier(Generic[T]):
    """What the earlier utterances of a phrase leave to the next one: where the phrase began (the
    log's length then: its calls are read from there), its calls and whether each is held, and
    the last item held."""

    start: int
    said: tuple[tuple[Said, bool], ...] = ()
    held: T | None = None

    def deals(self, length: int) -> bool:
        """Whether a call of the phrase heard when the log has ``length`` lines may deal the next
        hand, if the last one is over: only while nothing is applied since the phrase began, as
        when the phrase is heard whole, where only its first call can deal.  A call said after
        the one that ended the hand («no quiero … envido», «me voy al mazo … truco») is read in
        the hand that ended, and refused: the next hand is dealt by a call that begins a
        phrase."""
        return length <= self.start

    def reading(self, declaration: T | None = None, read: Read | None = None) -> Held[T]:
        """The ``Held`` the next utterance is read with (``declaration``: see ``Held``)."""
        return Held(declaration, self.held, read, self.said)


class PhraseHeld(Generic[T]):
    """What the utterances of the phrase being heard leave to its later ones: where it began (the
    log's length then, ``start``: its calls are read from there), its calls so far, and the last
    item held in it.  The listener hands a phrase over in several utterances
    (``Utterance.phrase``), and a call said after one held, in another utterance of the phrase,
    waits for it just the same.  Items whose utterance overlaps the held one (what the whole
    phrase heard where an early call was, handed over on its own) do not wait for it."""

    def __init__(self) -> None:
        self._phrase: int | None = None
        self.start = 0
        self._said: list[tuple[Said, bool, float]] = []  # each call, whether held, where it ends
        self._held: tuple[T, float] | None = None  # the item, where it ends

    def earlier(self, phrase: int | None, start: float, length: int) -> Earlier[T]:
        """What the utterances of ``phrase`` said before one said from ``start``, heard when the
        log had ``length`` lines, left to it (the first of a phrase begins it; one heard alone
        begins where it is heard, with nothing before it)."""
        if phrase is None:
            return Earlier(length)
        if phrase != self._phrase:
            self._phrase, self.start, self._said, self._held = phrase, length, [], None
        said = tuple((call, held) for call, held, end in self._said if start >= end - OVERLAP_S)
        item = self._held if self._held is not None and start >= self._held[1] - OVERLAP_S else None
        return Earlier(self.start, said, None if item is None else item[0])

    def note(self, phrase: int | None, held: Held[T], end: float) -> None:
        """What an utterance of ``phrase`` that ends at ``end``, read with ``held``, leaves to the
        later ones: its calls, and the last item held, if it held one."""
        if phrase is None or phrase != self._phrase:
            return
        calls, held.given = held.said[held.given:], len(held.said)
        self._said += [(call, was_held, end) for call, was_held in calls]
        if held.phrase is not None and any(was_held for _, was_held in calls):
            self._held = (held.phrase, end)

    def again(self, phrase: int | None) -> None:
        """The phrase is read again from where it began (the whole phrase's verdict on its early
        calls, ``note`` after each of them): what it left so far is forgotten."""
        if phrase is not None and phrase == self._phrase:
            self._said, self._held = [], None


CONFIRMED = "confirmado a mano"  # the reason a heard item confirmed by a tap is given


def confirmed_reason(instead: str | None = None) -> str:
    """Why a heard item was applied: a person confirmed it with a tap, as heard or (``instead``)
    as the longer call it was the end of."""
    return CONFIRMED + (f": era «{instead}»" if instead else "")


def confirmed_as_longer(reason: str | None) -> bool:
    """Whether a heard item's reason says a tap took it for the longer call it ended
    (``confirmed_reason`` with ``instead``): its own words were misheard."""
    return (reason or "").startswith(f"{CONFIRMED}: era ")


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


def passed_reason(after: str, refused: str) -> str:
    """Why a doubtful heard item can no longer be confirmed: a call heard after it (``after``, its
    words) was applied, and the rules now refuse it (``refused``, their reason)."""
    return f"dudoso: ya no se puede confirmar: después se anotó «{after}» ({refused})"


def taken_back_reason(confidence: float, tap: bool = True) -> str:
    """Why a call applied from a partial hearing was taken back by the whole phrase (and, where a
    tablet can confirm it, ``tap``, how)."""
    then = "tocá para confirmar" if tap else "no se aplica sin confirmar"
    return f"dudoso: la frase entera no lo confirmó (confianza {confidence:.2f}); {then}"


def rejudged_reason(before: str | None) -> str:
    """Why a call the rules refused was applied after all: what refused it was taken back."""
    return f"anotado al retirarse lo que lo impedía (antes: {before})"

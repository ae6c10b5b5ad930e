"""Check a shown envido from the camera: frame → cards read → ``Show`` event.

The checker only produces a ``Show`` when every card in view is read with confidence, or when
the cards read settle the claim whatever the others are: they make the declared number (two of one
suit, or one card, as the rules ask), or no other card could make it with them.  A wrong verdict on
a declared envido is worse than none, so anything doubtful comes back as "no la veo" and the table
decides as usual.  The engine compares the shown cards with the declaration.

A figure counts 0 whatever its rank, so a card read only as "a figure of <suit>" (``Reading.
figure_of``) is enough: the ``Show`` carries a stand-in figure of that suit, which makes the same
envidos as the real one, and ``ShowCheck.stand_ins`` says which cards are stand-ins.

A flor is checked the same way, with its three cards read (``verdict_flor``): the engine says if
they make a flor, and the number sung.  A card another seat played is not one of the cards shown:
read in view, it counts as a card not read.  A card known to lie on the table from an earlier deal
(``stray``) is not shown either: it is left out (``set_aside``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

import numpy as np

from engine.cards import DECK, FIGURES, Card, Suit, envido_values_made
from engine.events import Show
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer


@dataclass(frozen=True)
class ShowCheck:
    """What the camera saw when a seat showed its cards.  ``event`` is None when abstaining."""

    seat: str
    readings: tuple[Reading, ...]
    event: Show | None
    message: str
    stand_ins: tuple[Card, ...] = ()  # cards of the event standing for a figure of unread rank

    @property
    def values(self) -> set[int]:
        """Envidos the read cards make (empty when abstaining)."""
        return envido_values_made(self.event.cards) if self.event else set()


@dataclass
class EnvidoChecker:
    """Turns a frame of shown cards into a ``Show`` event for the engine, or abstains."""

    recognizer: Recognizer

    def check(self, seat: str, frame: np.ndarray, declared: int | None = None,
              seen_elsewhere: Collection[Card] = (), kind: str = "envido",
              refused: Collection[frozenset[Card]] = (), stray: Collection[Card] = ()) -> ShowCheck:
        """Read the shown cards (``verdict_hand``, or ``verdict_flor`` for a "flor").  ``declared``: the
        number the seat sang.  ``seen_elsewhere``: cards other seats played, which no card shown
        may be.  ``refused``: card sets the table refused already, not offered again.  ``stray``:
        cards left on the table from an earlier deal (``set_aside``)."""
        readings = tuple(self.recognizer.read(frame))
        shown = set_aside(readings, stray)
        cards, stand_ins, message = (verdict_flor(shown, seen_elsewhere) if kind == "flor"
                                     else verdict_hand(shown, declared, seen_elsewhere))
        if cards and frozenset(cards) in refused:
            message = f"no la veo: la mesa ya rechazó {' '.join(map(str, cards))}"
            return ShowCheck(seat, readings, None, message)
        if not cards:
            return ShowCheck(seat, readings, None, message)
        return ShowCheck(seat, readings, Show(seat, cards), f"{seat} muestra {message}", stand_ins)


def stand_in(suit: Suit, guess: Card | None, taken: Collection[Card]) -> Card | None:
    """A figure of ``suit`` not in ``taken``, the bank's guessed rank first (any figure counts 0);
    None if all three are taken (then the reading cannot be right)."""
    ranks = ([guess.rank] if guess is not None and guess.rank in FIGURES else []) + list(FIGURES)
    return next((Card(r, suit) for r in ranks if Card(r, suit) not in taken), None)


Hand = tuple[tuple[Card, ...] | None, tuple[Card, ...], str]


def verdict_hand(readings: tuple[Reading, ...] | list[Reading], declared: int | None,
                 seen_elsewhere: Collection[Card] = ()) -> Hand:
    """The cards to show the engine for a declared number (None to abstain), as ``shown_hand``.

    The rules ask the cards to make the number: two of one suit, or one card.  Two cards read that
    make it confirm the claim, even with a third card in view unread.  To call it false, the cards
    read must not make it and neither could a card not read: every card in view read and all three
    shown, or no card left (not read, not played by another seat) that would make the number with
    them, as a 33 sung over a 4 of oros and a 5 of espadas.  And it is never called false on a
    card named only by its cues (``Reading.by_cues``, below the bank's bar): the cues can misread a
    card the same way at every look, and calling an honest player a liar is the worst verdict."""
    cards, stand_ins, message = shown_hand(readings, seen_elsewhere)
    if declared is None:
        return cards, stand_ins, message
    all_read = cards is not None
    if cards is None:
        cards, stand_ins, seen = shown_hand(readings, seen_elsewhere, unread_ok=True)
        if cards is None:
            return None, (), message
        message = seen
    if declared in envido_values_made(cards):
        return cards, stand_ins, message if all_read else f"{message} (con esas alcanza)"
    cued = [r.card for r in readings if r.by_cues and r.card in cards]
    if cued:  # a misread that repeats at every look would call an honest player a liar
        return None, (), (f"no la veo: el {cued[0]} lo leí por señas, y con eso solo no digo que "
                          f"no tenía {declared}")
    if all_read and len(cards) == 3:
        return cards, stand_ins, message
    if not could_make(cards, declared, seen_elsewhere):
        return cards, stand_ins, f"{message} (ninguna otra carta hace {declared})"
    if all_read:
        return None, (), "no la veo: para ver si no tenía los tantos, mostrá las tres cartas"
    return None, (), f"no la veo: {message} no hacen {declared}, y la que no leí podría"


def verdict_flor(readings: tuple[Reading, ...] | list[Reading],
                 seen_elsewhere: Collection[Card] = ()) -> Hand:
    """The three cards of a shown flor (None to abstain), as ``shown_hand``: the engine tells
    whether they make a flor and the number sung."""
    cards, stand_ins, message = shown_hand(readings, seen_elsewhere)
    if cards is not None and len(cards) != 3:
        return None, (), "no la veo: la flor se muestra con las tres cartas"
    return cards, stand_ins, message



def could_make(cards: Collection[Card], declared: int, excluded: Collection[Card] = ()) -> bool:
    """Whether one more card, not among ``cards`` nor ``excluded``, would make ``declared`` with them."""
    taken = {*cards, *excluded}
    return any(declared in envido_values_made((*cards, card)) for card in DECK if card not in taken)


def shown_hand(readings: tuple[Reading, ...] | list[Reading], seen_elsewhere: Collection[Card] = (),
               unread_ok: bool = False) -> Hand:
    """The cards a show makes (None to abstain), the stand-ins among them, and what was seen.

    Every card in view must be named or read as a figure of a known suit (with ``unread_ok``, the
    cards read are kept if there are two or three of them); a card ``seen_elsewhere`` (played by
    another seat) is not one of them: named, it counts as not read; a stand-in is never one."""
    readings = [_not_read(r) if r.card in seen_elsewhere else r for r in readings]
    unread = [r for r in readings if r.card is None and r.figure_of is None]
    if unread and not unread_ok:
        return None, (), f"no la veo: {len(unread)} carta(s) sin leer, mostralas de nuevo"
    if not 2 <= len(readings) <= 3:
        return None, (), f"no la veo: hay {len(readings)} carta(s) a la vista, se muestran dos o tres"
    readings = [r for r in readings if r not in unread]
    if len(readings) < 2:
        return None, (), "no la veo: leí menos de dos cartas, mostralas de nuevo"
    named = [r.card for r in readings if r.card is not None]
    if len(set(named)) != len(named):
        return None, (), "no la veo: leí la misma carta dos veces"
    cards, stand_ins, words = list(named), [], []
    for r in readings:
        if r.card is not None:
            words.append(str(r.card))
        elif r.figure_of is not None:
            figure = stand_in(r.figure_of, r.guess, [*cards, *seen_elsewhere])
            if figure is None:
                return None, (), f"no la veo: las figuras de {r.figure_of.nombre} ya se jugaron"
            stand_ins.append(figure)
            cards.append(figure)
            words.append(f"una figura de {r.figure_of.nombre}")
    ordered = tuple(r.card for r in readings if r.card is not None) + tuple(stand_ins)
    return ordered, tuple(stand_ins), " ".join(words)


def set_aside(readings: tuple[Reading, ...] | list[Reading],
              stray: Collection[Card]) -> list[Reading]:
    """The readings of the cards shown, a card known to lie on the table from an earlier deal left
    out: with three other cards in view it is no card shown; with fewer it may be one misread, so
    it counts as a card not read (and the card it names may still be one of the hand)."""
    others = [r for r in readings if r.card is None or r.card not in stray]
    if len(others) >= 3:
        return others
    return [_not_read(r) if r.card is not None and r.card in stray else r for r in readings]


def _not_read(reading: Reading) -> Reading:
    """The reading of a card whose name cannot be right (another seat played that card)."""
    return replace(reading, card=None, figure_of=None)

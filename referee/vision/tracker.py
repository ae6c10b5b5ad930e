"""Played cards from a fixed camera over the table: a card that appears and stays in front of a
seat becomes ``Play(seat, card)`` for the engine.

A new hand may start (a tap on the tablet, a call) while the last hand's cards still lie on the
table.  Those cards are not plays of the new hand: a card played or shown in an earlier hand is
played again only after it has been out of sight for a few frames (gathered, dealt, put down).

A card is in one place: a name read on two cards at once (one of them misread) is no play until
only one card bears it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.cards import Card
from engine.events import Play
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.stillness import Stillness

SMALLEST_REGION = 0.1  # of the frame's width and height: a card and the hand over it fit in


@dataclass(frozen=True)
class SeatRegion:
    """The part of the frame in front of a seat, as fractions of the frame (x0, y0, x1, y1)."""

    seat: str
    box: tuple[float, float, float, float]

    def __post_init__(self) -> None:
        x0, y0, x1, y1 = self.box
        if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
            raise ValueError(f"invalid region for seat {self.seat}: {self.box} "
                             "(fractions of the frame, x0 < x1 and y0 < y1)")
        if min(x1 - x0, y1 - y0) < SMALLEST_REGION:
            raise ValueError(f"region for seat {self.seat} too small to hold a card: {self.box} "
                             f"(at least {SMALLEST_REGION} of the frame each way)")

    def holds(self, point: np.ndarray, width: int, height: int) -> bool:
        x0, y0, x1, y1 = self.box
        x, y = float(point[0]), float(point[1])
        return x0 * width <= x < x1 * width and y0 * height <= y < y1 * height


@dataclass
class PlayTracker:
    """Feeds frames, returns the plays noticed in each.  ``new_hand()`` starts the next hand."""

    recognizer: Recognizer
    seats: Sequence[SeatRegion]
    steady_frames: int = 3
    played: dict[Card, str] = field(default_factory=dict)
    lying: set[Card] = field(default_factory=set)  # earlier hands' cards, maybe still in sight
    in_sight: set[tuple[str, Card]] = field(default_factory=set)  # named in front of a seat now
    stillness: Stillness = field(default_factory=Stillness)  # a still table is not read again
    _readings: list[Reading] = field(default_factory=list)  # the last frame read
    _streak: dict[tuple[str, Card], int] = field(default_factory=dict)
    _away: dict[Card, int] = field(default_factory=dict)  # frames each lying card went unseen

    def new_hand(self, shown: Iterable[Card] = ()) -> None:
        """Forget the plays; the cards played (and ``shown``) in the hand that ended may still lie
        on the table, and are not plays until they have been out of sight (``lying``), as the
        cards of earlier hands not seen leaving yet (a card left there for a whole hand)."""
        self.lying |= set(self.played) | set(shown)
        self.played.clear()
        self._streak.clear()

    @property
    def readings(self) -> list[Reading]:
        """What the last frame read showed."""
        return self._readings

    def seat_of(self, reading: Reading, width: int, height: int) -> str | None:
        centre = reading.outline.mean(axis=0)
        return next((r.seat for r in self.seats if r.holds(centre, width, height)), None)

    def update(self, frame: np.ndarray) -> list[Play]:
        """Plays that became certain with this frame: a named card seen ``steady_frames`` frames
        in a row in the same seat's region, never reported before in this hand, and read on one card
        only (a name read on two cards is doubtful: ``_named_once``).  A frame that
        shows what the last one read showed is not read again (``stillness``) unless a card is on
        its way to a play."""
        h, w = frame.shape[:2]
        moved = not self.stillness.still(frame)
        if moved or self._streak:  # a play is confirmed on frames read, not on repeats
            self._readings = self.recognizer.read(frame)
        readings = self._readings
        self._pick_up({r.card for r in readings if r.card is not None})
        self.in_sight = {(seat, card) for card, r in _named_once(readings)
                         if (seat := self.seat_of(r, w, h)) is not None}
        now = {(seat, card) for seat, card in self.in_sight
               if card not in self.played and card not in self.lying}
        self._streak = {key: self._streak.get(key, 0) + 1 for key in now}
        plays = []
        for (seat, card), count in sorted(self._streak.items(), key=lambda kv: str(kv[0][1])):
            if count >= self.steady_frames:
                self.played[card] = seat
                plays.append(Play(seat, card))
        for play in plays:
            self._streak.pop((play.seat, play.card), None)
        return plays

    def _pick_up(self, named: set[Card]) -> None:
        """A lying card unseen for ``steady_frames`` frames in a row has left the table."""
        self._away = {card: self._away.get(card, 0) + 1 for card in self.lying - named}
        gone = {card for card, frames in self._away.items() if frames >= self.steady_frames}
        self.lying -= gone
        for card in gone:
            del self._away[card]


def _named_once(readings: Sequence[Reading]) -> list[tuple[Card, Reading]]:
    """The cards named by one reading only, with it (one card cannot lie in two places: of two
    readings naming it, one is wrong, and which one is not known)."""
    named = [(r.card, r) for r in readings if r.card is not None]
    count = Counter(card for card, _ in named)
    return [(card, r) for card, r in named if count[card] == 1]

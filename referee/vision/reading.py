"""One card read in a frame: named or abstained, where it lies, and what named it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.cards import Card, Suit
from referee.vision.geometry import flatten
from referee.vision.pips import PIP_SIZE


@dataclass(frozen=True, eq=False)
class Reading:
    """One card found in a frame.  ``card`` is None when abstaining ("no la veo")."""

    card: Card | None
    confidence: float
    corners: np.ndarray
    guess: Card | None = None
    similarity: float = 0.0
    by_cues: bool = False  # named because the cues (pips, colours, pinta) agree with the guess
    figure_of: Suit | None = None  # abstained, but surely a figure (10-12) of this suit
    edges: np.ndarray | None = None  # the outline snapped onto the card's edges: the cues are
                                     # read there (``snapping.snap_to_edges``)
    second: Card | None = None  # the bank's second best card (``recognize.bank_twice``)
    moved: bool = False  # read on an outline moved onto straight edges
                         # (``second_look.read_again``): named, but not learned from
                         # (``Recognizer._learn``)

    @property
    def outline(self) -> np.ndarray:
        """The card's corners as best known: snapped onto its edges when they were, else the
        finder's outline."""
        return self.corners if self.edges is None else self.edges

    @property
    def named_by(self) -> str | None:
        """What named the card: the bank, at ``confidence``, or its cues (pips, colours, pinta)
        agreeing with the bank's guess below the bar, whatever ``confidence`` the bank gave it."""
        if self.card is None:
            return None
        return "cues" if self.by_cues else "bank"

    def moved_by(self, shift: np.ndarray) -> Reading:
        """The reading with its outlines moved by ``shift`` (x, y pixels)."""
        return replace(self, corners=self.corners + shift,
                       edges=None if self.edges is None else self.edges + shift)

    def as_json(self) -> dict[str, object]:
        return {"card": str(self.card) if self.card else None,
                "figure_of": self.figure_of.nombre if self.figure_of else None,
                "confidence": round(float(self.confidence), 3),
                "named_by": self.named_by,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.outline],
                "guess": str(self.guess) if self.guess else None}


def cue_image(reading: Reading, frame: np.ndarray) -> np.ndarray:
    """The card flattened for its cues, on its snapped outline when there is one."""
    return flatten(frame, reading.outline, PIP_SIZE)

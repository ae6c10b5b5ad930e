"""Read the cards in a frame: find them, flatten them, compare with the bank, abstain when unsure."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.cards import Card
from referee.vision.bank import Bank
from referee.vision.detect import DetectorSettings, find_cards
from referee.vision.features import describe
from referee.vision.geometry import flatten


@dataclass(frozen=True)
class RecognizerSettings:
    """When to answer.  A card is named only if its confidence reaches ``min_confidence``."""

    min_confidence: float = 0.5
    margin_scale: float = 0.05   # best-vs-second similarity gap giving confidence ≈ 0.73
    margin_offset: float = 0.0
    min_similarity: float = 0.55  # below this the best match is too far to trust at all
    not_a_card: float = 0.35      # below this the quad is dropped: not a card


@dataclass(frozen=True, eq=False)
class Reading:
    """One card found in a frame.  ``card`` is None when abstaining ("no la veo")."""

    card: Card | None
    confidence: float
    corners: np.ndarray
    guess: Card | None = None
    similarity: float = 0.0

    def as_json(self) -> dict[str, object]:
        return {"card": str(self.card) if self.card else None,
                "confidence": round(float(self.confidence), 3),
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "guess": str(self.guess) if self.guess else None}


@dataclass
class Recognizer:
    """Frame → readings, with a reference bank."""

    bank: Bank
    settings: RecognizerSettings = field(default_factory=RecognizerSettings)
    detector: DetectorSettings = field(default_factory=DetectorSettings)

    def __post_init__(self) -> None:
        self._cards = self.bank.cards
        index = {card: i for i, card in enumerate(self._cards)}
        self._label_index = np.array([index[c] for c in self.bank.labels])

    def scores(self, card_img: np.ndarray) -> np.ndarray:
        """Best similarity of a flattened card to each bank card (order of ``bank.cards``)."""
        sims = self.bank.vectors @ describe(card_img)
        best = np.full(len(self._cards), -1.0, np.float32)
        np.maximum.at(best, self._label_index, sims)
        return best

    def judge(self, scores: np.ndarray) -> tuple[Card, float, float]:
        """Best card, confidence in [0, 1] and best similarity, from per-card similarities."""
        order = np.argsort(scores)[::-1]
        s1 = float(scores[order[0]])
        s2 = float(scores[order[1]]) if len(order) > 1 else -1.0
        s = self.settings
        margin = 1.0 / (1.0 + np.exp(-(s1 - s2 - s.margin_offset) / s.margin_scale))
        margin = 2.0 * margin - 1.0
        closeness = float(np.clip((s1 - s.min_similarity) / 0.1, 0.0, 1.0))
        return self._cards[order[0]], float(np.clip(margin * closeness, 0.0, 1.0)), s1

    def classify(self, card_img: np.ndarray, corners: np.ndarray) -> Reading:
        guess, confidence, similarity = self.judge(self.scores(card_img))
        card = guess if confidence >= self.settings.min_confidence else None
        return Reading(card, confidence, corners, guess, similarity)

    def read(self, frame: np.ndarray) -> list[Reading]:
        """Every card in the frame, named or abstained, skipping shapes that are not cards."""
        readings = []
        for corners in find_cards(frame, self.detector):
            reading = self.classify(flatten(frame, corners), corners)
            if reading.similarity >= self.settings.not_a_card:
                readings.append(reading)
        return readings

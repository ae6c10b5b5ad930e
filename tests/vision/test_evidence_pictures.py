"""The evidence pictures: each card drawn with its name, in letters OpenCV's font has."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.cards import Card
from referee.vision import draw
from referee.vision.reading import Reading


def test_names_on_the_picture_have_no_letters_the_font_lacks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []
    put_text = draw.cv2.putText

    def spy(image: np.ndarray, text: str, *args: Any) -> Any:
        written.append(text)
        return put_text(image, text, *args)

    monkeypatch.setattr(draw.cv2, "putText", spy)
    corners = np.array([[20, 20], [80, 20], [80, 110], [20, 110]], float)
    by_cues = Reading(Card.parse("10e"), 0.4, corners, by_cues=True)
    draw.annotate(np.zeros((200, 200, 3), np.uint8), [by_cues], "A1 muestra 10e por señas")
    assert written == ["10e por senas", "A1 muestra 10e por senas"]

"""The tablet's chime (``web_scoreboard/static/chime.js``), sounding beside the microphone, is not
heard as a call, a number or a look-alike, and a call said while it sounds is heard all the same:
real recognition with the Spanish model, the chime made from the page's own notes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.phrases import parse
from referee.wav import read_wav

RATE = 16000
CHIME_JS = Path(__file__).resolve().parents[2] / "web_scoreboard" / "static" / "chime.js"


def notes() -> dict[str, list[list[float]]]:
    """The page's notes of each chime: [hertz, seconds], 0 Hz a rest."""
    found = re.search(r"const NOTES = (\{.*?\});", CHIME_JS.read_text(encoding="utf-8"))
    assert found, "chime.js holds its notes as const NOTES = {...};"
    return dict(json.loads(found.group(1)))


def chime(kind: str, level: float) -> np.ndarray:
    """As the page plays it: each note from ``level`` down to a thousandth of it."""
    parts = []
    for hz, seconds in notes()[kind]:
        t = np.arange(int(seconds * RATE)) / RATE
        parts.append(level * 0.001 ** (t / seconds) * np.sin(2 * np.pi * hz * t) if hz else 0 * t)
    return np.concatenate(parts)


def room(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """A quiet room's faint noise (-60 dBFS)."""
    return rng.normal(0, 1e-3, int(seconds * RATE))


@pytest.fixture(scope="module")
def spanish(model: Path) -> SphinxRecognizer:
    return SphinxRecognizer(PhraseList.from_table(), model)


def heard(rec: SphinxRecognizer, sound: np.ndarray) -> list[str]:
    """The calls, numbers and look-alikes heard in ``sound``, fed in 0.1 s chunks."""
    rec.reset()
    pcm = (np.clip(sound, -1, 1) * 32767).astype("<i2").tobytes()
    results = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200])]
    text = " ".join(r.text for r in results + rec.flush() if r.final)
    return [h.key for h in parse(text)]


@pytest.mark.parametrize("level", [0.5, 0.2, 0.05])
def test_the_chime_is_no_call(spanish: SphinxRecognizer, level: float) -> None:
    rng = np.random.default_rng(7)
    for kind in notes():
        sound = np.concatenate([room(1.0, rng), chime(kind, level), room(1.0, rng),
                                chime(kind, level), room(1.0, rng)])
        assert heard(spanish, sound) == [], kind


def test_a_call_said_as_the_chime_sounds_is_heard(spanish: SphinxRecognizer,
                                                  shared_dir: Path) -> None:
    """The answer to a truco, begun while the tablet chimes for the truco, or just after."""
    path = shared_dir / "speech" / "real" / "truco-uruguayo" / "quiero.wav"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    quiero = read_wav(path)[:, 0]
    rng = np.random.default_rng(8)
    said = np.concatenate([room(1.0, rng), quiero, room(1.0, rng)])
    assert heard(spanish, said) == ["quiero"]
    over = chime("anotado", 0.2)
    for lead_s in (-0.1, 0.0, 0.15):  # the chime begins 0.1 s into the word, with it, or ends 0.15 s before it
        start = RATE + int(-lead_s * RATE) - len(over) * (lead_s > 0)
        sound = said.copy()
        sound[start:start + len(over)] += over
        assert heard(spanish, sound) == ["quiero"], lead_s

"""Words the recognizer may have misheard wait for a tap: held to ``DOUBTED_CONF`` by what is
heard around them in the same phrase."""

from __future__ import annotations

import pytest

from referee.asr.base import Result, Word
from referee.misheard import DOUBTED_CONF, doubt_misheard


@pytest.mark.parametrize("loud,doubted", [
    (None, True),                                    # a quiet table: every sound counts
    (((0.1, 0.2), (1.21, 1.8)), False),              # the band rose for the number: the noise before
    (((0.1, 0.2), (1.0, 1.8)), True),                # it rose before the sounds: the number's start
    (((1.3, 1.8),), False),                          # it rose only after the number began
])
def test_at_a_noisy_table_only_the_sounds_since_the_band_rose_count(
        loud: tuple[tuple[float, float], ...] | None, doubted: bool) -> None:
    """A phrase in noise begins with noise heard as no word (0-1.2 s here) before the number."""
    ocho = Word("ocho", 0.95, 1.24, 1.6)
    result = Result("ocho", (ocho,), True, 1.24, 1.6, unheard=((0.0, 1.0), (1.0, 1.24)), loud=loud)
    assert doubt_misheard(result).words[0].conf == (DOUBTED_CONF if doubted else 0.95)


@pytest.mark.parametrize("said,gap,doubted", [
    ("treinta queres", 0.0, [True, False]),        # «treinta y tres» with its end heard as a word
    ("veinte canto", 0.01, [True, False]),         # «veinticinco»
    ("tengo treinta y", 0.0, [False, True, False]),  # «y» and then nothing: a number cut short
    ("treinta son mejores", 0.0, [False] * 3),     # what a number is said with
    ("treinta y tres che", 0.0, [False] * 4),      # the number whole
    ("veinte canto", 0.15, [False, False]),        # a pause between them
    ("veinte", 0.0, [False]),                      # nothing after it
    ("siete queres", 0.0, [False, False]),         # no longer number starts with «siete»
])
def test_a_ten_with_a_word_touching_it_after_waits(said: str, gap: float,
                                                    doubted: list[bool]) -> None:
    words, start = [], 1.0
    for text in said.split():  # each word 0.3 s long, ``gap`` after a ten
        words.append(Word(text, 0.95, start, start + 0.3))
        start += 0.3 + (gap if text in ("treinta", "veinte") else 0.0)
    result = Result(said, tuple(words), True, 1.0, start)
    assert [w.conf == DOUBTED_CONF for w in doubt_misheard(result).words] == doubted


@pytest.mark.parametrize("said,doubted", [
    ("quiero no quiero", [False, True, True]),  # how «¿qué mano, quiero?» is misheard
    ("no quiero quiero", [False, False, True]),
    ("quiero che no quiero", [False] * 4),  # a word between them: each answer on its own
    ("no quiero no quiero", [False] * 4),  # the same answer twice
    ("quiero retruco", [False] * 2),       # an answer and a raise
])
def test_an_answer_right_after_its_opposite_waits_for_a_tap(said: str, doubted: list[bool]) -> None:
    words = tuple(Word(text, 0.95, 1.0 + 0.3 * k, 1.3 + 0.3 * k) for k, text in enumerate(said.split()))
    result = Result(said, words, True, 1.0, words[-1].end)
    assert [w.conf == DOUBTED_CONF for w in doubt_misheard(result).words] == doubted

"""What every recognizer looks like: PCM chunks in, partial and final results out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

SAMPLE_RATE = 16000
JOIN_S = 0.6  # a pause up to this long inside a call does not break it


class RecognizerError(RuntimeError):
    """A recognizer could not start or run; ``code`` is stable, ``message`` is for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Word:
    """One recognized word with its confidence (0..1) and times in seconds from the stream start."""

    text: str
    conf: float
    start: float
    end: float


@dataclass(frozen=True)
class Result:
    """A hypothesis for the current utterance: ``final`` once the speaker stopped."""

    text: str
    words: tuple[Word, ...]
    final: bool
    start: float
    end: float
    stream_time: float = 0.0
    extra: dict[str, float] = field(default_factory=dict, compare=False)
    # Where (start, end) each sound heard as no word of the table lies: a sound of the grammar's
    # garbage path, or ``[unk]``.  A call word right after a long one may be the end of a longer
    # call (``misheard.doubt_misheard``).
    unheard: tuple[tuple[float, float], ...] = ()
    # At a noisy table, where (start, end) the voices' band was above the background during the
    # phrase: a sound heard as no word before the band rose for a word is the table's noise (the
    # noise a phrase begins with), not the start of that word missed.  At a quiet table, None, or
    # after a pre-roll (``SphinxTuning.pre_roll_s``) from where the voice detector heard voice.
    loud: tuple[tuple[float, float], ...] | None = None

    @property
    def confidence(self) -> float:
        """The lowest word confidence (a phrase is as sure as its weakest word); 0 when empty."""
        return min((w.conf for w in self.words), default=0.0)


@runtime_checkable
class Recognizer(Protocol):
    """Streaming speech recognizer over 16 kHz mono int16 PCM."""

    name: str
    low_accuracy: bool
    sample_rate: int

    def feed(self, pcm: bytes) -> list[Result]:
        """Take the next chunk of audio; return any partial or final results it produced."""
        ...

    def flush(self) -> list[Result]:
        """End of stream: finish the current utterance, if any."""
        ...

    def reset(self) -> None:
        """Forget the stream; the next chunk starts at time zero."""
        ...


def expect(recognizer: object, expected: Callable[[], frozenset[str]]) -> None:
    """Tell a recognizer that can listen for what the table expects (Sphinx's ``expecting``)
    where to ask it; the others hear as they always do."""
    if hasattr(recognizer, "expecting"):
        recognizer.expecting = expected

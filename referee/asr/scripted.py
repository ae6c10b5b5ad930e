"""A recognizer that "hears" a script: for tests and demos that need no model.

Each line is (start, end, text, confidence): as the stream clock passes a word's end, the word
shows up in a partial result; 0.3 s after the line ends, the line comes out as a final result.
A token of the garbage path ("_k") is a sound heard as no word: it takes its share of the line's
time and comes out in ``Result.unheard``, not among the words.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.asr.base import SAMPLE_RATE, Result, Word
from referee.asr.grammar import is_unheard, unheard_spans

ENDPOINT_S = 0.3


class ScriptedRecognizer:
    """Plays back scripted transcripts against the stream clock."""

    low_accuracy = False

    def __init__(self, script: Sequence[tuple[float, float, str, float]], name: str = "scripted"):
        self.name = name
        self.sample_rate = SAMPLE_RATE
        self.script = sorted(script)
        self.reset()

    def reset(self) -> None:
        self._samples = 0
        self._done = 0  # lines already finalized

    @property
    def stream_time(self) -> float:
        return self._samples / self.sample_rate

    def _words(self, line: tuple[float, float, str, float]) -> tuple[Word, ...]:
        start, end, text, conf = line
        tokens = text.split()
        step = (end - start) / max(1, len(tokens))
        return tuple(Word(tok, conf, start + i * step, start + (i + 1) * step)
                     for i, tok in enumerate(tokens))

    def _result(self, heard: tuple[Word, ...], final: bool) -> Result | None:
        words = tuple(w for w in heard if not is_unheard(w.text))
        if not words:
            return None
        return Result(" ".join(w.text for w in words), words, final, words[0].start, words[-1].end,
                      stream_time=self.stream_time,
                      unheard=unheard_spans([(w.text, w.start, w.end) for w in heard]))

    def feed(self, pcm: bytes) -> list[Result]:
        self._samples += len(pcm) // 2
        now = self.stream_time
        out: list[Result | None] = []
        while self._done < len(self.script) and self.script[self._done][1] + ENDPOINT_S <= now:
            out.append(self._result(self._words(self.script[self._done]), final=True))
            self._done += 1
        if self._done < len(self.script):
            heard = tuple(w for w in self._words(self.script[self._done]) if w.end <= now)
            out.append(self._result(heard, final=False))
        return [r for r in out if r is not None]

    def flush(self) -> list[Result]:
        out = [self._result(self._words(line), final=True) for line in self.script[self._done:]]
        self._done = len(self.script)
        return [r for r in out if r is not None]

"""Vosk recognizer restricted to the phrase table, the look-alikes and ``[unk]``.

Vosk in grammar mode can return a call with confidence 1.0 for sound that was not a call, and small
models rarely emit ``[unk]``; the look-alikes are therefore in the grammar as explicit decoys, and the
listener treats a call under the confidence threshold as "unsure" rather than applying it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.asr.base import SAMPLE_RATE, RecognizerError, Result, Word
from referee.asr.grammar import PhraseList, is_garbage, unheard_spans, vosk_grammar


def is_vosk_model(path: Path) -> bool:
    """True if ``path`` looks like a Vosk model folder (an acoustic model plus a graph)."""
    return (path / "am" / "final.mdl").is_file() and (path / "conf").is_dir()


class VoskRecognizer:
    """Streaming Kaldi decoding through Vosk, with per-word confidences and times."""

    low_accuracy = False

    def __init__(self, phrases: PhraseList, model_dir: Path, *, name: str = "vosk") -> None:
        try:
            import vosk
        except ImportError as err:  # pragma: no cover - vosk is a hard dependency
            raise RecognizerError("vosk-missing", "falta el paquete vosk") from err
        if not is_vosk_model(model_dir):
            raise RecognizerError(
                "model-missing",
                f"no encuentro un modelo de Vosk en {model_dir}; "
                "bajalo con 'truco-referee models fetch vosk-es'",
            )
        vosk.SetLogLevel(-1)
        try:
            self._model = vosk.Model(str(model_dir))
        except Exception as err:  # vosk raises a bare Exception on a broken model
            raise RecognizerError("model-broken", f"Vosk no pudo cargar {model_dir}: {err}") from err
        self.name = name
        self.sample_rate = SAMPLE_RATE
        self.model_dir = model_dir
        self.grammar = vosk_grammar(phrases)
        self._vosk = vosk
        self._samples = 0
        self._rec = self._make()

    def _make(self) -> Any:
        rec = self._vosk.KaldiRecognizer(self._model, float(self.sample_rate), self.grammar)
        rec.SetWords(True)
        rec.SetPartialWords(True)
        return rec

    @property
    def stream_time(self) -> float:
        return self._samples / self.sample_rate

    def feed(self, pcm: bytes) -> list[Result]:
        """Decode the next chunk; a final result when Vosk saw the end of an utterance."""
        self._samples += len(pcm) // 2
        if self._rec.AcceptWaveform(pcm):
            result = self._parse(self._rec.Result(), final=True)
            return [result] if result.words else []
        partial = self._parse(self._rec.PartialResult(), final=False)
        return [partial] if partial.words else []

    def flush(self) -> list[Result]:
        result = self._parse(self._rec.FinalResult(), final=True)
        return [result] if result.words else []

    def reset(self) -> None:
        self._rec = self._make()
        self._samples = 0

    def _parse(self, payload: str, final: bool) -> Result:
        data = json.loads(payload)
        items = data.get("result") if final else data.get("partial_result")
        segments = [(str(item["word"]), float(item.get("start", 0.0)), float(item.get("end", 0.0)))
                    for item in items or []]
        words = tuple(
            Word(text=text, conf=float(item.get("conf", 1.0)), start=start, end=end)
            for item, (text, start, end) in zip(items or [], segments)
            if not is_garbage(text)
        )
        start = words[0].start if words else self.stream_time
        end = words[-1].end if words else self.stream_time
        return Result(
            text=" ".join(w.text for w in words),
            words=words,
            final=final,
            start=start,
            end=end,
            stream_time=self.stream_time,
            unheard=unheard_spans(segments),
        )

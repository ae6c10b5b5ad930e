"""The words of a Sphinx utterance: its best path's segments placed on the stream's clock, each
word with its confidence (from the lattice once the utterance has ended)."""

from __future__ import annotations

from referee.asr.base import Word
from referee.asr.grammar import is_garbage, untokened
from referee.asr.lattice import lattice_spans, posterior

FRAME_S = 0.01  # Sphinx frame rate: 100 frames per second

Segment = tuple[str, float, float]  # a token of the best path, from and to (stream seconds)


def best_path(decoder: object, utt_start: float, stream_time: float,
              final: bool) -> tuple[list[Word], list[Segment]]:
    """The words of the decoder's best path and every segment it went through (garbage and
    silences too), for an utterance that started at ``utt_start``; ``final``: the utterance has
    ended, and the confidences are read from its whole lattice (``lattice.posterior``)."""
    words: list[Word] = []
    segments: list[Segment] = []
    hyp = decoder.hyp()  # type: ignore[attr-defined]
    if hyp is None:
        return words, segments
    spans = lattice_spans(decoder) if final else None
    for seg in decoder.seg():  # type: ignore[attr-defined]
        text = seg.word.split("(")[0]
        seg_start = utt_start + seg.start_frame * FRAME_S
        seg_end = min(utt_start + (seg.end_frame + 1) * FRAME_S, stream_time)
        if seg_end <= seg_start:
            continue  # in the silence heard after the stream's end
        segments.append((text, seg_start, seg_end))
        if text and not is_garbage(text):
            conf = (posterior(spans, text, seg.start_frame * FRAME_S,
                              (seg.end_frame + 1) * FRAME_S)
                    if spans else _posterior(seg.prob))
            words += [Word(text=word, conf=conf, start=at, end=until)
                      for word, at, until in untokened(text, seg_start, seg_end)]
    return words, segments


def path_ended(decoder: object) -> bool:
    """Whether the utterance's best path reached the grammar's end (not one cut off inside a
    word or a sound); True when nothing was heard."""
    return decoder.hyp() is None or any(  # type: ignore[attr-defined]
        seg.word == "</s>" for seg in decoder.seg())  # type: ignore[attr-defined]


def _posterior(prob: float) -> float:
    """Sphinx's word posterior (from the utterance lattice), clamped to 0..1."""
    return max(0.0, min(1.0, float(prob)))

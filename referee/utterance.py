"""An utterance the listener hands over (``Utterance``), its revision by the whole phrase's final
result (``revise``), and the confidence of a parsed item in it (``item_confidence``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from referee.asr.base import Result, Word
from referee.phrases import normalize, parse


@dataclass(frozen=True)
class Utterance:
    """A stretch of recognized speech, ready to be interpreted."""

    text: str
    words: tuple[Word, ...]
    start: float
    end: float  # seconds into the stream where the last word ended
    emitted_at: float  # stream time when it was handed over
    confidence: float
    team: str | None
    early: bool  # handed over from a partial result
    clip: bytes = b""  # 16 kHz mono int16 around the phrase
    clip_start: float = 0.0
    # which phrase of the stream it belongs to: the early utterances of a phrase and what its end
    # hands over share it (None: heard alone, as in tests and tools that build utterances)
    phrase: int | None = None
    # False in the revision of an early utterance (``revise``) where the whole phrase heard other
    # words there, or read its words in a longer call: not told by the confidences, as the whole
    # phrase may hear the same words with a posterior of 0
    heard_again: bool = True

    @property
    def latency(self) -> float:
        return max(0.0, self.emitted_at - self.end)


def revise(utt: Utterance, final: Result) -> Utterance:
    """An early utterance with the confidences the final result gives its words: for each, the
    final word that says the same over the same time (word boundaries move a little between
    partial and final results); every word 0, and not ``heard_again``, if the final result heard
    other words there, or read those words as part of a longer phrase (``_within_longer``: «no»
    before an early «quiero», «real» before an early «envido»)."""
    found = _same_words(utt, final)
    confs = [final.words[k].conf for k in found] if found is not None else [0.0] * len(utt.words)
    words = tuple(replace(w, conf=c) for w, c in zip(utt.words, confs))
    return replace(utt, words=words, confidence=min((w.conf for w in words), default=0.0),
                   heard_again=found is not None)


def _same_words(utt: Utterance, final: Result) -> list[int] | None:
    """The final words that say the utterance's words over the same time (their indices), or
    None where the final result heard other words there, or read them in a longer phrase.  Not
    told by their confidences: the final result may hear the same word with a posterior of 0."""
    found: list[int] = []
    for word in utt.words:
        same = [k for k, w in enumerate(final.words) if normalize(w.text) == normalize(word.text)
                and min(w.end, word.end) - max(w.start, word.start) > 0.02]
        if not same:
            return None
        found.append(same[0])
    return None if _within_longer(final.words, found) else found


def _within_longer(words: tuple[Word, ...], found: list[int]) -> bool:
    """Whether the phrase the words at ``found`` (indices into ``words``) are read in reaches past
    them: a partial result may miss a word the whole phrase has, and then the early call was not
    what was said (partial results heard «flor», then «quiero», where the whole phrase heard
    «no quiero»)."""
    if not found:
        return False
    owner = [k for k, w in enumerate(words) for _ in normalize(w.text).split()]
    lo, hi = min(found), max(found)
    return any(owner[h.start] < lo or owner[h.end - 1] > hi
               for h in parse(" ".join(w.text for w in words))
               if owner[h.start] <= hi and owner[h.end - 1] >= lo)


def item_confidence(utt: Utterance, start: int, end: int) -> float:
    """Confidence of the words ``start:end`` of an utterance (a parsed item's token span): a word's
    own, or the mean of a phrase's words ("falta envido", "treinta y tres").  Chatter and
    look-alikes turn into one short word, almost never into a run of the right words, so a phrase
    is not held to its weakest word (docs/voice.md).  Falls back to the whole utterance if the
    tokens do not line up with words."""
    tokens = [normalize(w.text) for w in utt.words]
    confs = [w.conf for w in utt.words[start:end]]
    if confs and all(len(t.split()) == 1 for t in tokens) and end <= len(utt.words):
        return sum(confs) / len(confs)
    return utt.confidence

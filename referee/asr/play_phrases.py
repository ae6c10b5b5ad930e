"""What of play is learned from: the heard items accepted surely or confirmed, and their words
cut from their clips, said on their own."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee import clip_codec
from referee.asr.base import SAMPLE_RATE
from referee.doubt import CONFIRMED, confirmed_as_longer

LEARN_CONF = 0.8  # heard at least this surely (and accepted by the game) = taken as said
PAD_S = 0.2  # audio kept either side of the words
QUIET_S = 0.3  # a phrase learned from has this much quiet either side...
QUIET_RATIO = 0.1  # ...below this fraction of the words' loudness (RMS): said on its own
MAX_PHRASES = 600  # the most recent phrases learned from (bounds the time a relearning takes)


@dataclass(frozen=True)
class HeardPhrase:
    """One stored heard item, as learning needs it."""

    at: float  # UNIX time it was heard, for people to read: the clock may have been wrong
    status: str
    reason: str | None
    text: str
    extra: dict[str, Any]
    wav: bytes | None  # its clip, or None where ``samples`` is told how to find it
    clip_id: str | None = None  # where its clip is kept
    heard_id: int = 0  # its row in the store: the order it was heard in (ids only grow)


def learnable(item: HeardPhrase, min_conf: float = LEARN_CONF) -> bool:
    """Accepted by the game and heard surely (every word of its phrase), or confirmed by a
    person; with its words located.  Not an answer the table turned into its opposite with a tap
    (``changed`` ``swap``), nor a call, number or look-alike, however sure, confirmed as the longer
    call it ended («confirmado a mano: era «falta envido»», «… era «me voy al mazo»»): its words
    were misheard."""
    if item.status != "accepted" or "speech" not in item.extra or item.extra.get("changed") == "swap":
        return False
    if confirmed_as_longer(item.reason):
        return False
    sure = item.extra.get("phrase_confidence", item.extra.get("confidence", 0.0))
    return item.reason == CONFIRMED or float(sure) >= min_conf


def cut(item: HeardPhrase, clip: bytes) -> bytes:
    """The words of a heard item, from its ``clip``, with a little audio either side, as 16 kHz
    mono PCM; empty when they were not said on their own."""
    start, end = item.extra["speech"]
    return words_of(clip_samples(clip), float(start), float(end))


def words_of(pcm: bytes, start: float, end: float) -> bytes:
    """The words at ``start..end`` (seconds into ``pcm``) with ``PAD_S`` either side; empty when
    they were not said on their own (``said_alone``)."""
    if not said_alone(pcm, start, end):
        return b""
    a = max(0, int((start - PAD_S) * SAMPLE_RATE)) * 2
    b = max(a, int((end + PAD_S) * SAMPLE_RATE)) * 2
    return pcm[a:b]


def said_alone(pcm: bytes, start: float, end: float) -> bool:
    """True if the words at ``start..end`` (seconds into ``pcm``) were said on their own, with
    quiet either side: not a call heard inside a longer sentence, where chatter mistaken for a
    call would teach the model the wrong sounds."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)

    def rms(a: float, b: float) -> float:
        part = x[max(0, int(a * SAMPLE_RATE)):max(0, int(b * SAMPLE_RATE))]
        return float(np.sqrt(np.mean(part**2))) if len(part) else 0.0

    words = rms(start, end)
    before, after = rms(start - QUIET_S, start - 0.05), rms(end + 0.05, end + QUIET_S)
    return words > 0 and max(before, after) < QUIET_RATIO * words


def samples(items: Iterable[HeardPhrase], min_conf: float = LEARN_CONF,
            clip: Callable[[HeardPhrase], bytes | None] = lambda item: item.wav,
            ) -> list[tuple[bytes, str]]:
    """(pcm, text) of the learnable phrases, each utterance once (one utterance of two calls is
    stored as two items with the same clip), the ``MAX_PHRASES`` heard last (by their rows in
    the store, then their times: a clock set back dates the newest before older ones), oldest
    first.  ``clip`` finds an item's clip (its ``wav`` unless told otherwise): asked newest
    first, and only until those phrases are found, so that a store of many evenings is not read
    whole each time the table is learned."""
    out: dict[tuple[float, str], tuple[bytes, str]] = {}
    found = 0
    for item in sorted(items, key=lambda i: (i.heard_id, i.at), reverse=True):
        key = (float(item.extra.get("t", item.at)), item.text)
        if found == MAX_PHRASES:
            break
        if key in out or not learnable(item, min_conf) or not (wav := clip(item)):
            continue
        out[key] = (cut(item, wav), item.text)
        found += bool(out[key][0])
    return [s for s in reversed(out.values()) if s[0]]


def clip_samples(clip: bytes) -> bytes:
    """A clip's samples (FLAC, or WAV as the calibration's recordings and older clips are), or
    nothing where it is not 16 kHz mono."""
    decoded = clip_codec.decode(clip)
    return decoded[0] if decoded is not None and decoded[1] == SAMPLE_RATE else b""

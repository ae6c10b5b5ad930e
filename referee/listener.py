"""The listening pipeline: audio chunks → recognizer → utterances (text, words, end time, team hint,
clip) handed to a callback.

A call is handed over as soon as it can no longer change: from a partial result, once its words
have held still across two partials, the decoder has moved past its last word, and no longer phrase
of the table could still grow out of it ("truco" goes at once; "vale" waits for "cuatro", "treinta"
for "y tres", "contraflor" for "al resto").  The final result then hands over only what was not
already sent, and revises what was: a partial result carries no real confidence (Sphinx gives its
path score there), so each early utterance is checked against the final one, whose word
posteriors are real, and ``on_revisions`` gets it again with the confidences the final result
gives those same words (all 0 when it heard something else there, and then those other words are
handed over as an utterance of their own).  An early utterance's own ``confidence`` is the
partial's path score: apply it, and let the revision decide whether it stays.  The early
utterances of one phrase are revised together, in the order they were said: a call taken back
must go last to first (each only if nothing came after it), a call refused because of one taken
back is judged again first to last.  Every utterance carries the number of the phrase it came
from (``Utterance.phrase``), so that a call handed over after one the whole phrase takes back,
early or at the end, can wait for it (``doubt.PhraseHeld``).

A player may stop in the middle of a call («vale… cuatro», «me voy… al mazo»), long enough for the
recognizer to end the phrase.  A phrase that ends on the first words of a longer one, words that
are no call nor number of their own («vale», «real», «me voy al», «con flor me»; never «no»,
``NEVER_HELD``), is held back for ``JOIN_S``: if the next phrase starts by then, the two are read
as one; if not, the held words go out on their own.

A call that needs a surer hearing than the table's threshold («flor», ``phrases.SURER``) is
never handed over early: a partial result has no confidence to judge it by, and on the speech
benchmark nearly every «flor» handed over early was taken back by the whole phrase.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from referee.asr.base import JOIN_S, SAMPLE_RATE, Recognizer, Result, Word
from referee.audio import AudioChunk
from referee.misheard import CALLS, doubt_misheard, doubted_words
from referee.phrases import (
    CALL_PHRASES,
    DECOYS,
    NUMBER_WORDS,
    SURER,
    normalize,
    parse,
)
from referee.utterance import Utterance, revise

STABLE_GAP_S = 0.12  # the decoder must be this far past a word before it is trusted
CLIP_S = 2.5
HOLD_S = JOIN_S + 1.0  # held words wait this long for the next word to be recognized
# Never held: «no» ends much table talk («qué mano» is heard «… no»), and joined to a «quiero»
# that follows it, it would make the opposite answer (a held-out voice at 20 dB, «uh, qué mano,
# quiero»).  A short «no» on its own is heard as nothing anyway; Sphinx decodes such a phrase
# again with the next one (``SphinxTuning.join_s``), so «no… quiero» is heard whole there.
NEVER_HELD = frozenset({"no"})
KEEP_S = 12.0


def _prefixes() -> set[tuple[str, ...]]:
    """Every proper prefix of a table phrase: a phrase ending in one of these may still grow."""
    out: set[tuple[str, ...]] = set()
    for phrase in (*CALL_PHRASES, *DECOYS, *NUMBER_WORDS):
        tokens = tuple(normalize(phrase).split())
        for k in range(1, len(tokens)):
            out.add(tokens[:k])
    return out


_PREFIXES = _prefixes()
# The prefixes that are not a call of their own («vale», «real», «me voy al», «con flor me»,
# «contraflor al», «treinta y», «treinta»; not «contraflor», a call already, which would wait too
# long): at the end of a phrase they wait for the rest of the call (``JOIN_S``).  Read alone, «con
# flor me» would be a flor, and «contraflor al» a contraflor.  A number a longer one starts with
# («treinta») waits too: a number is never handed over early anyway, and «treinta… y tres» read
# as 30 would also give the «tres» to the next seat as its declaration.
_HELD_TAILS = frozenset(p for p in _PREFIXES if p[0] not in NEVER_HELD and p not in CALLS)
_LONGEST_TAIL = max(map(len, _HELD_TAILS))


def can_grow(tokens: Iterable[str]) -> bool:
    """True if these words could be the start of a longer phrase ("vale", "treinta", "con flor")."""
    toks = tuple(tokens)
    return any(toks[k:] in _PREFIXES for k in range(len(toks)))


class Listener:
    """Feeds audio to a recognizer and calls ``on_utterance`` for each utterance, early when safe."""

    def __init__(
        self,
        recognizer: Recognizer,
        on_utterance: Callable[[Utterance], None],
        *,
        channel_teams: tuple[str, ...] = ("A", "B"),
        early: bool = True,
        on_revisions: Callable[[list[tuple[Utterance, Utterance]]], None] | None = None,
    ) -> None:
        self.recognizer = recognizer
        self.on_utterance = on_utterance
        self.on_revisions = on_revisions
        self._early_sent: list[Utterance] = []  # handed over early, not yet revised
        self.channel_teams = channel_teams
        self.early = early
        self._audio: deque[AudioChunk] = deque()
        self._t = 0.0
        self._prev_partial: tuple[tuple[str, float], ...] = ()
        self._sent: list[tuple[float, float]] = []  # (start, end) of words already handed over
        self._held: tuple[Word, ...] = ()  # the first words of a call, waiting for the rest
        self._phrase = 0  # the phrase being heard (``Utterance.phrase``)
        self._held_phrase = 0  # the phrase the held words ended

    @property
    def stream_time(self) -> float:
        return self._t

    def feed(self, chunk: AudioChunk) -> None:
        """One chunk of audio in; zero or more utterances out through the callback."""
        self._audio.append(chunk)
        self._t = chunk.t + chunk.duration
        while self._audio and self._audio[0].t + KEEP_S < self._t:
            self._audio.popleft()
        for result in self.recognizer.feed(chunk.pcm):
            self._handle(result)
        if self._held and self._t > self._held[-1].end + HOLD_S:
            self._release()

    def close(self) -> None:
        """End of stream: hand over whatever is still pending."""
        for result in self.recognizer.flush():
            self._handle(result)
        self._release()

    def run(self, source: Iterable[AudioChunk]) -> None:
        for chunk in source:
            self.feed(chunk)
        self.close()

    # -- results -----------------------------------------------------------------------------------
    def _handle(self, result: Result) -> None:
        result = self._join(result)
        doubted = doubted_words(result)
        result = doubt_misheard(result, doubted)
        if result.final:
            self._final(result)
        elif self.early:
            self._partial(result, doubted)

    def _partial(self, result: Result, doubted_at: list[int]) -> None:
        key = tuple((w.text, round(w.start, 2)) for w in result.words)
        stable = _stable_prefix(self._prev_partial, key)
        self._prev_partial = key
        doubted = {result.words[k] for k in doubted_at}  # they wait for the final
        words = [w for w in result.words[:stable] if w.end <= result.stream_time - STABLE_GAP_S]
        words = [w for w in words if not self._already_sent(w)]
        if not words:
            return
        # Hand over the longest run that ends on a finished call and cannot grow any more.
        for cut in range(len(words), 0, -1):
            head = words[:cut]
            tokens = normalize(" ".join(w.text for w in head)).split()
            found = parse(" ".join(tokens))
            if not any(h.kind == "call" and h.end == len(tokens) for h in found):
                continue
            if any(h.kind == "call" and h.label in SURER for h in found):
                continue  # a call that needs a surer hearing waits for a real confidence
            if can_grow(tokens) or doubted.intersection(head):
                continue
            self._emit(head, result.stream_time, early=True)
            return

    def _final(self, result: Result) -> None:
        self._prev_partial = ()
        revisions = [(utt, revise(utt, result)) for utt in self._early_sent]
        for utt, revised in revisions:
            if not revised.heard_again:  # the whole phrase heard other words there: they go out
                spans = {(w.start, w.end) for w in utt.words}
                self._sent = [s for s in self._sent if s not in spans]
        self._early_sent = []
        if revisions and self.on_revisions:
            self.on_revisions(revisions)
        segment: list[Word] = []
        for w in result.words:
            if self._already_sent(w):
                if segment:
                    self._emit(segment, result.stream_time, early=False)
                segment = []
            else:
                segment.append(w)
        held = _dangling(segment)
        if held:
            self._held, segment = tuple(segment[-held:]), segment[:-held]
            self._held_phrase = self._phrase
        if segment:
            self._emit(segment, result.stream_time, early=False)
        self._sent = [s for s in self._sent if s[1] > result.end - 1.0]
        self._phrase += 1

    def _join(self, result: Result) -> Result:
        """The result with the held words in front, if it starts soon enough after them; else the
        held words go out on their own first."""
        if not self._held or not result.words:
            return result
        held = self._held
        if result.words[0].start - held[-1].end > JOIN_S:
            self._release()
            return result
        if result.final:
            self._held = ()
        words = held + result.words
        return replace(result, text=" ".join(w.text for w in words), words=words, start=held[0].start)

    def _release(self) -> None:
        """Hand over the held words as they are («vale» alone is a look-alike, kept as evidence)."""
        held, self._held = self._held, ()
        if held:
            self._emit(list(held), self._t, early=False, phrase=self._held_phrase)

    def _already_sent(self, word: Word) -> bool:
        """The word is one handed over already: most of the shorter of the two lies within the
        other (the whole phrase may hear a word longer than when it went out early, and a short
        word right after one handed over is a word of its own)."""
        return any(_shared(word.start, word.end, s, e) for s, e in self._sent)

    def _emit(self, words: list[Word], now: float, early: bool, phrase: int | None = None) -> None:
        for run in self._by_team(words):
            self._emit_run(run, now, early, phrase)

    def _by_team(self, words: list[Word]) -> list[list[Word]]:
        """The words in runs said by one team each: with a microphone per team, a phrase in which
        both teams spoke («veintisiete» and at once «son buenas» from the other side) goes out as
        one utterance per team, cut only between its calls, numbers and other words, never inside
        one («vale cuatro» stays whole, whatever microphone each word was loudest in)."""
        if len(self.channel_teams) < 2 or len(words) < 2:
            return [words]
        runs: list[list[Word]] = []
        team: str | None = None
        for piece in _pieces(words):
            said_by = self._team(piece[0].start, piece[-1].end)
            if runs and said_by in (team, None):
                runs[-1] += piece
            else:
                runs.append(list(piece))
                team = said_by or team
        return runs

    def _emit_run(self, words: list[Word], now: float, early: bool, phrase: int | None) -> None:
        start, end = words[0].start, words[-1].end
        self._sent += [(w.start, w.end) for w in words]
        clip, clip_start = self._clip(start, end)
        utt = Utterance(
            text=" ".join(w.text for w in words),
            words=tuple(words),
            start=start,
            end=end,
            emitted_at=now,
            confidence=min(w.conf for w in words),
            team=self._team(start, end),
            early=early,
            clip=clip,
            clip_start=clip_start,
            phrase=self._phrase if phrase is None else phrase,
        )
        if early:
            self._early_sent.append(utt)
        self.on_utterance(utt)

    def _clip(self, start: float, end: float) -> tuple[bytes, float]:
        """About 2.5 s of audio around the phrase, from what is still buffered."""
        pad = max(0.3, (CLIP_S - (end - start)) / 2)
        lo, hi = max(0.0, start - pad), min(self._t, end + pad)
        if not self._audio:
            return b"", lo
        base = self._audio[0].t
        pcm = b"".join(c.pcm for c in self._audio)
        a = max(0, int((lo - base) * SAMPLE_RATE)) * 2
        b = max(a, int((hi - base) * SAMPLE_RATE)) * 2
        return pcm[a:b], max(lo, base)

    def _team(self, start: float, end: float) -> str | None:
        """The team whose channel heard the phrase's voice loudest above its own background
        (``AudioChunk.voices``; None with one channel, where no channel heard a voice, or while one
        of two microphones sent nothing: its level is NaN, ``referee.mics``)."""
        chunks = [c for c in self._audio if c.t + c.duration > start and c.t < end
                  and not np.isnan(c.levels).any()]
        if not chunks or len(chunks[0].levels) < 2:
            return None
        energy = np.sum([np.square(c.voices) for c in chunks], axis=0)
        if not energy.any():
            return None
        channel = int(np.argmax(energy))
        return self.channel_teams[channel] if channel < len(self.channel_teams) else None


def _shared(start: float, end: float, lo: float, hi: float) -> bool:
    """Most of the shorter of two stretches of audio lies within the other: the same word."""
    overlap = min(end, hi) - max(start, lo)
    return overlap > 0 and overlap >= min(end - start, hi - lo) / 2


def _pieces(words: list[Word]) -> list[list[Word]]:
    """The words cut wherever no call, number or look-alike of the table goes on across the cut
    (``parse`` of the whole; a word it reads as none of them is a piece of its own)."""
    owner = [i for i, w in enumerate(words) for _ in normalize(w.text).split()]
    joined = [False] * len(words)  # joined[k]: word k belongs with the word before it
    for item in parse(" ".join(normalize(w.text) for w in words)):
        for k in range(owner[item.start] + 1, owner[item.end - 1] + 1):
            joined[k] = True
    pieces: list[list[Word]] = []
    for k, word in enumerate(words):
        if joined[k] and pieces:
            pieces[-1].append(word)
        else:
            pieces.append([word])
    return pieces


def _dangling(words: list[Word]) -> int:
    """How many of the last words wait for the rest of their call (``_HELD_TAILS``)."""
    tokens = tuple(normalize(w.text) for w in words)
    return next((k for k in range(min(len(tokens), _LONGEST_TAIL), 0, -1)
                 if tokens[-k:] in _HELD_TAILS), 0)


def _stable_prefix(prev: tuple[tuple[str, float], ...], cur: tuple[tuple[str, float], ...]) -> int:
    """How many leading words two consecutive partials agree on (same word, about the same start)."""
    n = 0
    for a, b in zip(prev, cur):
        if a[0] != b[0] or abs(a[1] - b[1]) > 0.06:
            break
        n += 1
    return n

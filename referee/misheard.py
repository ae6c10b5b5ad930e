"""Words of a phrase the recognizer may have misheard: each is held to ``DOUBTED_CONF``, so that
it waits for a tap instead of being applied (docs/voice.md, "An answer taken for its opposite",
"A call right after a word heard as one sound", "A number after sounds heard as no word", "A
number cut short").  What a word is misheard with is known from the words and the sounds of no
word around it in the same phrase, never from the game."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from referee.asr.base import Result, Word
from referee.phrases import CALL_PHRASES, NUMBER_TAILS, NUMBER_WORDS, normalize, parse

# «No quiero» is misheard «uno quiero» (docs/voice.md, "An answer taken for its opposite"), and
# «flor quiero» from before its voice (docs/voice.md, "The start of a phrase"); no one answers
# «uno quiero», and the answer with flor is «con flor quiero»: a «quiero» heard right after «uno»
# or «flor», not as the end of a call, is never applied on its own but waits for a tap, at this
# confidence.
DOUBTED_AFTER = {"quiero": frozenset({"uno", "flor"})}
DOUBTED_CONF = 0.3
# «Quiero» and «no quiero» heard one right after the other contradict each other: no one gives
# both answers at once, and it is how a word ending in «no» before a «quiero» is misheard («¿qué
# mano, quiero?» heard «quiero no quiero»).  The second waits for a tap, at ``DOUBTED_CONF``: the
# first, if sure, is the answer the table applies (the second would be refused), and if it is
# doubtful, the second is not applied in its place.
CONTRADICTING = frozenset({("quiero", "no quiero"), ("no quiero", "quiero")})
# An «envido» heard right after one sound of the garbage path that lasts as long as a word
# (``Result.unheard``, at least ``UNHEARD_MIN_S``; a phone lasts well under 0.2 s) may be a «real
# envido» or a «falta envido» with its first word missed: one held-out voice's «falta» was heard as
# one garbage «k» of 0.27-0.51 s before every «envido», and the envido applied is another bet.  It
# waits for a tap like a «quiero» after «uno».  Not «quiero» (the end of «no quiero»): in noise a
# long garbage sound often comes before a real «quiero», and the tuning voices lost one of 13 at
# 10 dB for none kept from its opposite (docs/voice.md, "A call right after a word heard as one
# sound").  «Flor» (of «contra flor») needs a surer hearing already.
DOUBTED_AFTER_SOUND = frozenset({"envido"})
UNHEARD_MIN_S = 0.25
UNHEARD_TOUCH_S = 0.02
# A number heard right after sounds heard as no word that last a syllable or more in all
# (``NUMBER_AFTER_SOUND_S``, each sound touching the next and the last touching the number) may
# be the end of a longer number whose start was missed: «veintiocho» heard «… ocho», «treinta y
# dos» heard «… once».  A wrong number gives the envido to the wrong team, so it waits for a tap
# (docs/voice.md, "A number after sounds heard as no word").
NUMBER_STARTS = frozenset(normalize(w).split()[0] for w in NUMBER_WORDS)
NUMBER_AFTER_SOUND_S = 0.1
# A «veinte» or a «treinta» heard as a number of its own with another word right after it,
# touching it, may be the start of a longer number whose end was heard as other words:
# «treinta y tres» heard «treinta querés», «veintisiete» «veinte quieto dos», «treinta y dos»
# «veinte falta».  It waits for a tap too, unless the words after it are those a number is said
# with («treinta son mejores», ``phrases.NUMBER_TAILS``) (docs/voice.md, "A number cut short").
NUMBER_HEADS = frozenset({"veinte", "treinta"})
# The table's calls as words: a word that ends one of several words is not doubted for the word
# before it («con flor quiero»).
CALLS = frozenset(tuple(normalize(p).split()) for p in CALL_PHRASES)


def doubted_words(result: Result) -> list[int]:
    """Where a word is heard right after the word it is misheard with (``DOUBTED_AFTER``), or in
    an answer right after its opposite (``CONTRADICTING``), or right after a sound as long as
    a word (``DOUBTED_AFTER_SOUND``), or a number right after sounds of the voice as long as a
    syllable (``NUMBER_AFTER_SOUND_S``), or a number that may have been cut short
    (``NUMBER_HEADS``)."""
    words, unheard = result.words, result.unheard
    said = [normalize(w.text) for w in words]
    contradicted = _contradicted(said)
    return [k for k in range(len(said))
            if k in contradicted
            or (k and said[k - 1] in DOUBTED_AFTER.get(said[k], ()) and not _ends_call(said, k))
            or (said[k] in DOUBTED_AFTER_SOUND and _after_unheard(words, k, unheard))
            or (said[k] in NUMBER_STARTS
                and _unheard_before(words, k, _voiced(result, k)) >= NUMBER_AFTER_SOUND_S)
            or _cut_short(words, said, k)]


def _contradicted(said: list[str]) -> set[int]:
    """The words of an answer heard right after the one it contradicts (``CONTRADICTING``)."""
    calls = [h for h in parse(" ".join(said)) if h.kind == "call"]
    return {k for a, b in pairwise(calls)
            if a.end == b.start and (a.label, b.label) in CONTRADICTING
            for k in range(b.start, b.end)}


def _ends_call(said: list[str], k: int) -> bool:
    """Word ``k`` ends a call of more than one word that holds the word before it too («con flor
    quiero»)."""
    return any(len(call) > 1 and tuple(said[max(0, k + 1 - len(call)): k + 1]) == call
               for call in CALLS)


def _cut_short(words: tuple[Word, ...], said: list[str], k: int) -> bool:
    """Word ``k`` is a «veinte» or a «treinta» read as a number on its own, and another word
    touches it after (``NUMBER_HEADS``), not one a number is said with."""
    if said[k] not in NUMBER_HEADS or k + 1 == len(words):
        return False
    touching = words[k + 1].start - words[k].end <= UNHEARD_TOUCH_S
    return (touching and parse(" ".join(said[k:]))[0].end == 1
            and not " ".join(said[k + 1:]).startswith(NUMBER_TAILS))


def _voiced(result: Result, k: int) -> tuple[tuple[float, float], ...]:
    """The unheard sounds that may be the voice of word ``k``: at a noisy table (``Result.loud``),
    only those since the voices' band rose for it (the stretch of the band under way when the
    word began, or the first after it)."""
    if result.loud is None:
        return result.unheard
    start = result.words[k].start
    rise = next((begin for begin, end in result.loud if end > start), start)
    return tuple((max(begin, rise), end) for begin, end in result.unheard if end > rise)


def _after_unheard(words: tuple[Word, ...], k: int,
                   unheard: tuple[tuple[float, float], ...]) -> bool:
    """Word ``k`` starts where an unheard sound as long as a word (after the word before it) ends."""
    start = words[k].start
    since = words[k - 1].end if k else float("-inf")
    return any(end - begin >= UNHEARD_MIN_S and since <= begin and abs(start - end) <= UNHEARD_TOUCH_S
               for begin, end in unheard)


def _unheard_before(words: tuple[Word, ...], k: int,
                    unheard: tuple[tuple[float, float], ...]) -> float:
    """How long the unheard sounds right before word ``k`` last in all (after the word before it),
    each touching the next."""
    since = words[k - 1].end if k else float("-inf")
    edge, total = words[k].start, 0.0
    for begin, end in sorted(unheard, reverse=True):
        if end > edge + UNHEARD_TOUCH_S:  # after the word
            continue
        if end < edge - UNHEARD_TOUCH_S or begin < since - UNHEARD_TOUCH_S:
            break
        edge, total = begin, total + end - begin
    return total


def doubt_misheard(result: Result, doubted: list[int] | None = None) -> Result:
    """The result with each doubted word's confidence held to ``DOUBTED_CONF``: the words at
    ``doubted``, or those ``doubted_words`` finds."""
    doubted = doubted_words(result) if doubted is None else doubted
    if not doubted:
        return result
    words = tuple(replace(w, conf=min(w.conf, DOUBTED_CONF)) if k in doubted else w
                  for k, w in enumerate(result.words))
    return replace(result, words=words)

"""Where a phrase starts and ends at a noisy table, where the voice detector may never hear a
pause: the rules the Sphinx recognizer asks, on its tuning (``SphinxTuning``) and the table's noise
meter (docs/voice.md, "A phrase in steady noise", "The noise between phrases")."""

from __future__ import annotations

from referee.asr.base import JOIN_S, Result
from referee.asr.grammar import PhraseList
from referee.asr.noise import NoiseMeter
from referee.asr.sphinx_decoder import SphinxTuning


def waiting(tuning: SphinxTuning, meter: NoiseMeter, noisy: bool, at: float) -> bool:
    """At a noisy table, no phrase starts at a frame ``at`` unless the voices' band has been
    above the background within ``wordless_after_s`` of it (the noise meter hears ahead of
    the voice detector): the steady noise between the table's phrases is not decoded."""
    gate = tuning.wordless_after_s
    return gate > 0 and noisy and meter.last_loud < at - gate


def nothing_heard(tuning: SphinxTuning, meter: NoiseMeter, noisy: bool, partial: Result,
                  decoded: float) -> bool:
    """At a noisy table, a phrase in which nothing of the table has been heard is over once
    what was decoded is ``wordless_after_s`` past the last moment the voices' band was above
    the background."""
    gate = tuning.wordless_after_s
    return (gate > 0 and not partial.words and noisy
            and decoded - meter.last_loud >= gate)


def catching_up(tuning: SphinxTuning, meter: NoiseMeter, noisy: bool, partial: Result) -> bool:
    """At a noisy table, once the voices' band has been quiet for ``quiet_after_s`` in a phrase
    that has heard a word of the table: the audio the voice detector still holds is to be
    decoded now, and the phrase to go on taking the audio as it is fed, so that its end at
    that pause is heard ``vad_window`` sooner."""
    t = tuning
    return (t.catch_up and bool(partial.words) and noisy
            and t.quiet_after_s > 0 and meter.quiet_s >= t.quiet_after_s)


def heard_out(tuning: SphinxTuning, meter: NoiseMeter, noisy: bool, phrases: PhraseList,
              partial: Result, decoded: float, utt_start: float, fed_time: float) -> float | None:
    """At a noisy table, where the phrase is over although the voice detector hears on (None
    if it is not): after its last word once its best path has heard no word of the table for
    ``end_after_s`` (``JOIN_S`` after words whose rest would change them, «falta», «me voy
    al», «treinta»), or sooner, once the voices' band has been down to the background for
    ``quiet_after_s`` since before what was decoded and the best path has heard as much after
    its last word, or its last word has gone on ``soak_s`` into that pause; ``JOIN_S`` before
    the end of what was decoded once it has heard nothing of the table for
    ``quiet_phrase_s`` (steady noise; a longer phrase costs more and more at every partial
    result)."""
    t = tuning
    if t.end_after_s <= 0 or not noisy:
        return None
    if not partial.words:
        return decoded - JOIN_S if decoded - utt_start >= t.quiet_phrase_s else None
    last = partial.words[-1].end
    quiet = meter.quiet_s
    # a pause that began before what was decoded, which the best path has heard after the last
    # word, or which the last word has gone on into further: its last sound soaks up the noise
    # («buenas» in a hiss)
    paused_at = fed_time - quiet
    if (t.quiet_after_s > 0 and quiet >= t.quiet_after_s and paused_at <= decoded
            and (decoded - last >= t.quiet_after_s
                 or (t.soak_s > 0 and last - paused_at >= t.soak_s))):
        return last
    after = max(t.end_after_s, JOIN_S) if phrases.unfinished(
        [w.text for w in partial.words]) else t.end_after_s
    return last if decoded - last >= after else None

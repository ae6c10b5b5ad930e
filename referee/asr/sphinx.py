"""PocketSphinx recognizer: a JSGF grammar of calls, look-alikes and garbage, over the Spanish model
(cmusphinx-es-5.2) or, with nothing downloaded, the English model inside the pocketsphinx wheel."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from referee.asr.base import JOIN_S, SAMPLE_RATE, Result, Word
from referee.asr.grammar import (
    Grammar,
    PhraseList,
    expectation,
    is_garbage,
    unheard_spans,
    untokened,
)
from referee.asr.lattice import lattice_spans, posterior
from referee.asr.lexicon import english_pronunciations, to_english
from referee.asr.noise import FRAME, NoiseMeter
from referee.asr.sphinx_decoder import (
    ENGLISH_TUNING,
    NEUTRAL,
    SETTLE,
    SphinxTuning,
    add_search,
    check_model,
    grammar,
    make_decoder,
    settle_grammar,
)

FRAME_S = 0.01  # Sphinx frame rate: 100 frames per second
PARTIAL_EVERY_S = 0.06
NOISY_MARGIN = 2.0  # dB, so that a table near the bar does not flip between decoders
RECENT_S = 6.0  # input audio kept for decoding a phrase again with the next one (``join_s``)
# A stream that ends inside a word (some telephone prompts end 40 ms after the voice) leaves the
# search there, off the grammar's end, and a lattice with no link for the word reads a clear
# «treinta» as 0.0 sure.  Such a last phrase is decoded again followed by this much silence, as
# the table going quiet would have let it end (no word ends in it: it is not part of the stream).
END_SILENCE = bytes(2 * int(0.3 * SAMPLE_RATE))
# A pre-roll (``SphinxTuning.pre_roll_s``) is decoded only where the table has a sound of its own,
# its quietest 10 ms above this: in digital silence (a file's, about -96 dBFS) the model heard the
# start of «no quiero» as «flor quiero» (docs/voice.md, "The start of a phrase").
PRE_ROLL_FLOOR_DBFS = -80.0


def _sounds(pcm: bytes) -> bool:
    """Whether every 10 ms of ``pcm`` is louder than digital silence (``PRE_ROLL_FLOOR_DBFS``)."""
    x = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
    n = len(x) // FRAME
    if not n:
        return False
    quietest = np.sqrt(np.mean(x[: n * FRAME].reshape(n, FRAME) ** 2, axis=1)).min()
    return bool(quietest >= 32768 * 10 ** (PRE_ROLL_FLOOR_DBFS / 20))


def english_model_dir() -> Path:
    """The English acoustic model shipped inside the pocketsphinx wheel."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us" / "en-us"


class SphinxRecognizer:
    """Streaming PocketSphinx decoding with voice activity detection cutting utterances; ``means`` is
    a table's voice calibration, the model's means adapted to its voices (see ``referee.asr.adapt``)."""

    def __init__(
        self,
        phrases: PhraseList,
        model_dir: Path | None = None,
        *,
        english: bool = False,
        tuning: SphinxTuning | None = None,
        means: Path | None = None,
    ) -> None:
        import pocketsphinx

        self.tuning = tuning or (ENGLISH_TUNING if english else SphinxTuning())
        self.low_accuracy = english
        self.sample_rate = SAMPLE_RATE
        hmm = check_model(english_model_dir() if english else model_dir)
        self.name = "sphinx-en (baja precisión)" if english else "sphinx-es"
        self.model_dir = hmm
        self.means = means
        self._phrases = phrases
        self._decoders = self._make_decoders(pocketsphinx, means)
        self._decoder = self._decoders[False]
        self._noisy_used = False  # the noisy table's decoder has heard this stream
        self._meter = NoiseMeter(quiet_db=self.tuning.quiet_db)
        self._next: tuple[dict[bool, object], Path | None] | None = None  # decoders with new means, for the next pause
        self._cmn_start: str = self._decoder.get_cmn()  # type: ignore[attr-defined]
        self._ep = pocketsphinx.Endpointer(
            window=self.tuning.vad_window, ratio=self.tuning.vad_ratio, vad_mode=self.tuning.vad_mode
        )
        self._buffer = b""
        self._samples = 0  # samples consumed so far
        self._decoded = 0  # samples of the stream decoded
        self._decoded_to = 0.0  # where the last phrase's audio ended (seconds)
        self._skipped = False  # the noise since then was not decoded (``_waiting``)
        self._region = False  # the voice detector is handing over a stretch of voice
        self._ep_t = 0.0  # where the next frame it hands over starts (seconds)
        self._in_utt = False
        self._utt_start = 0.0
        self._voice_from: float | None = None  # where the phrase's voice starts, after a pre-roll
        self._utt_frames_at_partial = 0
        self._utt_audio: list[bytes] = []
        self._recent = bytearray()  # the last ``RECENT_S`` of input audio, speech or not
        self._recent_from = 0  # the sample where ``_recent`` starts
        self._last_utt: tuple[float, float] | None = None  # (start, end) of a phrase that heard nothing
        self._resume: tuple[float, bytes] | None = None  # (start, audio) after a phrase ended in speech
        self._holding = False  # the phrase that ended in speech is not handed over yet
        # At a noisy table, once a pause is heard, the phrase takes the audio as it is fed instead
        # of the voice detector's handover, which comes ``vad_window`` late (``_catch_up``); what
        # the detector hands over before ``_heard_to`` (a sample of the stream) was decoded then.
        self._ahead = False
        self._heard_to = 0
        # What the table expects now (``Heard.key``s), asked at the start of each phrase: those
        # calls and numbers weigh more in the grammar, the ones it would refuse less.
        self.expecting: Callable[[], frozenset[str]] | None = None
        self._grammars: dict[frozenset[str], tuple[str, Grammar]] = {}

    def _make_decoders(self, ps: object, means: Path | None) -> dict[bool, object]:
        """The decoder for a quiet table (False) and, if wanted, for a noisy one (True)."""
        make = [False, True] if self.tuning.noisy_below > 0 else [False]
        return {noisy: self._make_decoder(ps, means, noisy) for noisy in make}

    def _make_decoder(self, ps: object, means: Path | None, noisy: bool) -> object:
        """A decoder of this recognizer's model and phrases, with these means (a calibration)."""
        return make_decoder(ps, self.model_dir, self._phrases, self.tuning,
                            english=self.low_accuracy, means=means, noisy=noisy)

    # -- streaming -------------------------------------------------------------------------
    def feed(self, pcm: bytes) -> list[Result]:
        """Run voice detection and decoding on the next chunk."""
        out: list[Result] = []
        self._holding = False
        self._meter.feed(np.frombuffer(pcm, dtype=np.int16))
        self._buffer += pcm
        self._recent += pcm
        extra = len(self._recent) // 2 - int(RECENT_S * SAMPLE_RATE)
        if extra > 0:
            del self._recent[: extra * 2]
            self._recent_from += extra
        size = self._ep.frame_bytes
        while len(self._buffer) >= size:
            frame, self._buffer = self._buffer[:size], self._buffer[size:]
            self._samples += size // 2
            out.extend(self._process(frame))
        return out

    def flush(self) -> list[Result]:
        """Close the utterance in progress at the end of the stream; one the end cut off inside
        a word is heard again with silence after it (``END_SILENCE``)."""
        out = self._resume_alone(closing=True)
        if self._in_utt:
            tail = self._buffer or b"\0\0" * 160
            rest = self._ep.end_stream(tail[: self._ep.frame_bytes])
            if self._ahead:  # the detector's last frames were decoded; the buffer was not
                rest = bytes(self._recent[(self._heard_to - self._recent_from) * 2:])
            if rest:
                self._decode(rest)
            out.append(self._finish(closing=True))
        if self._buffer:  # not on the voice detector's clock, which the next stream goes on from
            del self._recent[-len(self._buffer):]
        self._buffer = b""
        return out

    def reset(self) -> None:
        """Drop any utterance in progress and restart the clock."""
        if self._in_utt:
            self._decoder.end_utt()  # type: ignore[attr-defined]
        import pocketsphinx

        t = self.tuning
        self._ep = pocketsphinx.Endpointer(window=t.vad_window, ratio=t.vad_ratio, vad_mode=t.vad_mode)
        self._buffer, self._samples, self._in_utt = b"", 0, False
        self._decoded, self._region, self._ep_t = 0, False, 0.0
        self._decoded_to, self._skipped = 0.0, False
        self._recent, self._recent_from, self._last_utt = bytearray(), 0, None
        self._resume, self._holding = None, False
        self._ahead, self._heard_to = False, 0
        self._meter = NoiseMeter(quiet_db=self.tuning.quiet_db)
        self._take_next()
        self._decoder = self._decoders[False]
        if self._noisy_used:  # it keeps more of the stream that ended than ``start_stream`` drops
            self._decoders[True] = self._make_decoder(pocketsphinx, self.means, noisy=True)
            self._noisy_used = False
        # A new stream starts from the same cepstral mean, not from the last speaker's, nor from
        # the noise the last stream left in Sphinx's own noise removal (on in the English model's
        # quiet decoder too): pocketsphinx 5 keeps it across utterances, and only
        # ``start_stream`` (deprecated there as unnecessary) resets it.  Without it the same
        # file was heard with other confidences after other files (docs/voice.md, "Changes and
        # their figures").
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for decoder in self._decoders.values():
                if decoder.config["remove_noise"]:  # type: ignore[attr-defined]
                    decoder.start_stream()  # type: ignore[attr-defined]
        self._decoder.set_cmn(self._cmn_start)  # type: ignore[attr-defined]

    def settle(self, pcm: bytes) -> None:
        """Let the cepstral mean settle on this audio (the table's voices) without decoding it;
        only between utterances."""
        self._meter.feed(np.frombuffer(pcm, dtype=np.int16), stream=False)
        self._choose()
        dec = self._decoder
        listening = dec.current_search()  # type: ignore[attr-defined]
        _activate(dec, SETTLE, settle_grammar(self.tuning, self.low_accuracy))
        dec.start_utt()  # type: ignore[attr-defined]
        dec.process_raw(pcm, True, False)  # type: ignore[attr-defined]
        dec.end_utt()  # type: ignore[attr-defined]
        dec.activate_search(listening)  # type: ignore[attr-defined]

    def use_means(self, means: Path | None) -> None:
        """Switch to a new calibration (None: the model's own means, none) without stopping the
        stream: the decoder is built here (in any thread) and takes over at the next pause
        between utterances, with the table's cepstral mean carried over."""
        import pocketsphinx

        self._next = (self._make_decoders(pocketsphinx, means), means)

    @property
    def calibrated(self) -> bool:
        """Whether it hears with a calibration, or takes one at the next pause (``use_means``)."""
        return (self._next[1] if self._next is not None else self.means) is not None

    def _take_next(self) -> None:
        taken, self._next = self._next, None
        if taken is None:
            return
        decoders, means = taken
        decoder = decoders[self._decoder is self._decoders.get(True)]
        decoder.set_cmn(self._decoder.get_cmn())  # type: ignore[attr-defined]
        self._decoders, self._decoder, self.means = decoders, decoder, means
        self._noisy_used = decoder is decoders.get(True)

    @property
    def noisy(self) -> bool:
        """True while the table is loud enough for the noisy table's decoder (once noisy, the
        table must be ``NOISY_MARGIN`` dB quieter than the bar to be quiet again)."""
        snr = self._meter.snr_db
        if True not in self._decoders or snr is None:
            return False
        now = self._decoder is self._decoders[True]
        return snr < self.tuning.noisy_below + (NOISY_MARGIN if now else 0.0)

    def _choose(self) -> None:
        """Between utterances: the decoder for the table as it sounds now, with the cepstral mean
        carried over."""
        decoder = self._decoders[self.noisy]
        if decoder is not self._decoder:
            decoder.set_cmn(self._decoder.get_cmn())  # type: ignore[attr-defined]
            self._decoder = decoder
            self._noisy_used |= decoder is self._decoders.get(True)

    def _listen_for(self, expected: frozenset[str]) -> None:
        """Between utterances: the grammar that weighs what the table expects (``NEUTRAL`` when
        it expects nothing), added to the decoder the first time it is wanted there."""
        dec = self._decoder
        if not expected:
            dec.activate_search(NEUTRAL)  # type: ignore[attr-defined]
            return
        if expected not in self._grammars:
            t = self.tuning
            favour = expectation(self._phrases, expected, t.expected_weight, t.unexpected_weight)
            self._grammars[expected] = (f"expect{len(self._grammars)}",
                                        grammar(self._phrases, t, self.low_accuracy, favour))
        _activate(dec, *self._grammars[expected])

    @property
    def noise_levels(self) -> list[float]:
        """What the noise meter remembers of the table, to carry over to a new stream."""
        return self._meter.levels

    @noise_levels.setter
    def noise_levels(self, levels: list[float]) -> None:
        self._meter.levels = levels
        self._choose()

    @property
    def cepstral_mean(self) -> str:
        """The decoder's current cepstral mean (comma-separated), to carry over or restore."""
        return str(self._decoder.get_cmn())  # type: ignore[attr-defined]

    @cepstral_mean.setter
    def cepstral_mean(self, mean: str) -> None:
        self._decoder.set_cmn(mean)  # type: ignore[attr-defined]

    @property
    def stream_time(self) -> float:
        return self._samples / self.sample_rate

    @property
    def decoded_time(self) -> float:
        """How much of the stream's audio has been decoded (seconds; audio heard again with the
        next phrase counts again)."""
        return self._decoded / self.sample_rate

    @property
    def fed_time(self) -> float:
        """How much audio has been fed (seconds), some of it not yet through the voice detector."""
        return (self._samples + len(self._buffer) // 2) / self.sample_rate

    def _process(self, frame: bytes) -> list[Result]:
        speech = self._ep.process(frame)
        if speech is None:
            self._region = False
            return self._resume_alone()
        at = self._frame_time()
        speech, at = self._unheard(speech, at)
        if self._in_utt and self._ahead:  # the phrase takes the frame just fed instead
            self._decode_ahead()
            return [self._finish()] if not self._ep.in_speech else self._partial()
        if not speech:  # decoded already, with the phrase before
            return []
        if not self._in_utt:
            if self._resume is not None and self._holding:
                # The phrase that ended in speech reaches the table when this chunk is done; the
                # next one starts after it, with what the table then expects.
                start, audio = self._resume
                self._resume = (start, audio + speech)
                return [] if self._ep.in_speech else self._resume_alone()
            if self._resume is None and self._waiting(at):
                self._skipped = True
                return []
            self._start_phrase(at)
        self._decode(speech)
        if not self._ep.in_speech:
            return [self._finish()]
        return self._partial()

    def _partial(self) -> list[Result]:
        """Every ``PARTIAL_EVERY_S`` of the phrase decoded: its partial result, or its end."""
        frames = self._decoder.n_frames()  # type: ignore[attr-defined]
        if (frames - self._utt_frames_at_partial) * FRAME_S < PARTIAL_EVERY_S:
            return []
        self._utt_frames_at_partial = frames
        partial = self._result(final=False)
        decoded = self._utt_start + frames * FRAME_S
        if self._nothing_heard(partial, decoded):
            return [self._end_unheard(decoded)]
        if self._catch_up(partial):
            partial = self._result(final=False)
            decoded = self._utt_start + self._decoder.n_frames() * FRAME_S  # type: ignore[attr-defined]
        cut = self._heard_out(partial, decoded)
        if cut is not None:
            return [self._end_in_speech(cut)]
        return [partial] if partial.words else []

    def _catch_up(self, partial: Result) -> bool:
        """At a noisy table, once the voices' band has been quiet for ``quiet_after_s`` in a phrase
        that has heard a word of the table: the audio the voice detector still holds is decoded
        now, and the phrase goes on taking the audio as it is fed (``_ahead``), so that its end at
        that pause is heard ``vad_window`` sooner."""
        t = self.tuning
        if (self._ahead or not t.catch_up or not partial.words or not self.noisy
                or t.quiet_after_s <= 0 or self._meter.quiet_s < t.quiet_after_s):
            return False
        self._ahead = True
        self._heard_to = max(self._heard_to, self._decoded_end())
        self._decode_ahead()
        return True

    def _decoded_end(self) -> int:
        """The sample of the stream where the phrase's decoded audio ends."""
        return round(self._utt_start * SAMPLE_RATE) + sum(map(len, self._utt_audio)) // 2

    def _decode_ahead(self) -> None:
        """Decode the audio fed since ``_heard_to``, ahead of the voice detector."""
        a = self._heard_to - self._recent_from
        b = self._samples - self._recent_from
        if 0 <= a < b:
            self._decode(bytes(self._recent[a * 2: b * 2]))
            self._heard_to = self._samples

    def _unheard(self, speech: bytes, at: float) -> tuple[bytes, float]:
        """What of a frame the voice detector hands over (starting at ``at``) was not decoded
        already, ahead of it, and where that starts."""
        first = round(at * SAMPLE_RATE)
        if first >= self._heard_to:
            return speech, at
        skip = min(len(speech) // 2, self._heard_to - first)
        return speech[skip * 2:], (first + skip) / SAMPLE_RATE

    def _frame_time(self) -> float:
        """Where the frame the voice detector has just handed over starts in the stream."""
        if not self._region:
            self._region, self._ep_t = True, self._ep.speech_start
        at, self._ep_t = self._ep_t, self._ep_t + self._ep.frame_length
        if not self._ep.in_speech:  # the last frame of its stretch of voice
            self._region = False
        return at

    def _waiting(self, at: float) -> bool:
        """At a noisy table, no phrase starts at a frame ``at`` unless the voices' band has been
        above the background within ``wordless_after_s`` of it (the noise meter hears ahead of
        the voice detector): the steady noise between the table's phrases is not decoded."""
        gate = self.tuning.wordless_after_s
        return gate > 0 and self.noisy and self._meter.last_loud < at - gate

    def _decode(self, audio: bytes) -> None:
        self._utt_audio.append(audio)
        self._decoded += len(audio) // 2
        self._decoder.process_raw(audio, False, False)  # type: ignore[attr-defined]

    def _noise_lead(self) -> None:
        """A phrase that starts after noise that was not decoded begins with up to
        ``noise_lead_s`` of that noise, heard first as a phrase that heard nothing is
        (``_lead_in``): Sphinx's noise removal learns the noise anew at the start of each
        utterance, from its first frames."""
        skipped, self._skipped = self._skipped, False
        last, at = self._last_utt, self._utt_start
        if not skipped or (last is not None and at - last[1] <= self.tuning.join_s):
            return
        lead_from = max(at - self.tuning.noise_lead_s, self._decoded_to)
        if lead_from < at:
            self._last_utt = (lead_from, at)

    def _start_phrase(self, at: float | None = None) -> None:
        self._take_next()  # a new calibration, if one is waiting
        self._choose()  # the decoder for the table as it sounds now
        self._listen_for(self.expecting() if self.expecting else frozenset())
        self._utt_start = self._ep.speech_start if at is None else at
        self._voice_from = None
        self._decoder.start_utt()  # type: ignore[attr-defined]
        self._in_utt = True
        self._utt_frames_at_partial = 0
        self._utt_audio = []
        self._noise_lead()
        self._lead_in()

    def _resume_alone(self, closing: bool = False) -> list[Result]:
        """The audio left after a phrase that ended in speech, when the voice stops before
        another phrase starts (or the stream ends, ``closing``): heard as a phrase of its own."""
        if self._resume is None or not self._resume[1]:
            self._resume = None
            return []
        self._start_phrase()
        return [self._finish(closing)]

    def _heard_out(self, partial: Result, decoded: float) -> float | None:
        """At a noisy table, where the phrase is over although the voice detector hears on (None
        if it is not): after its last word once its best path has heard no word of the table for
        ``end_after_s`` (``JOIN_S`` after words whose rest would change them, «falta», «me voy
        al», «treinta»), or sooner, once the voices' band has been down to the background for
        ``quiet_after_s`` since before what was decoded and the best path has heard as much after
        its last word, or its last word has gone on ``soak_s`` into that pause; ``JOIN_S`` before
        the end of what was decoded once it has heard nothing of the table for
        ``quiet_phrase_s`` (steady noise; a longer phrase costs more and more at every partial
        result)."""
        t = self.tuning
        if t.end_after_s <= 0 or not self.noisy:
            return None
        if not partial.words:
            return decoded - JOIN_S if decoded - self._utt_start >= t.quiet_phrase_s else None
        last = partial.words[-1].end
        quiet = self._meter.quiet_s
        # a pause that began before what was decoded, which the best path has heard after the last
        # word, or which the last word has gone on into further: its last sound soaks up the noise
        # («buenas» in a hiss)
        paused_at = self.fed_time - quiet
        if (t.quiet_after_s > 0 and quiet >= t.quiet_after_s and paused_at <= decoded
                and (decoded - last >= t.quiet_after_s
                     or (t.soak_s > 0 and last - paused_at >= t.soak_s))):
            return last
        after = max(t.end_after_s, JOIN_S) if self._phrases.unfinished(
            [w.text for w in partial.words]) else t.end_after_s
        return last if decoded - last >= after else None

    def _nothing_heard(self, partial: Result, decoded: float) -> bool:
        """At a noisy table, a phrase in which nothing of the table has been heard is over once
        what was decoded is ``wordless_after_s`` past the last moment the voices' band was above
        the background."""
        gate = self.tuning.wordless_after_s
        return (gate > 0 and not partial.words and self.noisy
                and decoded - self._meter.last_loud >= gate)

    def _end_unheard(self, decoded: float) -> Result:
        """End a phrase in the noise after the voices' band went quiet: the noise that follows is
        not decoded until the band rises again (``_waiting``); if nothing was heard, what went
        before the band went quiet is heard again with a phrase that starts soon after
        (``_lead_in``), as a short «no» is."""
        result = self._finish()
        if not result.words:
            self._last_utt = (max(self._utt_start, self._meter.last_loud - JOIN_S), decoded)
        return result

    def _end_in_speech(self, cut: float) -> Result:
        """End the phrase while the voice detector still hears voice; the audio after ``cut`` (its
        last word) is heard again as the start of the next phrase (``_resume``), so a word that
        had only begun is not lost, and no word is given twice."""
        result = self._finish()
        cut = max(result.words[-1].end if result.words else 0.0, cut)
        audio = b"".join(self._utt_audio)
        start = max(0, int(cut * SAMPLE_RATE) - int(self._utt_start * SAMPLE_RATE))
        self._resume, self._last_utt, self._holding = (cut, audio[start * 2:]), None, True
        return result

    def _lead_in(self) -> None:
        """At the start of a phrase: the audio after the last word of a phrase that ended in
        speech; or, if the last one heard nothing and ended less than ``join_s`` ago, its audio
        (and the pause), decoded first so that the two are heard as one; or else up to
        ``pre_roll_s`` of the quiet before its voice, where the table has a sound of its own
        (``_sounds``)."""
        if self._resume is not None:
            (self._utt_start, lead), self._resume = self._resume, None
            if lead:
                self._decode(lead)
            return
        last, now = self._last_utt, self._utt_start
        joined = last is not None and 0 < self.tuning.join_s and now - last[1] <= self.tuning.join_s
        start = last[0] if last is not None and joined else max(now - self.tuning.pre_roll_s,
                                                                 self._decoded_to)
        a = int(start * SAMPLE_RATE) - self._recent_from
        b = int(now * SAMPLE_RATE) - self._recent_from
        if a < 0 or b <= a:
            return
        lead = bytes(self._recent[a * 2: b * 2])
        if not joined and not _sounds(lead):
            return
        self._utt_start = start
        self._voice_from = None if joined else now
        self._decode(lead)

    def _finish(self, closing: bool = False) -> Result:
        """End the phrase (``closing``: the stream has ended)."""
        dec = self._decoder
        mean = dec.get_cmn() if closing else ""  # type: ignore[attr-defined]
        dec.end_utt()  # type: ignore[attr-defined]
        self._in_utt, self._ahead = False, False
        self._decoded_to = self._decoded_end() / SAMPLE_RATE
        if closing and not self._path_ended():
            # the stream ended inside a word or a sound: heard again, with the table quiet after it
            dec.set_cmn(mean)  # type: ignore[attr-defined]
            dec.start_utt()  # type: ignore[attr-defined]
            for audio in (*self._utt_audio, END_SILENCE):
                dec.process_raw(audio, False, False)  # type: ignore[attr-defined]
            dec.end_utt()  # type: ignore[attr-defined]
        elif self.tuning.final_pass:
            dec.start_utt()  # type: ignore[attr-defined]
            dec.process_raw(b"".join(self._utt_audio), False, True)  # type: ignore[attr-defined]
            dec.end_utt()  # type: ignore[attr-defined]
        result = self._result(final=True)
        self._last_utt = None if result.words else (self._utt_start, self._ep.speech_end)
        return result

    def _voiced(self) -> tuple[tuple[float, float], ...] | None:
        """At a quiet table, after a pre-roll (``SphinxTuning.pre_roll_s``): from where the voice
        detector heard the voice start (``Result.loud``); the sounds heard as no word in the
        pre-roll are the table's quiet, not the start of a word missed."""
        return None if self._voice_from is None else ((self._voice_from, self.stream_time),)

    def _path_ended(self) -> bool:
        """Whether the utterance's best path reached the grammar's end (not one cut off inside a
        word or a sound); True when nothing was heard."""
        dec = self._decoder
        return dec.hyp() is None or any(  # type: ignore[attr-defined]
            seg.word == "</s>" for seg in dec.seg())  # type: ignore[attr-defined]

    def _result(self, final: bool) -> Result:
        dec = self._decoder
        words: list[Word] = []
        segments: list[tuple[str, float, float]] = []
        hyp = dec.hyp()  # type: ignore[attr-defined]
        if hyp is not None:
            spans = lattice_spans(dec) if final else None
            for seg in dec.seg():  # type: ignore[attr-defined]
                text = seg.word.split("(")[0]
                seg_start = self._utt_start + seg.start_frame * FRAME_S
                seg_end = min(self._utt_start + (seg.end_frame + 1) * FRAME_S, self.stream_time)
                if seg_end <= seg_start:
                    continue  # in the silence heard after the stream's end
                segments.append((text, seg_start, seg_end))
                if text and not is_garbage(text):
                    conf = (posterior(spans, text, seg.start_frame * FRAME_S,
                                      (seg.end_frame + 1) * FRAME_S)
                            if spans else _posterior(seg.prob))
                    words += [Word(text=word, conf=conf, start=at, end=until)
                              for word, at, until in untokened(text, seg_start, seg_end)]
        start = words[0].start if words else self._utt_start
        end = words[-1].end if words else self.stream_time
        return Result(
            text=" ".join(w.text for w in words),
            words=tuple(words),
            final=final,
            start=start,
            end=end,
            stream_time=self.stream_time,
            unheard=unheard_spans(segments),
            loud=self._meter.loud_since(self._utt_start) if self.noisy else self._voiced(),
        )


def _activate(decoder: object, name: str, fsg: Grammar) -> None:
    """Make ``name`` the decoder's search, adding it (``fsg``) the first time it is wanted there."""
    try:
        decoder.activate_search(name)  # type: ignore[attr-defined]
    except KeyError:  # not added to this decoder yet
        add_search(decoder, name, fsg)
        decoder.activate_search(name)  # type: ignore[attr-defined]


def _posterior(prob: float) -> float:
    """Sphinx's word posterior (from the utterance lattice), clamped to 0..1."""
    return max(0.0, min(1.0, float(prob)))


__all__ = [
    "SphinxRecognizer",
    "english_model_dir",
    "english_pronunciations",
    "to_english",
]

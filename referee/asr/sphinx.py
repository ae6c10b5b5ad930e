"""PocketSphinx recognizer: a JSGF grammar of calls, look-alikes and garbage, over the Spanish model
(cmusphinx-es-5.2) or, with nothing downloaded, the English model inside the pocketsphinx wheel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from referee.asr import phrase_end
from referee.asr.base import JOIN_S, SAMPLE_RATE, Result
from referee.asr.grammar import PhraseList, unheard_spans
from referee.asr.noise import NoiseMeter
from referee.asr.recent_audio import RecentAudio, has_sound
from referee.asr.sphinx_decoder import ENGLISH_TUNING, SphinxTuning, check_model, english_model_dir
from referee.asr.sphinx_words import FRAME_S, best_path, path_ended
from referee.asr.table_decoders import SphinxDecoders

PARTIAL_EVERY_S = 0.06
# A stream that ends inside a word (some telephone prompts end 40 ms after the voice) leaves the
# search there, off the grammar's end, and a lattice with no link for the word reads a clear
# «treinta» as 0.0 sure.  Such a last phrase is decoded again followed by this much silence, as
# the table going quiet would have let it end (no word ends in it: it is not part of the stream).
END_SILENCE = bytes(2 * int(0.3 * SAMPLE_RATE))


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
        self._phrases = phrases
        self._decoders = SphinxDecoders(hmm, phrases, self.tuning, english=english, means=means)
        self._meter = NoiseMeter(quiet_db=self.tuning.quiet_db)
        self._ep = pocketsphinx.Endpointer(
            window=self.tuning.vad_window, ratio=self.tuning.vad_ratio, vad_mode=self.tuning.vad_mode
        )
        self._buffer = b""
        self._samples = 0  # samples consumed so far
        self._decoded = 0  # samples of the stream decoded
        self._decoded_to = 0.0  # where the last phrase's audio ended (seconds)
        self._skipped = False  # the noise since then was not decoded (``phrase_end.waiting``)
        self._region = False  # the voice detector is handing over a stretch of voice
        self._ep_t = 0.0  # where the next frame it hands over starts (seconds)
        self._in_utt = False
        self._utt_start = 0.0
        self._voice_from: float | None = None  # where the phrase's voice starts, after a pre-roll
        self._utt_frames_at_partial = 0
        self._utt_audio: list[bytes] = []
        self._recent = RecentAudio()  # the last seconds of input audio, speech or not
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

    @property
    def _decoder(self) -> object:
        """The decoder hearing the stream now (``SphinxDecoders.current``)."""
        return self._decoders.current

    @property
    def means(self) -> Path | None:
        """The calibration it hears with (None: the model's own means)."""
        return self._decoders.means

    # -- streaming -------------------------------------------------------------------------
    def feed(self, pcm: bytes) -> list[Result]:
        """Run voice detection and decoding on the next chunk."""
        out: list[Result] = []
        self._holding = False
        self._meter.feed(np.frombuffer(pcm, dtype=np.int16))
        self._buffer += pcm
        self._recent.add(pcm)
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
                rest = self._recent.since(self._heard_to)
            if rest:
                self._decode(rest)
            out.append(self._finish(closing=True))
        if self._buffer:  # not on the voice detector's clock, which the next stream goes on from
            self._recent.drop_last(len(self._buffer))
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
        self._recent, self._last_utt = RecentAudio(), None
        self._resume, self._holding = None, False
        self._ahead, self._heard_to = False, 0
        self._meter = NoiseMeter(quiet_db=self.tuning.quiet_db)
        self._decoders.restart()  # the same cepstral mean and noise estimate for every stream

    def settle(self, pcm: bytes) -> None:
        """Let the cepstral mean settle on this audio (the table's voices) without decoding it;
        only between utterances."""
        self._meter.feed(np.frombuffer(pcm, dtype=np.int16), stream=False)
        self._choose()
        self._decoders.settle(pcm)

    def use_means(self, means: Path | None) -> None:
        """Switch to a new calibration (None: the model's own means, none) without stopping the
        stream: the decoder is built here (in any thread) and takes over at the next pause
        between utterances, with the table's cepstral mean carried over."""
        self._decoders.use_means(means)

    @property
    def calibrated(self) -> bool:
        """Whether it hears with a calibration, or takes one at the next pause (``use_means``)."""
        return self._decoders.calibrated

    @property
    def noisy(self) -> bool:
        """True while the table is loud enough for the noisy table's decoder (once noisy, it must
        be quieter by a margin to be quiet again: ``SphinxDecoders.wants_noisy``)."""
        return self._decoders.wants_noisy(self._meter.snr_db)

    def _choose(self) -> None:
        """Between utterances: the decoder for the table as it sounds now, with the cepstral mean
        carried over."""
        self._decoders.choose(self.noisy)

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
            if self._resume is None and phrase_end.waiting(self.tuning, self._meter, self.noisy, at):
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
        if phrase_end.nothing_heard(self.tuning, self._meter, self.noisy, partial, decoded):
            return [self._end_unheard(decoded)]
        if self._catch_up(partial):
            partial = self._result(final=False)
            decoded = self._utt_start + self._decoder.n_frames() * FRAME_S  # type: ignore[attr-defined]
        cut = phrase_end.heard_out(self.tuning, self._meter, self.noisy, self._phrases, partial,
                                   decoded, self._utt_start, self.fed_time)
        if cut is not None:
            return [self._end_in_speech(cut)]
        return [partial] if partial.words else []

    def _catch_up(self, partial: Result) -> bool:
        """At a noisy table, once the voices' band has been quiet for a while in a phrase that has
        heard a word of the table (``phrase_end.catching_up``): the audio the voice detector still
        holds is decoded now, and the phrase goes on taking the audio as it is fed (``_ahead``)."""
        if self._ahead or not phrase_end.catching_up(self.tuning, self._meter, self.noisy, partial):
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
        audio = self._recent.between(self._heard_to, self._samples)
        if audio is not None:
            self._decode(audio)
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
        self._decoders.take_next()  # a new calibration, if one is waiting
        self._choose()  # the decoder for the table as it sounds now
        self._decoders.listen_for(self.expecting() if self.expecting else frozenset())
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

    def _end_unheard(self, decoded: float) -> Result:
        """End a phrase in the noise after the voices' band went quiet: the noise that follows is
        not decoded until the band rises again (``phrase_end.waiting``); if nothing was heard,
        what went before the band went quiet is heard again with a phrase that starts soon after
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
        (``recent_audio.has_sound``)."""
        if self._resume is not None:
            (self._utt_start, lead), self._resume = self._resume, None
            if lead:
                self._decode(lead)
            return
        last, now = self._last_utt, self._utt_start
        joined = last is not None and 0 < self.tuning.join_s and now - last[1] <= self.tuning.join_s
        start = last[0] if last is not None and joined else max(now - self.tuning.pre_roll_s,
                                                                 self._decoded_to)
        before = self._recent.between(int(start * SAMPLE_RATE), int(now * SAMPLE_RATE))
        if before is None or (not joined and not has_sound(before)):
            return
        self._utt_start = start
        self._voice_from = None if joined else now
        self._decode(before)

    def _finish(self, closing: bool = False) -> Result:
        """End the phrase (``closing``: the stream has ended)."""
        dec = self._decoder
        mean = dec.get_cmn() if closing else ""  # type: ignore[attr-defined]
        dec.end_utt()  # type: ignore[attr-defined]
        self._in_utt, self._ahead = False, False
        self._decoded_to = self._decoded_end() / SAMPLE_RATE
        if closing and not path_ended(dec):
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

    def _result(self, final: bool) -> Result:
        words, segments = best_path(self._decoder, self._utt_start, self.stream_time, final)
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


"""The decoders a Sphinx recognizer switches between at the pauses of a stream: the quiet table's
and the noisy table's, a new calibration's waiting for the next pause, and the grammars that weigh
what the table expects, each added to a decoder the first time it is wanted there."""

from __future__ import annotations

import warnings
from pathlib import Path

from referee.asr.grammar import Grammar, PhraseList, expectation
from referee.asr.sphinx_decoder import (
    NEUTRAL,
    SETTLE,
    SphinxTuning,
    activate,
    grammar,
    make_decoder,
    settle_grammar,
)

NOISY_MARGIN = 2.0  # dB, so that a table near the bar does not flip between decoders


class SphinxDecoders:
    """A model's decoders for a phrase table: ``current`` hears the stream; the quiet table's
    (``False``) and, if the tuning wants one (``noisy_below``), the noisy table's (``True``)."""

    def __init__(self, model_dir: Path, phrases: PhraseList, tuning: SphinxTuning, *,
                 english: bool, means: Path | None) -> None:
        self.model_dir = model_dir
        self.phrases = phrases
        self.tuning = tuning
        self.english = english
        self.means = means
        self._all = self._make_all(means)
        self.current = self._all[False]
        self._noisy_used = False  # the noisy table's decoder has heard this stream
        # decoders with new means, for the next pause
        self._next: tuple[dict[bool, object], Path | None] | None = None
        self._cmn_start: str = self.current.get_cmn()  # type: ignore[attr-defined]
        self._grammars: dict[frozenset[str], tuple[str, Grammar]] = {}

    def _make_all(self, means: Path | None) -> dict[bool, object]:
        """The decoder for a quiet table (False) and, if wanted, for a noisy one (True)."""
        make = [False, True] if self.tuning.noisy_below > 0 else [False]
        return {noisy: self._make(means, noisy) for noisy in make}

    def _make(self, means: Path | None, noisy: bool) -> object:
        """A decoder of this model and phrases, with these means (a calibration)."""
        import pocketsphinx

        return make_decoder(pocketsphinx, self.model_dir, self.phrases, self.tuning,
                            english=self.english, means=means, noisy=noisy)

    @property
    def has_noisy(self) -> bool:
        """Whether there is a noisy table's decoder to switch to."""
        return True in self._all

    @property
    def noisy_now(self) -> bool:
        """Whether the noisy table's decoder is the one hearing the stream."""
        return self.current is self._all.get(True)

    def wants_noisy(self, snr_db: float | None) -> bool:
        """Whether a table with this spread between voices and background (None: not measured
        yet) is for the noisy table's decoder; once it is, the table must be ``NOISY_MARGIN`` dB
        quieter than the bar (``noisy_below``) to be quiet again."""
        if not self.has_noisy or snr_db is None:
            return False
        return snr_db < self.tuning.noisy_below + (NOISY_MARGIN if self.noisy_now else 0.0)

    def use_means(self, means: Path | None) -> None:
        """Build decoders with a new calibration (in any thread), to take over at the next pause
        (``take_next``)."""
        self._next = (self._make_all(means), means)

    @property
    def calibrated(self) -> bool:
        """Whether they hear with a calibration, or take one at the next pause (``use_means``)."""
        return (self._next[1] if self._next is not None else self.means) is not None

    def take_next(self) -> None:
        """Between utterances: the decoders of a new calibration, if one is waiting, with the
        cepstral mean carried over."""
        taken, self._next = self._next, None
        if taken is None:
            return
        decoders, means = taken
        decoder = decoders[self.noisy_now]
        decoder.set_cmn(self.current.get_cmn())  # type: ignore[attr-defined]
        self._all, self.current, self.means = decoders, decoder, means
        self._noisy_used = decoder is decoders.get(True)

    def choose(self, noisy: bool) -> None:
        """Between utterances: the decoder for a quiet or a ``noisy`` table, with the cepstral
        mean carried over."""
        decoder = self._all[noisy]
        if decoder is not self.current:
            decoder.set_cmn(self.current.get_cmn())  # type: ignore[attr-defined]
            self.current = decoder
            self._noisy_used |= decoder is self._all.get(True)

    def listen_for(self, expected: frozenset[str]) -> None:
        """Between utterances: the grammar that weighs what the table expects (``NEUTRAL`` when
        it expects nothing), added to the decoder the first time it is wanted there."""
        dec = self.current
        if not expected:
            dec.activate_search(NEUTRAL)  # type: ignore[attr-defined]
            return
        if expected not in self._grammars:
            t = self.tuning
            favour = expectation(self.phrases, expected, t.expected_weight, t.unexpected_weight)
            self._grammars[expected] = (f"expect{len(self._grammars)}",
                                        grammar(self.phrases, t, self.english, favour))
        activate(dec, *self._grammars[expected])

    def settle(self, pcm: bytes) -> None:
        """Let the current decoder's cepstral mean settle on this audio without decoding it."""
        dec = self.current
        listening = dec.current_search()  # type: ignore[attr-defined]
        activate(dec, SETTLE, settle_grammar(self.tuning, self.english))
        dec.start_utt()  # type: ignore[attr-defined]
        dec.process_raw(pcm, True, False)  # type: ignore[attr-defined]
        dec.end_utt()  # type: ignore[attr-defined]
        dec.activate_search(listening)  # type: ignore[attr-defined]

    def restart(self) -> None:
        """For a new stream: a waiting calibration taken, the quiet table's decoder, and every
        decoder back to the starting cepstral mean and noise estimate."""
        self.take_next()
        self.current = self._all[False]
        if self._noisy_used:  # it keeps more of the stream that ended than ``start_stream`` drops
            self._all[True] = self._make(self.means, noisy=True)
            self._noisy_used = False
        # A new stream starts from the same cepstral mean, not from the last speaker's, nor from
        # the noise the last stream left in Sphinx's own noise removal (on in the English model's
        # quiet decoder too): pocketsphinx 5 keeps it across utterances, and only
        # ``start_stream`` (deprecated there as unnecessary) resets it.  Without it the same
        # file was heard with other confidences after other files (docs/voice.md, "Changes and
        # their figures").
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for decoder in self._all.values():
                if decoder.config["remove_noise"]:  # type: ignore[attr-defined]
                    decoder.start_stream()  # type: ignore[attr-defined]
        self.current.set_cmn(self._cmn_start)  # type: ignore[attr-defined]

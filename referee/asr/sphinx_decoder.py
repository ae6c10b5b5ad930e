"""How a PocketSphinx decoder is built for the phrase table: its settings (``SphinxTuning``),
its model checked, its grammar of calls, look-alikes and garbage, and its dictionary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from models.validate import broken_message, sphinx_problems
from referee.asr.base import JOIN_S, RecognizerError
from referee.asr.grammar import (
    Grammar,
    PhraseList,
    fsg_transitions,
    garbage_syllables,
    garbage_words,
)
from referee.asr.lexicon import dictionary_file, dictionary_lines
from referee.asr.noise import QUIET_DB

NEUTRAL = "calls"  # the search with every phrase at its own weight (no table to expect anything)
SETTLE = "settle"  # the search for audio heard only for its cepstral mean (``settle_grammar``)

# English phones for the garbage path of the fallback (vowels and common consonants).
_EN_GARBAGE = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "UW", "B", "CH", "D", "F", "G", "HH", "K", "L", "M", "N", "P", "R", "S", "SH", "T", "V", "Y", "Z"]


@dataclass(frozen=True)
class SphinxTuning:
    """Grammar weights and search settings; the defaults are set on held-out voices (see benchmark)."""

    call_weight: float = 1.0
    number_weight: float = 0.3
    decoy_weight: float = 0.5
    filler_weight: float = 0.0  # an open filler vocabulary stole calls ("truco" heard as "otro")
    # "te canto", "te digo" (``phrases.CARRIERS``): on the tuning voices "¿y si te canto truco?"
    # was heard as "siete retruco"; with this class truco recall went 42.9% → 64.3% clean and
    # chatter applied in game 2.1% → 1.2% (0.5 and 1.0 let one more chatter through).
    carrier_weight: float = 0.25
    garbage_weight: float = 1e-6
    garbage: str = "phones"  # or "syllables"
    number_runs: bool = False  # allow a number right after a number
    wip: float = 0.5
    lw: float = 10.0
    # The word-exit beam is what costs: every word ending inside it becomes a node of the lattice
    # whose posteriors are the confidences, and building that lattice was three quarters of the
    # CPU.  1e-20 (pocketsphinx's default is 7e-29) cut the CPU 2.5x at 10 dB on the tuning
    # voices; its surer posteriors hear more calls in noise and let a little more chatter through
    # (docs/voice.md).  The search beams keep the defaults.
    beam: float = 1e-48
    wbeam: float = 1e-20
    pbeam: float = 1e-48
    maxhmmpf: int = 5000
    topn: int = 8  # Gaussians scored per frame (docs/voice.md, "Gaussians per sound")
    # Silence and noise words Sphinx may insert at every grammar state; they swell the lattice
    # whose word posteriors (the confidences) are most of the CPU time of an utterance.
    fsg_fillers: bool = True
    # A noisy table (the noise meter's spread between voices and background below this, in dB;
    # about 15 dB SNR) is decoded with Sphinx's own noise removal, which costs recall at a quiet
    # one (docs/voice.md, "Noise").  0 turns it off.
    noisy_below: float = 24.0
    pip: float = 1.0
    # A phrase ends after this much of a pause (90% of it without voice).  0.18 s instead of 0.21:
    # every call that waits for the end of its phrase comes 20-30 ms sooner (docs/voice.md,
    # "Speed"); pocketsphinx refuses a shorter window at this ratio.
    vad_window: float = 0.18
    vad_ratio: float = 0.9
    vad_mode: int = 2
    # In steady noise the voice detector may never hear a pause, and a phrase would go on until
    # the noise stops: at a noisy table (the noise meter, ``noisy_below``) a phrase also ends
    # once its best path has heard no word of the table for this long after its last one, and the
    # rest is heard as a new phrase (docs/voice.md, "A phrase in steady noise").  Shorter, the
    # partial results' passing words cut real ones in two.  0: only the voice detector.
    end_after_s: float = 0.5
    quiet_phrase_s: float = 2.0  # and once it has heard nothing of the table for this long
    # Sooner, once the band voices are heard in has been back down to the table's background for
    # this long (within ``quiet_db`` of it; ``NoiseMeter.quiet_s``) and the best path has heard as
    # much after its last word: a pause, as the voice detector hears one at a quiet table.  0: not
    # sooner.
    quiet_after_s: float = 0.2
    # Or once its last word has gone on this far into that pause: its last sound soaks up the
    # noise («buenas» in a hiss).  Further than the pause that ends a phrase: a word still being
    # said, its last vowel barely above the noise, goes on into a pause of the band too, and a
    # phrase ended there loses it (at 0.2 on the tuning voices at 5 dB, one call and two envido
    # numbers of 0.3's; 0.4 heard no more than 0.3 and came later; docs/voice.md, "A phrase in
    # steady noise").  0: not so.
    soak_s: float = 0.3
    # And then the audio the voice detector still holds (``vad_window``) is decoded at once, and
    # the rest of the phrase as it is fed, so that the pause is heard that much sooner.
    catch_up: bool = True
    quiet_db: float = QUIET_DB
    # A phrase in which nothing of the table has been heard ends once what was decoded is this
    # far past the last moment that band was above the background, and no phrase starts until it
    # rises again: steady noise between the table's phrases is not decoded (docs/voice.md, "The
    # noise between phrases").  0: every moment the voice detector takes for voice is decoded.
    wordless_after_s: float = 0.3
    # And a phrase that starts after noise that was not decoded begins with this much of it:
    # Sphinx's noise removal learns the noise from the first frames of each utterance (after four
    # seconds of noise at 5 and 10 dB, 13 of 24 calls of a held-out voice were heard with none of
    # it, 19 with 1 s, 20 with all of it decoded).
    noise_lead_s: float = 1.0
    # Decode each utterance again as a whole when it ends (cepstral mean of the utterance itself);
    # partials still come from the streaming pass.
    final_pass: bool = False
    # A phrase that starts this soon after one in which nothing was heard is decoded together with
    # it, that one's audio first: a short «no» on its own is heard as nothing, and then «no…
    # quiero» broken by a pause would be heard «quiero» (docs/voice.md).  0: off.
    join_s: float = JOIN_S
    # A phrase that starts after quiet begins this much before the voice detector heard its voice,
    # where the table has a sound of its own (``recent_audio.PRE_ROLL_FLOOR_DBFS``; the quiet there
    # is not counted as the lost start of a number, ``Result.loud``): on the tuning voices at 20 dB
    # it heard 7 calls of 119 more and 12 numbers of 66 more (docs/voice.md, "The start of a
    # phrase").
    pre_roll_s: float = 0.06
    # What the table expects now (``SphinxRecognizer.expecting``) weighs this much more in the
    # grammar, and the calls and numbers it would refuse this much less (docs/voice.md, "What
    # the table expects"); 1 and 1: the grammar is the same whatever the moment.
    expected_weight: float = 10.0
    unexpected_weight: float = 0.1
    # Starting cepstral mean, close to what the Spanish model sees on speech; live CMN adapts from here.
    cmninit: str = "48,17,4,10,-2,-2,10,-6,-2,-10,-4,-10,5"


# The English fallback's lattice is larger still (a Spanish lexicon on English phones leaves many
# words close): a narrower word-exit beam took its CPU from 0.055 / 0.167 to 0.029 / 0.055 of real
# time (clean / 10 dB, tuning voices) and heard more (31.1% → 38.7% of the calls clean).  No
# pre-roll: on its tuning voices it heard 2 calls of 119 more at 20 and at 10 dB, for more
# look-alikes, chatter and wrong numbers applied, and one «quiero» for «no quiero».
ENGLISH_TUNING = SphinxTuning(wbeam=1e-15, pre_roll_s=0.0)


def english_model_dir() -> Path:
    """The English acoustic model shipped inside the pocketsphinx wheel."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us" / "en-us"


def check_model(hmm: Path | None) -> Path:
    """The model folder, checked in Python before pocketsphinx loads it: pocketsphinx ends the
    whole process on a broken model definition instead of raising."""
    if hmm is None or not (hmm / "mdef").is_file():
        raise RecognizerError(
            "model-missing",
            f"no encuentro el modelo acústico de Sphinx en {hmm}; "
            "bajalo con 'truco-referee models fetch sphinx-es'",
        )
    problems = sphinx_problems(hmm)
    if problems:
        raise RecognizerError("model-broken", broken_message("sphinx", hmm, problems))
    return hmm


def _garbage(tuning: SphinxTuning, english: bool) -> dict[str, tuple[str, ...]]:
    """The garbage path's pseudo-words and their phones."""
    if english:
        return garbage_words(_EN_GARBAGE)
    return garbage_syllables() if tuning.garbage == "syllables" else garbage_words()


def grammar(phrases: PhraseList, tuning: SphinxTuning, english: bool,
            favour: Mapping[str, float] | None = None) -> Grammar:
    """The finite-state grammar (start, final, transitions) of these phrases and settings, with
    ``favour``'s phrases weighing more or less (``grammar.expectation``)."""
    t = tuning
    weights = {"call": t.call_weight, "number": t.number_weight, "decoy": t.decoy_weight,
               "filler": t.filler_weight, "carrier": t.carrier_weight,
               "garbage": t.garbage_weight}
    return fsg_transitions(phrases, _garbage(tuning, english), weights, t.number_runs, favour)


def settle_grammar(tuning: SphinxTuning, english: bool) -> Grammar:
    """A grammar of one garbage sound, for audio heard only for its cepstral mean: Sphinx
    searches whatever it was given when the utterance ends, and this search costs next to
    nothing."""
    word = min(_garbage(tuning, english))
    return 0, 1, [(0, 0, 1.0, word), (0, 1, 1.0)]


def add_search(decoder: object, name: str, fsg: Grammar) -> None:
    """Add a grammar to a decoder as the search ``name`` (activated with ``activate_search``)."""
    start, final, trans = fsg
    decoder.add_fsg(name, decoder.create_fsg(name, start, final, trans))  # type: ignore[attr-defined]


def activate(decoder: object, name: str, fsg: Grammar) -> None:
    """Make ``name`` the decoder's search, adding it (``fsg``) the first time it is wanted there."""
    try:
        decoder.activate_search(name)  # type: ignore[attr-defined]
    except KeyError:  # not added to this decoder yet
        add_search(decoder, name, fsg)
        decoder.activate_search(name)  # type: ignore[attr-defined]


def make_decoder(ps: object, hmm: Path, phrases: PhraseList, tuning: SphinxTuning, *,
                 english: bool, means: Path | None, noisy: bool) -> object:
    """A decoder of this model (checked: ``check_model``) and phrases, with these settings and
    means (a calibration); ``noisy``: with Sphinx's own noise removal.  Its search is
    ``NEUTRAL``: every phrase with its own weight."""
    lines = dictionary_lines(phrases.words(), english=english)
    lines += [f"{w} {' '.join(p)}" for w, p in _garbage(tuning, english).items()]
    t = tuning
    try:
        with dictionary_file(lines) as dict_path:
            config = ps.Config(  # type: ignore[attr-defined]
                hmm=str(hmm), dict=str(dict_path), wip=t.wip, pip=t.pip, lw=t.lw,
                beam=t.beam, wbeam=t.wbeam, pbeam=t.pbeam, maxhmmpf=t.maxhmmpf, topn=t.topn,
                fsgusefiller=t.fsg_fillers, remove_noise=noisy,
                loglevel="FATAL",
            )
            config["lm"] = None
            if not english:
                config["cmninit"] = t.cmninit
            if means is not None:
                config["mean"] = str(means)
            decoder = ps.Decoder(config)  # type: ignore[attr-defined]
            add_search(decoder, NEUTRAL, grammar(phrases, tuning, english))
            decoder.activate_search(NEUTRAL)
    except (RuntimeError, ValueError) as err:
        hint = " ('truco-referee voices forget' borra la calibración)" if means else ""
        raise RecognizerError("model-broken", f"Sphinx no pudo cargar {hmm}: {err}{hint}") from err
    return decoder

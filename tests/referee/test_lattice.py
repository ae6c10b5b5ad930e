"""A word's confidence is the whole lattice's: every copy of it over the same stretch, added up."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from referee.asr.grammar import PhraseList
from referee.asr.lattice import Span, posterior, read_htk
from referee.asr.sphinx import SphinxRecognizer
from referee.wav import WavSource, read_wav

# A «quiero» as pocketsphinx writes its lattice (HTK SLF): three copies of the word from the
# start, one per grammar state it can leave by, the best path through the first (0.147).
SLF = """\
VERSION=1.0
start=1
end=0
N=8\tL=8
I=0\tt=0.47\tW=!SENT_END\tv=1
I=1\tt=0.00\tW=!SENT_START\tv=1
I=2\tt=0.34\tW=!NULL\tv=1
I=3\tt=0.31\tW=_k\tv=1
I=4\tt=0.00\tW=quiero\tv=1
I=5\tt=0.00\tW=quiero(2)\tv=1
I=6\tt=0.00\tW=quiero\tv=1
I=7\tt=0.40\tW=veinte\tv=1
J=0\tS=1\tE=4\ta=0.000000\tp=0.147282
J=1\tS=1\tE=5\ta=0.000000\tp=0.147282
J=2\tS=1\tE=6\ta=0.000000\tp=0.705405
J=3\tS=4\tE=2\ta=-148.677366\tp=0.147282
J=4\tS=5\tE=2\ta=-148.677366\tp=0.147282
J=5\tS=6\tE=2\ta=-148.677366\tp=0.505405
J=6\tS=6\tE=3\ta=-81.915904\tp=0.2
J=7\tS=3\tE=0\ta=-10.0\tp=0.2
"""


def test_the_links_of_a_lattice_are_its_words_over_their_time() -> None:
    spans = read_htk(SLF)
    assert Span("quiero", 0.0, 0.34, 0.147282) in spans
    assert Span("quiero", 0.0, 0.31, 0.2) in spans  # the copy that goes on to the garbage path
    assert Span("_k", 0.31, 0.47, 0.2) in spans
    assert all(s.word != "quiero(2)" for s in spans)  # a pronunciation's variant is the word


def test_a_words_posterior_adds_up_its_copies_over_the_same_stretch() -> None:
    spans = read_htk(SLF)
    assert posterior(spans, "quiero", 0.0, 0.33) == pytest.approx(1.0, abs=1e-3)
    assert posterior(spans, "veinte", 0.0, 0.33) == 0.0  # no link says it there
    assert posterior(spans, "_k", 0.0, 0.33) == 0.0  # said later, not over the middle
    assert posterior([Span("truco", 0.0, 1.0, 0.7)] * 2, "truco", 0.2, 0.6) == 1.0  # never above 1


def _said(parts: list[np.ndarray], out: Path, gap_s: float = 0.6) -> Path:
    gap = np.zeros(int(gap_s * 16000))
    audio = np.concatenate([gap, *(p for part in parts for p in (part, gap)), gap])
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes())
    return out


@pytest.mark.shared
def test_a_clear_quiero_after_an_envido_is_heard_sure(model: Path, shared_dir: Path,
                                                      tmp_path: Path) -> None:
    """The real recordings' «envido» and then «quiero»: read from one copy of it in the lattice,
    the «quiero» came out at 0.15 at the end of its phrase, and the referee took back the
    «quiero» it had applied early."""
    real = shared_dir / "speech" / "real" / "truco-uruguayo"
    wav = _said([read_wav(real / "envido.wav")[:, 0], read_wav(real / "quiero.wav")[:, 0]],
                tmp_path / "envido-quiero.wav")
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    finals = [r for chunk in WavSource(wav) for r in rec.feed(chunk.pcm) if r.final]
    finals += [r for r in rec.flush() if r.final]
    words = [(w.text, w.conf) for r in finals for w in r.words]
    assert [text for text, _ in words] == ["envido", "quiero"]
    assert all(conf >= 0.9 for _, conf in words), words

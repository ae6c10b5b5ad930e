"""Voice calibration: the Sphinx model's Gaussian means adapted to the table's voices, from a few
utterances of known text said at the table ("calibration to your own voices").

Steps: Sphinx-compatible MFCCs in numpy → cepstral mean normalization and deltas (the model's
``1s_c_d_dd`` feature, three streams) → a state alignment of each utterance to its known text
(PocketSphinx's aligner) → Gaussian occupancies (the aligned senone's mixture weights times the
Gaussians of its phone's codebook) → per stream and regression class (vowels, consonants), the
transform ``mean' = A·mean + b`` that maximizes the likelihood of the calibration audio → on top, a
MAP step that moves each Gaussian seen in the calibration towards its own data → a Sphinx means
file, loaded by the decoder's ``mean`` option.

Here the statistics, the transforms and the MAP step; the features are in ``cepstra``, the model's
files in ``ptm_model``, the alignment in ``alignment``, and where the result is kept in
``calibration_folder``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from referee.asr.alignment import Aligner, Alignments, speech_frames, spoken
from referee.asr.base import RecognizerError
from referee.asr.cepstra import NCEP, STREAMS, deltas, mfcc, voice_mean
from referee.asr.ptm_model import MIXW_LOG_UNIT, PtmModel

MIN_FRAMES = 500  # 5 s of aligned speech at least
MIN_CLASS_FRAMES = 300  # a regression class with less speech takes the global transform
VOWELS = frozenset("aeiou")  # the other regression class is the consonants; silence stays global
MAP_TAU = 5.0  # prior weight of the transformed mean, in frames (chosen on the tuning voices)


# -- statistics -----------------------------------------------------------------------------------
@dataclass
class Stats:
    """Per-Gaussian occupancy and sum of observations: codebook × stream × density (× 13)."""

    occ: np.ndarray
    sum: np.ndarray
    said: int = 0  # utterances given
    aligned: int = 0  # of them, those whose text fitted their audio (the rest are left out)

    @classmethod
    def empty(cls, model: PtmModel) -> Stats:
        return cls(np.zeros(model.means.shape[:3]), np.zeros(model.means.shape))

    @property
    def frames(self) -> float:
        return float(self.occ[:, 0].sum())

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.occ + other.occ, self.sum + other.sum, self.said + other.said,
                     self.aligned + other.aligned)

    def add(self, model: PtmModel, feats: np.ndarray, senones: np.ndarray, cbs: np.ndarray) -> None:
        """Accumulate frames with their aligned senone and codebook."""
        for cb in np.unique(cbs):
            sel = cbs == cb
            for f, (a, b) in enumerate(STREAMS):
                o = feats[sel, a:b]  # T × 13
                mu, var = model.means[cb, f], model.variances[cb, f]  # D × 13
                loglik = -0.5 * (((o[:, None, :] - mu[None]) ** 2) / var[None]).sum(-1)
                loglik -= 0.5 * np.log(var).sum(-1)[None]
                logw = -model.mixw[f][:, senones[sel]].T * MIXW_LOG_UNIT  # T × D
                post = loglik + logw
                post = np.exp(post - post.max(1, keepdims=True))
                post /= post.sum(1, keepdims=True)
                self.occ[cb, f] += post.sum(0)
                self.sum[cb, f] += post.T @ o


@dataclass(frozen=True)
class Transform:
    """Per stream, ``mean' = A·mean + b`` (variances unchanged)."""

    a: tuple[np.ndarray, ...]
    b: tuple[np.ndarray, ...]

    def apply(self, means: np.ndarray) -> np.ndarray:
        """Transformed means of one codebook: stream × density × 13."""
        return np.stack([m @ a.T + b for m, a, b in zip(means, self.a, self.b, strict=True)])


def estimate(model: PtmModel, stats: Stats) -> Transform:
    """Maximum-likelihood mean transform from the statistics (diagonal covariances, one class):
    row i of [A b] solves G_i w = k_i, G_i = Σ_m occ_m/var_mi ξ_m ξ_mᵀ, k_i = Σ_m sum_mi/var_mi ξ_m,
    with ξ_m = [mean_m, 1].  (A diagonal A did much worse on held-out voices.)  Gaussians with no
    occupancy do not count, so the statistics of one class give that class's transform."""
    a_out, b_out = [], []
    for f in range(len(STREAMS)):
        mu = model.means[:, f].reshape(-1, NCEP)
        var = model.variances[:, f].reshape(-1, NCEP)
        occ = stats.occ[:, f].reshape(-1)
        obs = stats.sum[:, f].reshape(-1, NCEP)
        xi = np.concatenate([mu, np.ones((len(mu), 1))], axis=1)
        w = np.empty((NCEP, NCEP + 1))
        for i in range(NCEP):
            g = (xi * (occ / var[:, i])[:, None]).T @ xi
            k = xi.T @ (obs[:, i] / var[:, i])
            w[i] = np.linalg.solve(g, k)
        a_out.append(w[:, :NCEP])
        b_out.append(w[:, NCEP])
    return Transform(tuple(a_out), tuple(b_out))


def accumulate(model: PtmModel, aligner: Aligner, utterances: Sequence[tuple[bytes, str]],
               alignments: Alignments | None = None) -> Stats:
    """Statistics of one voice's (pcm, text) utterances, normalized by that voice's mean; silence
    frames left out (the transform is for speech).  ``alignments``: those made before, kept."""
    ceps = [mfcc(pcm) for pcm, _ in utterances]
    cmn = voice_mean(ceps)
    codebook = {ph: i for i, ph in enumerate(model.phones)}
    stats = Stats.empty(model)
    for cep, (pcm, text) in zip(ceps, utterances, strict=True):
        align = partial(speech_frames, aligner, cep, cmn, spoken(text), codebook)
        got = align() if alignments is None else alignments.get(pcm, text, align)
        stats.said += 1
        if got is not None:
            stats.aligned += 1
            keep, senones, cbs = got
            stats.add(model, deltas(cep - cmn)[keep], senones, cbs)
    return stats


def adapted_means(model: PtmModel, stats: Stats, tau: float = MAP_TAU) -> np.ndarray:
    """The model's means adapted to the statistics: one transform for the vowels' codebooks, one
    for the consonants' (the global one for silence, and for a class with too little speech),
    then MAP: ``(tau·mean' + Σ occupancy·observation) / (tau + occupancy)`` per Gaussian."""
    overall = estimate(model, stats)
    by_class: dict[bool, Transform] = {}
    for vowel in (True, False):
        mask = np.array([(ph in VOWELS) == vowel and ph != "SIL" for ph in model.phones], dtype=float)
        part = Stats(stats.occ * mask[:, None, None], stats.sum * mask[:, None, None, None])
        try:
            by_class[vowel] = estimate(model, part) if part.frames >= MIN_CLASS_FRAMES else overall
        except np.linalg.LinAlgError:  # too few distinct Gaussians reached for a full A
            by_class[vowel] = overall
    out = np.empty_like(model.means)
    for cb, phone in enumerate(model.phones):
        transform = overall if phone == "SIL" else by_class[phone in VOWELS]
        out[cb] = transform.apply(model.means[cb])
    return (tau * out + stats.sum) / (tau + stats.occ[..., None])


def calibrate(model_dir: Path, voices: Sequence[Sequence[tuple[bytes, str]]],
              alignments: Alignments | None = None) -> tuple[np.ndarray, Stats]:
    """Adapted means from (pcm, text) utterances grouped by voice (one alignment pass: a second
    pass, aligned with the first transform, did worse on held-out voices); ``alignments`` keeps
    this round's alignments for the next."""
    model = PtmModel.load(model_dir)
    words = [w for utts in voices for _, text in utts for w in spoken(text).split()]
    aligner = Aligner(model_dir, words)
    stats = Stats.empty(model)
    try:
        for utts in voices:
            stats = stats + accumulate(model, aligner, utts, alignments)
    finally:
        if alignments is not None:
            alignments.end_round()
    if stats.frames < MIN_FRAMES:
        raise RecognizerError("calibration-short",
                              f"muy poca voz para calibrar ({stats.frames / 100:.1f} s de habla alineada; "
                              f"hacen falta {MIN_FRAMES / 100:.0f} s)")
    return adapted_means(model, stats), stats

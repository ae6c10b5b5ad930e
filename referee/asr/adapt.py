"""Voice calibration: the Sphinx model's Gaussian means adapted to the table's voices, from a few
utterances of known text said at the table ("calibration to your own voices").

Steps: Sphinx-compatible MFCCs in numpy → cepstral mean normalization and deltas (the model's
``1s_c_d_dd`` feature, three streams) → a state alignment of each utterance to its known text
(PocketSphinx's aligner) → Gaussian occupancies (the aligned senone's mixture weights times the
Gaussians of its phone's codebook) → per stream and regression class (vowels, consonants), the
transform ``mean' = A·mean + b`` that maximizes the likelihood of the calibration audio → on top, a
MAP step that moves each Gaussian seen in the calibration towards its own data → a Sphinx means
file, loaded by the decoder's ``mean`` option.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

from models.validate import S3_BYTE_ORDER, broken_message
from referee.asr.base import RecognizerError
from referee.asr.lexicon import dictionary_file, dictionary_lines, normalize_word

SAMPLE_RATE = 16000
FRAME_SHIFT = 160
FRAME_SIZE = 410  # 25.625 ms
NFFT = 512
NFILT, LOWERF, UPPERF, NCEP, LIFTER = 25, 130.0, 6800.0, 13, 22
STREAMS = ((0, 13), (13, 26), (26, 39))  # svspec 0-12/13-25/26-38
MIN_FRAMES = 500  # 5 s of aligned speech at least
MIN_CLASS_FRAMES = 300  # a regression class with less speech takes the global transform
VOWELS = frozenset("aeiou")  # the other regression class is the consonants; silence stays global
MAP_TAU = 5.0  # prior weight of the transformed mean, in frames (chosen on the tuning voices)
MIXW_LOG_UNIT = 1024 * np.log(1.0001)  # sendump values are -log(weight) in units of 1.0001**1024
_T = TypeVar("_T")


# -- features -------------------------------------------------------------------------------------
def _mel(f: np.ndarray | float) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)


def _mel_inv(m: np.ndarray | float) -> np.ndarray:
    return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)


def _mel_filters() -> np.ndarray:
    """Sphinx's triangular filters (unit area, edges rounded to FFT bins): NFILT × (NFFT/2+1)."""
    fftfreq = SAMPLE_RATE / NFFT
    melmin, melmax = _mel(LOWERF), _mel(UPPERF)
    melbw = (melmax - melmin) / (NFILT + 1)
    bank = np.zeros((NFILT, NFFT // 2 + 1))
    hz = np.arange(NFFT // 2 + 1) * fftfreq
    for i in range(NFILT):
        lo, mid, hi = (np.floor(_mel_inv((i + j) * melbw + melmin) / fftfreq + 0.5) * fftfreq
                       for j in range(3))
        up = (hz - lo) / (mid - lo) * 2 / (hi - lo)
        down = (hi - hz) / (hi - mid) * 2 / (hi - lo)
        inside = (hz >= lo) & (hz <= hi) & (np.arange(len(hz)) < NFFT // 2)
        bank[i] = np.where(inside, np.maximum(0.0, np.minimum(up, down)), 0.0)
    return bank


_BANK = _mel_filters()
_DCT = np.array([[np.cos(np.pi * i * (j + 0.5) / NFILT) for j in range(NFILT)] for i in range(NCEP)])
_DCT[0] *= np.sqrt(1.0 / NFILT)
_DCT[1:] *= np.sqrt(2.0 / NFILT)
_LIFTER = 1.0 + LIFTER / 2.0 * np.sin(np.pi * np.arange(NCEP) / LIFTER)
_WINDOW = 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(FRAME_SIZE) / (FRAME_SIZE - 1))


def mfcc(pcm: bytes) -> np.ndarray:
    """13 cepstra per 10 ms frame of 16 kHz int16 audio, as PocketSphinx computes them for this model."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    x = np.concatenate([x[:1], x[1:] - 0.97 * x[:-1]])  # pre-emphasis
    # Whole frames, then the last partial one padded with zeros (as Sphinx does at the end).
    n = 1 + -(-max(0, len(x) - FRAME_SIZE) // FRAME_SHIFT)
    x = np.concatenate([x, np.zeros(max(0, (n - 1) * FRAME_SHIFT + FRAME_SIZE - len(x)))])
    idx = np.arange(FRAME_SIZE)[None, :] + FRAME_SHIFT * np.arange(n)[:, None]
    frames = x[idx] * _WINDOW
    power = np.abs(np.fft.rfft(frames, NFFT)) ** 2
    melspec = power @ _BANK.T
    logspec = np.log(melspec + 1e-4)
    return (logspec @ _DCT.T) * _LIFTER


def deltas(cep: np.ndarray) -> np.ndarray:
    """``1s_c_d_dd``: cepstra, c[t+2]-c[t-2], (c[t+3]-c[t-1])-(c[t+1]-c[t-3]); edges repeated."""
    pad = np.concatenate([np.repeat(cep[:1], 3, 0), cep, np.repeat(cep[-1:], 3, 0)])
    t = np.arange(len(cep)) + 3
    d = pad[t + 2] - pad[t - 2]
    dd = (pad[t + 3] - pad[t - 1]) - (pad[t + 1] - pad[t - 3])
    return np.concatenate([cep, d, dd], axis=1)


# -- the acoustic model ---------------------------------------------------------------------------
def _read_s3(path: Path) -> tuple[list[int], np.ndarray]:
    """A Sphinx-3 binary Gaussian parameter file (means or variances): (dims, flat float32 data)."""
    raw = path.read_bytes()
    end = raw.index(b"endhdr\n") + len(b"endhdr\n")
    (magic,) = struct.unpack_from("<I", raw, end)
    order = "<" if magic == S3_BYTE_ORDER else ">"
    n_mgau, n_feat, n_density = struct.unpack_from(order + "3i", raw, end + 4)
    veclen = list(struct.unpack_from(order + f"{n_feat}i", raw, end + 16))
    (total,) = struct.unpack_from(order + "i", raw, end + 16 + 4 * n_feat)
    data = np.frombuffer(raw, dtype=order + "f4", count=total, offset=end + 20 + 4 * n_feat)
    return [n_mgau, n_feat, n_density, *veclen], data


def _read_sendump(path: Path) -> np.ndarray:
    """Quantized mixture weights: n_feat × n_density × n_senone, values are -log(weight)."""
    raw = path.read_bytes()
    off, n_feat = 0, 0
    while True:
        (n,) = struct.unpack_from("<i", raw, off)
        off += 4
        if n == 0:
            break
        line = raw[off:off + n - 1].decode("ascii", "replace")
        if line.startswith("feature_count "):
            n_feat = int(line.split()[1])
        if line.startswith("cluster_count ") and int(line.split()[1]) != 0:
            raise RecognizerError("model-unsupported", f"{path}: clustered mixture weights")
        off += n
    n_density, n_sen = struct.unpack_from("<ii", raw, off)
    off += 8
    return np.frombuffer(raw, dtype=np.uint8, count=n_feat * n_density * n_sen,
                         offset=off).reshape(n_feat, n_density, n_sen)


def _ci_phones(mdef: Path) -> list[str]:
    """The base phones of a text mdef, in codebook order."""
    lines = [ln for ln in mdef.read_text(encoding="ascii").splitlines() if ln and not ln.startswith("#")]
    n_base = int(next(ln.split()[0] for ln in lines if ln.endswith("n_base")))
    rows = [ln.split() for ln in lines[lines.index(next(ln for ln in lines if ln.endswith("n_tied_tmat"))) + 1:]]
    return [r[0] for r in rows[:n_base]]


@dataclass
class PtmModel:
    """The parts of a phonetically-tied Sphinx model that adaptation needs."""

    means: np.ndarray  # codebook × stream(3) × density × 13
    variances: np.ndarray
    mixw: np.ndarray  # stream × density × senone (-log weight, quantized)
    phones: list[str]

    @classmethod
    def load(cls, model_dir: Path) -> PtmModel:
        """The model's parts; a file missing, cut short or damaged (a model copied by hand) is a
        RecognizerError that names it."""
        means = _model_file(model_dir / "means", _read_gaussians)
        variances = _model_file(model_dir / "variances", _read_gaussians)
        if variances.shape != means.shape:
            raise _broken(model_dir / "variances")
        return cls(means, np.maximum(variances, 1e-4), _model_file(model_dir / "sendump", _read_sendump),
                   _model_file(model_dir / "mdef", _ci_phones))


def _read_gaussians(path: Path) -> np.ndarray:
    """A means or variances file as codebook × stream × density × 13."""
    dims, data = _read_s3(path)
    n_mgau, n_feat, n_density, *veclen = dims
    if n_feat != 3 or any(v != NCEP for v in veclen):
        raise RecognizerError("model-unsupported", f"{path}: expected 3 streams of 13")
    return data.reshape(n_mgau, n_feat, n_density, NCEP).astype(np.float64)


def _model_file(path: Path, read: Callable[[Path], _T]) -> _T:
    """``read(path)``, a file of the acoustic model; one missing, cut short or not what it should
    be is a RecognizerError (``_broken``)."""
    try:
        return read(path)
    except (OSError, ValueError, struct.error, IndexError, StopIteration) as err:
        raise _broken(path) from err


def _broken(path: Path) -> RecognizerError:
    """A file of the acoustic model that cannot be read: which, and how to mend the model."""
    problem = f"no puedo leer {path.name}: está cortado o dañado"
    return RecognizerError("model-broken", broken_message("sphinx", path.parent, [problem]))


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


# -- alignment ------------------------------------------------------------------------------------
Aligned = tuple[np.ndarray, list[str]] | None  # senone id and phone per frame; None: did not fit


class Aligner:
    """PocketSphinx forced alignment of utterances to their known text, frame by frame."""

    def __init__(self, model_dir: Path, words: Iterable[str]) -> None:
        import pocketsphinx

        with dictionary_file(dictionary_lines(sorted(set(words)))) as dict_path:
            config = pocketsphinx.Config(hmm=str(model_dir), dict=dict_path, loglevel="FATAL")
            config["lm"] = None
            self._decoder = pocketsphinx.Decoder(config)

    def _decode(self, data: bytes, cmn: np.ndarray) -> None:
        dec = self._decoder
        dec.set_cmn(",".join(f"{v:.4f}" for v in cmn))
        dec.start_utt()
        dec.process_cep(data, False, True)
        dec.end_utt()

    def align(self, cep: np.ndarray, cmn: np.ndarray, text: str) -> Aligned:
        """Senone id and phone per frame, or None if the text could not be aligned."""
        dec = self._decoder
        data = np.ascontiguousarray(cep, dtype=np.float32).tobytes()
        try:
            dec.set_align_text(text)
            self._decode(data, cmn)  # a word pass, then the state alignment (PocketSphinx's recipe)
            dec.set_alignment()
            self._decode(data, cmn)
            alignment = dec.get_alignment()
        except RuntimeError:  # the text did not fit the audio
            return None
        if alignment is None:
            return None
        senones = np.full(len(cep), -1)
        phones = [""] * len(cep)
        for word in alignment:
            for phone in word:
                for state in phone:
                    end = min(len(cep), state.start + state.duration)
                    senones[state.start:end] = int(state.name)
                    phones[state.start:end] = [phone.name] * (end - state.start)
        return senones, phones


SpeechFrames = tuple[np.ndarray, np.ndarray, np.ndarray]  # speech or not per frame; senone, codebook


def speech_frames(aligner: Aligner, cep: np.ndarray, cmn: np.ndarray, text: str,
                  codebook: dict[str, int]) -> SpeechFrames | None:
    """An utterance aligned to its text: which frames are speech (not silence, all aligned), and
    their senones and codebooks, in small integers; None if the text did not fit the audio."""
    got = aligner.align(cep, cmn, text)
    if got is None:
        return None
    senones, phones = got
    keep = (senones >= 0) & np.array([ph not in ("", "SIL") for ph in phones])
    cbs = np.array([codebook.get(ph, -1) for ph in phones])
    return keep, senones[keep].astype(np.int32), cbs[keep].astype(np.int16)


class Alignments:
    """The alignments made in one relearning, kept for the next (``serve --learn`` adapts every
    few minutes on the newest phrases of play, most of them aligned the time before): an
    utterance, known by its audio and text, is aligned once, with the cepstral mean its voice had
    then, and what a round did not ask for again is dropped at its end."""

    def __init__(self) -> None:
        self._kept: dict[tuple[bytes, str], SpeechFrames | None] = {}
        self._asked: dict[tuple[bytes, str], SpeechFrames | None] = {}

    def get(self, pcm: bytes, text: str,
            align: Callable[[], SpeechFrames | None]) -> SpeechFrames | None:
        """The utterance's frames as kept, or aligned now (``align``)."""
        key = (hashlib.blake2b(pcm, digest_size=16).digest(), text)
        got = self._kept[key] if key in self._kept else align()
        self._asked[key] = got
        return got

    def end_round(self) -> None:
        self._kept, self._asked = self._asked, {}

    def __len__(self) -> int:
        return len(self._kept)


def spoken(text: str) -> str:
    """The words of a prompt as the dictionary spells them."""
    return " ".join(w for w in (normalize_word(t) for t in text.split()) if w)


def voice_mean(ceps: Sequence[np.ndarray]) -> np.ndarray:
    """The cepstral mean Sphinx's CMN settles on for this audio (frames of negative c0 skipped)."""
    allcep = np.concatenate(ceps)
    voiced = allcep[allcep[:, 0] >= 0]
    return voiced.mean(0) if len(voiced) else allcep.mean(0)


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


def write_means(path: Path, means: np.ndarray) -> None:
    """A Sphinx-3 binary means file (codebook × stream × density × 13, little-endian, no checksum)."""
    n_mgau, n_feat, n_density, veclen = means.shape
    head, tail = b"s3\nversion 1.0\n", b"endhdr\n"
    pad = b" " * (-(len(head) + len(tail)) % 4)  # the data starts on a 4-byte boundary
    body = struct.pack(f"<I3i{n_feat}ii", S3_BYTE_ORDER, n_mgau, n_feat, n_density,
                       *([veclen] * n_feat), means.size)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + pad + tail + body + np.ascontiguousarray(means, dtype="<f4").tobytes())


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


# -- where the table's calibration lives ----------------------------------------------------------
def calibration_dir(models_dir: Path) -> Path:
    return models_dir / "voice-calibration"


def save_calibration(models_dir: Path, model_dir: Path, means: np.ndarray, stats: Stats,
                     **notes: object) -> Path:
    """Write the adapted means and a note of which acoustic model they were estimated for (and
    ``notes``).  Each file is replaced whole, so a decoder starting meanwhile reads the old one
    or the new one."""
    folder = calibration_dir(models_dir)
    write_means(folder / "means.new", means)
    (folder / "means.new").replace(folder / "means")
    write_note(models_dir, {"model": str(model_dir.resolve()),
                            "model_in_folder": _inside(models_dir, model_dir),
                            "speech_s": round(stats.frames / 100, 1), **notes})
    return folder / "means"


def write_note(models_dir: Path, info: dict[str, object]) -> None:
    """Replace the calibration's note (``info.json``) whole."""
    folder = calibration_dir(models_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "info.new").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    (folder / "info.new").replace(folder / "info.json")


def find_calibration(models_dir: Path, model_dir: Path) -> Path | None:
    """The saved calibration, if there is one for this acoustic model."""
    folder = calibration_dir(models_dir)
    try:
        info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    inside = _inside(models_dir, model_dir)
    same = (info.get("model") == str(model_dir.resolve())
            or (inside is not None and info.get("model_in_folder") == inside))
    if (folder / "means").is_file() and same:
        return folder / "means"
    return None


def _inside(models_dir: Path, model_dir: Path) -> str | None:
    """Where the acoustic model lies inside the models folder (``sphinx/acoustic_model``), so
    that a calibration follows a models folder moved or copied whole; None if outside it."""
    try:
        return model_dir.absolute().relative_to(models_dir.absolute()).as_posix()
    except ValueError:
        return None

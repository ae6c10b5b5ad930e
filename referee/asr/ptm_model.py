"""The parts of a phonetically-tied Sphinx model that adaptation reads (means, variances, mixture
weights, phones), and the Sphinx-3 means file it writes."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from models.validate import S3_BYTE_ORDER, broken_message
from referee.asr.base import RecognizerError
from referee.asr.cepstra import NCEP

MIXW_LOG_UNIT = 1024 * np.log(1.0001)  # sendump values are -log(weight) in units of 1.0001**1024
_T = TypeVar("_T")


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


def write_means(path: Path, means: np.ndarray) -> None:
    """A Sphinx-3 binary means file (codebook × stream × density × 13, little-endian, no checksum)."""
    n_mgau, n_feat, n_density, veclen = means.shape
    head, tail = b"s3\nversion 1.0\n", b"endhdr\n"
    pad = b" " * (-(len(head) + len(tail)) % 4)  # the data starts on a 4-byte boundary
    body = struct.pack(f"<I3i{n_feat}ii", S3_BYTE_ORDER, n_mgau, n_feat, n_density,
                       *([veclen] * n_feat), means.size)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + pad + tail + body + np.ascontiguousarray(means, dtype="<f4").tobytes())

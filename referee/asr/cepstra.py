"""The features PocketSphinx computes for the Spanish model, in numpy: MFCCs, their deltas (the
``1s_c_d_dd`` feature, three streams) and a voice's cepstral mean."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SAMPLE_RATE = 16000
FRAME_SHIFT = 160
FRAME_SIZE = 410  # 25.625 ms
NFFT = 512
NFILT, LOWERF, UPPERF, NCEP, LIFTER = 25, 130.0, 6800.0, 13, 22
STREAMS = ((0, 13), (13, 26), (26, 39))  # svspec 0-12/13-25/26-38


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


def voice_mean(ceps: Sequence[np.ndarray]) -> np.ndarray:
    """The cepstral mean Sphinx's CMN settles on for this audio (frames of negative c0 skipped)."""
    allcep = np.concatenate(ceps)
    voiced = allcep[allcep[:, 0] >= 0]
    return voiced.mean(0) if len(voiced) else allcep.mean(0)

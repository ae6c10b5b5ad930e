"""Resampling to the recognizers' 16 kHz: a whole recording, a stretch of one, or a microphone's
blocks as they come (the same samples as the recording resampled whole)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from referee.audio import SAMPLE_RATE


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Resample float samples (frames × channels) to ``target`` Hz; box-filtered when downsampling."""
    if rate == target or len(samples) == 0:
        return samples
    return resample_span(lambda lo, hi: samples[lo:hi], len(samples), rate, 0,
                         resampled_length(len(samples), rate, target), target)


def resampled_length(frames: int, rate: int, target: int = SAMPLE_RATE) -> int:
    """How many frames ``frames`` at ``rate`` Hz make at ``target`` Hz."""
    return round(frames * target / rate)


def _reach(rate: int, target: int) -> int:
    """How far (in frames at ``rate``) the box filter reaches."""
    return round(rate / target) if rate > target else 1


def resample_span(read: Callable[[int, int], np.ndarray], frames: int, rate: int, start: int,
                  stop: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Frames ``start`` to ``stop`` of ``resample`` of a recording of ``frames`` frames, reading
    (``read(lo, hi)``: its float frames lo to hi) only the stretch they come from: a long
    recording is resampled a stretch at a time, the same as whole, never held as floats whole."""
    if rate == target:
        return read(start, stop)
    width = _reach(rate, target)
    lo = max(0, start * rate // target - width - 1)  # the box filter's reach, and a sample more
    hi = min(frames, (stop - 1) * rate // target + width + 2)
    part = read(lo, hi)
    if width > 1:
        kernel = np.ones(width) / width
        part = np.stack([np.convolve(part[:, c], kernel, mode="same")
                         for c in range(part.shape[1])], axis=1)
    src_t = np.arange(lo, hi) / rate
    dst_t = np.arange(start, stop) / target
    return np.stack([np.interp(dst_t, src_t, part[:, c]) for c in range(part.shape[1])], axis=1)


class Resampler:
    """A stream's blocks at ``rate`` Hz to ``target`` Hz as they come: each block gives the frames
    its samples complete, the same as the whole stream resampled at once (the last few wait for
    the next block)."""

    def __init__(self, rate: int, target: int = SAMPLE_RATE) -> None:
        self.rate, self.target = rate, target
        self._kept: np.ndarray | None = None  # the samples still needed, from frame ``_first``
        self._first = 0
        self._received = 0
        self._given = 0  # output frames given so far

    def push(self, block: np.ndarray) -> np.ndarray:
        """Float frames (frames × channels) at ``rate`` → the new frames at ``target``."""
        if self.rate == self.target:
            return block
        self._kept = block if self._kept is None else np.concatenate([self._kept, block])
        self._received += len(block)
        width = _reach(self.rate, self.target)
        # frame j needs the input up to j * rate // target + width + 2 (``resample_span``)
        last = self._received - width - 2
        stop = max(self._given, -(-(last + 1) * self.target // self.rate)) if last >= 0 else self._given
        if stop == self._given:
            return block[:0]
        first = self._first

        def read(lo: int, hi: int) -> np.ndarray:
            assert self._kept is not None
            return self._kept[lo - first : hi - first]

        out = resample_span(read, self._received, self.rate, self._given, stop, self.target)
        self._given = stop
        keep_from = max(0, stop * self.rate // self.target - width - 1)
        self._kept = self._kept[keep_from - first :]
        self._first = keep_from
        return out

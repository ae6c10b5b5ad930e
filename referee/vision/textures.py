"""Procedural table surfaces for generated scenes: felt, wood, cloth and a white table."""

from __future__ import annotations

import cv2
import numpy as np

TABLES = ("felt", "wood", "cloth", "white")


def _noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``scale`` pixels wide."""
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    small = rng.standard_normal((sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big / 2.0, -1.0, 1.0)


def felt(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = rng.choice([(40, 110, 30), (90, 60, 20), (30, 30, 120), (50, 80, 50), (60, 40, 40)])
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(base, np.float32) * rng.uniform(0.7, 1.3)
    img += (_noise(rng, h, w, 40) * 12)[..., None]
    img += rng.normal(0, 7, (h, w, 1)).astype(np.float32)
    return img


def wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = np.array(rng.choice([(40, 80, 140), (30, 60, 100), (70, 120, 170), (20, 40, 70)]), np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = x * np.cos(angle) + y * np.sin(angle)
    warp = _noise(rng, h, w, 80) * rng.uniform(10, 40)
    grain = np.sin((u + warp) / rng.uniform(3, 9)) * 0.5 + 0.5
    rings = np.sin((u + warp * 2) / rng.uniform(25, 60))
    shade = 1.0 + 0.18 * (grain - 0.5) + 0.1 * rings + 0.05 * _noise(rng, h, w, 6)
    return base[None, None, :] * shade[..., None]


def cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    c1 = np.array(rng.integers(20, 230, 3), np.float32)
    c2 = np.array(rng.integers(20, 230, 3), np.float32)
    period = rng.uniform(12, 60)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, np.pi / 2)
    u, v = x * np.cos(a) + y * np.sin(a), -x * np.sin(a) + y * np.cos(a)
    check = ((np.floor(u / period) + np.floor(v / period)) % 2)[..., None]
    weave = (np.sin(x * 1.7) * np.sin(y * 1.7))[..., None] * 8
    img = c1 * check + c2 * (1 - check) + weave
    return img + (_noise(rng, h, w, 30) * 10)[..., None]


def white(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    tone = np.array([rng.uniform(200, 245)] * 3, np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = tone
    img += (_noise(rng, h, w, 60) * 6)[..., None]
    return img + rng.normal(0, 3, (h, w, 1)).astype(np.float32)


def table(kind: str, rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A float32 BGR table surface of the given kind."""
    makers = {"felt": felt, "wood": wood, "cloth": cloth, "white": white}
    if kind not in makers:
        raise ValueError(f"unknown table {kind!r}: choose one of {', '.join(TABLES)}")
    return np.clip(makers[kind](rng, h, w), 0, 255).astype(np.float32)

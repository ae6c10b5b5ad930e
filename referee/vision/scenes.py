"""Generated table scenes for tests and the benchmark: deck faces rendered onto procedural tables.

Each scene puts 0-N cards on a felt, wood, cloth or white table with random rotation, perspective
tilt, scale, shadows, overlap and finger-like occlusion, then adds lighting gradients, glare, colour
casts, blur, noise and JPEG compression.  The ground truth keeps each card's corners, tilt and
how much of it is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.cards import Card
from referee.vision.faces import Face
from referee.vision.textures import TABLES, table

SKIN = ((120, 160, 215), (90, 130, 190), (60, 95, 150), (40, 65, 110), (150, 185, 230))


@dataclass(frozen=True)
class SceneOptions:
    """How hard the generated scenes are."""

    width: int = 640
    height: int = 480
    max_cards: int = 3
    empty_rate: float = 0.1
    max_tilt: float = 40.0
    finger_rate: float = 0.35
    overlap_rate: float = 0.25
    tables: tuple[str, ...] = TABLES
    card_size: tuple[float, float] = (0.30, 0.46)  # card height as a fraction of the frame height


@dataclass(frozen=True)
class Placed:
    """One card in a scene: corners TL, TR, BR, BL of the face in frame pixels."""

    card: Card
    corners: np.ndarray
    tilt: float
    occlusion: float


@dataclass
class Scene:
    image: np.ndarray
    cards: list[Placed] = field(default_factory=list)
    table: str = ""


def project(center: np.ndarray, size: tuple[float, float], rotation: float, tilt: float,
            axis: float, distance: float) -> np.ndarray:
    """Corners of a w×h card rotated in plane, tilted about an in-plane axis, seen in perspective."""
    w, h = size
    pts = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]])
    c, s = np.cos(rotation), np.sin(rotation)
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    k = np.array([np.cos(axis), np.sin(axis), 0.0])
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    rt = np.eye(3) + np.sin(tilt) * kx + (1 - np.cos(tilt)) * kx @ kx
    p = pts @ rz.T @ rt.T
    xy = distance * p[:, :2] / (distance + p[:, 2:3])
    return (xy + center).astype(np.float32)


def _warp(face: Face, corners: np.ndarray, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    fh, fw = face.bgr.shape[:2]
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners)
    img = cv2.warpPerspective(face.bgr, m, (w, h), flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(face.alpha, m, (w, h), flags=cv2.INTER_LINEAR)
    return img.astype(np.float32), alpha.astype(np.float32) / 255.0


def _place(rng: np.random.Generator, opts: SceneOptions, aspect: float,
           taken: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Corners for a new card inside the frame, not covering too much of the cards already placed."""
    for _ in range(40):
        ch = rng.uniform(*opts.card_size) * opts.height
        tilt = np.radians(rng.uniform(0, opts.max_tilt))
        corners = project(np.array([rng.uniform(0, opts.width), rng.uniform(0, opts.height)]),
                          (ch / aspect, ch), rng.uniform(0, 2 * np.pi), tilt,
                          rng.uniform(0, np.pi), ch * rng.uniform(1.8, 4.0))
        x, y = corners[:, 0], corners[:, 1]
        if x.min() < 4 or y.min() < 4 or x.max() > opts.width - 4 or y.max() > opts.height - 4:
            continue
        mask = np.zeros(taken.shape, np.uint8)
        cv2.fillConvexPoly(mask, corners.astype(np.int32), 1)
        shared = float((mask & taken).sum()) / max(1.0, float(mask.sum()))
        limit = 0.25 if rng.random() < opts.overlap_rate else 0.0
        if shared <= limit:
            return corners, float(np.degrees(tilt))
    return None


def _finger(rng: np.random.Generator, corners: np.ndarray, img: np.ndarray) -> np.ndarray:
    """Draw a finger entering the card from outside one edge; returns its mask."""
    i = int(rng.integers(4))
    a, b = corners[i], corners[(i + 1) % 4]
    centre = corners.mean(axis=0)
    edge_pt = a + (b - a) * rng.uniform(0.15, 0.85)
    inward = (centre - edge_pt) / (np.linalg.norm(centre - edge_pt) + 1e-6)
    width = np.linalg.norm(b - a) if i % 2 == 0 else np.linalg.norm(corners[1] - corners[0])
    thick = max(6, int(width * rng.uniform(0.2, 0.3)))
    tip = edge_pt + inward * width * rng.uniform(0.05, 0.3)
    base = edge_pt - inward * width * rng.uniform(0.8, 1.5) + rng.normal(0, width * 0.2, 2)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, thick, cv2.LINE_AA)
    colour = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.85, 1.1)
    m = cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32)[..., None] / 255.0
    shade = cv2.GaussianBlur(mask, (0, 0), thick / 3).astype(np.float32)[..., None] / 255.0
    img[:] = img * (1 - m) + colour * (0.7 + 0.3 * shade) * m
    return mask > 127


def _lighting(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Lighting gradient, glare, colour cast, blur, noise."""
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    grad = 1.0 + gx * (x / w - 0.5) + gy * (y / h - 0.5)
    img = img * (grad * rng.uniform(0.75, 1.1))[..., None]
    if rng.random() < 0.4:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.2) * w
        img = img + (rng.uniform(40, 110) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r)))[..., None]
    img = img * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    sigma = rng.uniform(0, 1.4)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    return img + rng.normal(0, rng.uniform(1, 5), img.shape).astype(np.float32)


def _jpeg(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 92))])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return out if decoded is None else np.asarray(decoded)


def paint_card(img: np.ndarray, face: Face, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float table image with the card painted at ``corners`` (with its shadow), and its mask."""
    fimg, alpha = _warp(face, corners, img.shape[1], img.shape[0])
    shadow = cv2.GaussianBlur(np.roll(alpha, (3, 3), (0, 1)), (0, 0), 4)[..., None]
    img = img * (1 - 0.45 * shadow)
    a = alpha[..., None]
    return img * (1 - a) + fimg * a, alpha > 0.5


def finish(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Camera effects on a painted float image: lighting, glare, colour cast, blur, noise, JPEG."""
    return _jpeg(rng, _lighting(rng, img))


def render(faces: list[Face], rng: np.random.Generator, opts: SceneOptions = SceneOptions(),
           table_kind: str | None = None) -> Scene:
    """Render the given faces (as many as fit) onto a random table."""
    kind = table_kind or str(rng.choice(opts.tables))
    img = table(kind, rng, opts.height, opts.width)
    taken = np.zeros((opts.height, opts.width), np.uint8)
    masks: list[np.ndarray] = []
    placed: list[tuple[Face, np.ndarray, float]] = []
    for face in faces:
        spot = _place(rng, opts, face.bgr.shape[0] / face.bgr.shape[1], taken)
        if spot is None:
            continue
        corners, tilt = spot
        img, own = paint_card(img, face, corners)
        masks = [m & ~own for m in masks] + [own]
        taken |= own.astype(np.uint8)
        placed.append((face, corners, tilt))
    for i, (_, corners, _) in enumerate(placed):
        if rng.random() < opts.finger_rate:
            hidden = _finger(rng, corners, img)
            masks = [m & ~hidden for m in masks]
    img = finish(img, rng)
    cards = []
    for (face, corners, tilt), mask in zip(placed, masks):
        full = np.zeros(taken.shape, np.uint8)
        cv2.fillConvexPoly(full, corners.astype(np.int32), 1)
        occlusion = 1.0 - float(mask.sum()) / max(1.0, float(full.sum()))
        cards.append(Placed(face.card, corners, tilt, max(0.0, occlusion)))
    return Scene(img, cards, kind)


def random_scene(deck: dict[Card, Face], rng: np.random.Generator,
                 opts: SceneOptions = SceneOptions()) -> Scene:
    """A scene with 0..max_cards distinct random cards of the deck."""
    n = 0 if rng.random() < opts.empty_rate else int(rng.integers(1, opts.max_cards + 1))
    cards = list(deck)
    picks = rng.choice(len(cards), size=min(n, len(cards)), replace=False)
    return render([deck[cards[int(i)]] for i in picks], rng, opts)

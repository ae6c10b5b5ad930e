"""The camera over the table, wired to the game: cards played become plays, and the envido winner's
cards shown after the hand become a show the engine checks against the declaration.

The camera looks down on the table; each seat has a region of the image (``default_regions``):
with two players A1 sits at the bottom of the image and B1 at the top; with four, A1 bottom, B1
right, A2 top, B2 left; with six, A1 B1 A2 along the bottom from left to right and B2 A3 B3 along
the top from right to left.  A table laid out otherwise gives its own boxes (``--seat-region
A1=0,0.5,0.5,1``, fractions of the image: left, top, right, bottom).  Anything doubtful is left to
the table ("no la veo").
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from rich.markup import escape

from engine.cards import Card
from engine.events import Play
from referee.vision.draw import save_annotated
from referee.vision.envido_check import EnvidoChecker
from referee.vision.recognize import Recognizer
from referee.vision.tracker import PlayTracker, SeatRegion

Log = Callable[[str], None]
SHOW_EVERY = 5  # frames between two looks at the envido winner's cards

_REGIONS: dict[int, tuple[tuple[float, float, float, float], ...]] = {
    2: ((0, .5, 1, 1), (0, 0, 1, .5)),
    4: ((.25, .6, .75, 1), (.6, .25, 1, .75), (.25, 0, .75, .4), (0, .25, .4, .75)),
    6: ((0, .5, .34, 1), (.33, .5, .67, 1), (.66, .5, 1, 1),
        (.66, 0, 1, .5), (.33, 0, .67, .5), (0, 0, .34, .5)),
}


Box = tuple[float, float, float, float]


def default_regions(seats: tuple[str, ...],
                    given: Mapping[str, Box] | None = None) -> list[SeatRegion]:
    """Each seat's part of the image, in table order (see the module docstring); ``given`` boxes
    replace the default ones of their seats."""
    given = given or {}
    boxes = _REGIONS[len(seats)]
    return [SeatRegion(seat, given.get(seat, box)) for seat, box in zip(seats, boxes)]


def parse_seat_region(text: str) -> tuple[str, Box]:
    """``"A1=0,0.5,0.5,1"`` → ("A1", (0.0, 0.5, 0.5, 1.0)); ValueError saying what is wrong."""
    seat, _, numbers = text.partition("=")
    seat = seat.strip().upper()
    parts = numbers.split(",")
    if not seat or len(parts) != 4:
        raise ValueError(f"'{text}': se escribe ASIENTO=izq,arriba,der,abajo "
                         "(p. ej. A1=0,0.5,0.5,1)")
    try:
        box = (float(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]))
    except ValueError:
        raise ValueError(f"'{text}': los cuatro bordes son números entre 0 y 1") from None
    try:
        SeatRegion(seat, box)
    except ValueError:
        raise ValueError(f"'{text}': cada borde va de 0 a 1, la izquierda antes que la derecha y "
                         "arriba antes que abajo") from None
    return seat, box


class GameService(Protocol):
    def snapshot(self) -> dict[str, Any]: ...

    def submit_line(self, line: str, origin: str = "manual") -> dict[str, Any]: ...

    def record_seen(self, text: str, picture: bytes, line: str | None = None) -> dict[str, Any]: ...


class TableCamera:
    """One frame at a time: follows the hand in the service and feeds it what the camera saw."""

    def __init__(self, service: GameService, recognizer: Recognizer, log: Log,
                 evidence_dir: Path | None = None,
                 regions: Mapping[str, Box] | None = None) -> None:
        self.service = service
        self.log = log
        self.regions = dict(regions or {})
        self._strangers = ""
        self.tracker = PlayTracker(recognizer, [])
        self.checker = EnvidoChecker(recognizer, evidence_dir)
        self._hand: int | None = None
        self._shown: set[Card] = set()  # cards read when the envido winner showed them
        self._waiting: list[Play] = []  # plays refused so far (out of turn), tried again
        self._frames = 0
        self._shown_hand: int | None = None

    def step(self, frame: np.ndarray) -> None:
        snap = self.service.snapshot()
        hand = snap.get("hand") or {}
        self._follow_hand(snap, hand)
        self._frames += 1
        if hand and not hand.get("over"):  # cards put down are plays
            self._play(self.tracker.update(frame), frame)
            return
        seat, declared = _envido_to_show(hand)  # after the hand, the envido winner shows
        if seat and self._shown_hand != hand.get("number") and self._frames % SHOW_EVERY == 0:
            self._check_show(frame, seat, declared, hand)

    def _follow_hand(self, snap: dict[str, Any], hand: dict[str, Any]) -> None:
        number = hand.get("number")
        if number != self._hand:
            self._hand = number
            self.tracker.new_hand(self._shown)  # the last hand's cards may still lie there
            self._shown = set()
            self._waiting = []
            seats = tuple(snap.get("seats") or ("A1", "B1"))
            self.tracker.seats = default_regions(seats, self.regions)
            strangers = ", ".join(sorted(set(self.regions) - set(seats)))
            if strangers and strangers != self._strangers:
                self.log(escape(f"cámara: {strangers} no juega en esta mesa; esa región no se usa"))
            self._strangers = strangers
        for seat, card in _plays_in(hand):  # played by any means (a tap, the camera)
            self.tracker.played.setdefault(card, seat)

    def _check_show(self, frame: np.ndarray, seat: str, declared: int | None,
                    hand: dict[str, Any]) -> None:
        region = next(r for r in self.tracker.seats if r.seat == seat)
        check = self.checker.check(seat, _crop(frame, region.box), declared,
                                   _played_by_others(hand, seat))
        self._shown |= {r.card for r in check.readings if r.card is not None}
        if check.event is None:
            return
        self._shown_hand = hand.get("number")
        self.log(escape(f"cámara: {check.message}"
                        + (f" (imagen guardada: {check.evidence})" if check.evidence else "")))
        line = str(check.event)
        if self._submit(line):
            self.log(escape(f"cámara: ✓ {line}"))
            if check.evidence:
                self._show(check.message, check.evidence, line)

    def _play(self, plays: list[Play], frame: np.ndarray) -> None:
        """Submit the plays seen.  Two cards seen at once (one read late, a hand over the table)
        come in the order of their names, not of the turns: a play refused waits, and is tried
        again at each frame while its card is still in sight, until the hand ends."""
        for play in plays:
            if self._submit(str(play)):
                self._played(play, frame)
            else:
                self._waiting.append(play)
        for play in [p for p in self._waiting if (p.seat, p.card) in self.tracker.in_sight]:
            if self._submit(str(play), quiet=True):
                self._waiting.remove(play)
                self._played(play, frame)

    def _submit(self, line: str, quiet: bool = False) -> bool:
        """Submit a line; False if the table refused it (said unless ``quiet``)."""
        try:
            self.service.submit_line(line, origin="camera")
        except ValueError as err:
            if not quiet:
                self.log(escape(f"cámara: ✗ {line}: {getattr(err, 'message', err)}"))
            return False
        return True

    def _played(self, play: Play, frame: np.ndarray) -> None:
        """Say a play accepted; the frame it was seen on, with the cards read drawn on it, is kept
        as evidence and shown on the pages (a full disk costs the picture, never the play)."""
        line, note = str(play), ""
        if self.checker.evidence_dir is not None:
            try:
                path = save_annotated(self.checker.evidence_dir, "jugada", line.replace(" ", "-"),
                                      frame, self.tracker.readings, line)
            except OSError as err:
                note = f" (no pude guardar la imagen: {err})"
            else:
                note = f" (imagen guardada: {path})"
                self._show(f"{play.seat} jugó el {play.card.nombre}", path, line)
        self.log(escape(f"cámara: ✓ {line}{note}"))

    def _show(self, text: str, picture: Path, line: str) -> None:
        """What the camera saw, with its picture, on the pages beside what was heard (a store
        that refuses the picture costs the picture, never the camera)."""
        try:
            self.service.record_seen(text, picture.read_bytes(), line)
        except Exception as err:  # noqa: BLE001 - the disk, the store: the play already stands
            self.log(escape(f"cámara: no pude mostrar la foto en la tablet: {err}"))


def _envido_to_show(hand: dict[str, Any]) -> tuple[str | None, int | None]:
    """The seat that won the envido with a number and has not shown yet, and that number."""
    envido = hand.get("envido") or {}
    if envido.get("status") != "decided" or envido.get("shown") is not None:
        return None, None
    said = [d for d in envido.get("declarations", []) if d.get("points") is not None]
    winners = [d for d in said if d["seat"][0] == envido.get("winner")]
    if not winners:
        return None, None
    best = max(winners, key=lambda d: d["points"])
    return best["seat"], best["points"]


def _played_by_others(hand: dict[str, Any], seat: str) -> list[Card]:
    """The cards other seats played in this hand (a card shown by ``seat`` cannot be one)."""
    return [card for who, card in _plays_in(hand) if who != seat]


def _plays_in(hand: dict[str, Any]) -> list[tuple[str, Card]]:
    """Each card played in this hand, with its seat."""
    return [(p["seat"], Card.parse(p["card"])) for r in hand.get("rounds", [])
            for p in r.get("plays", []) if p.get("card")]


def _crop(frame: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = box
    return frame[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]


def run_camera(camera: TableCamera, frames: Iterable[np.ndarray], log: Log) -> threading.Thread:
    """Feed frames to the table camera in a daemon thread; trouble is logged, never raised."""

    def run() -> None:
        try:
            for frame in frames:
                camera.step(frame)
        except Exception as err:  # noqa: BLE001 - the table goes on without the camera
            log(escape(f"cámara: se detuvo: {getattr(err, 'message', err)}"))

    thread = threading.Thread(target=run, name="camera", daemon=True)
    thread.start()
    return thread


def start_table_camera(args: argparse.Namespace, service: Any, log: Log) -> Any:
    """Open the deck's reference bank and start watching the table; the start-up line for the
    camera.  A camera missing at the start, or unplugged later, is looked for again and again
    (``CameraSource``): the game goes on without it meanwhile."""
    from models.paths import models_dir, user_data_dir
    from referee.startup import Part, said_once
    from referee.vision.camera import CameraSource
    from referee.vision.errors import VisionError
    from referee.vision.recognize import Recognizer as CardRecognizer
    from referee.vision.recognize import RecognizerSettings
    from referee.vision.reference import reference_bank

    try:
        bank = reference_bank(args.deck, models_dir(args.models_dir))
    except VisionError as err:
        return Part("cámara", False, f"{err.message}; se anota sin cámara")
    source = CameraSource(args.camera, 640, 480, on_status=said_once(log, "cámara"))
    trouble = source.open()
    evidence = (args.data_dir or user_data_dir()) / "evidencia-camara"
    regions = dict(getattr(args, "seat_region", None) or [])
    settings = RecognizerSettings(learn=getattr(args, "learn_deck", False))
    camera = TableCamera(service, CardRecognizer(bank, settings), log, evidence, regions)
    run_camera(camera, source, log)
    if trouble:
        return Part("cámara", False, f"{trouble}; se anota sin cámara y se la sigue buscando")
    return Part("cámara", True, f"cámara {args.camera}: sigue las cartas jugadas y verifica "
                "el envido que se muestra")

"""The camera over the table, wired to the game: cards played become plays, and the cards the
envido or flor winner shows after the hand (after any duel in pica-pica, or after the game's last
point) become a show the engine checks against the declaration.

The camera looks down on the table; each seat has a region of the image
(``seat_regions.default_regions``).  Anything doubtful is left to the table ("no la veo").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np
from rich.markup import escape

from engine.cards import Card
from engine.events import Play
from referee.game_snapshot import (
    ToShow,
    cards_of_last_deal,
    duels_of,
    place_of,
    played_by_others,
    plays_in,
    seats_of,
    still_at,
    to_show,
)
from referee.seat_regions import Box, default_regions
from referee.vision.camera import bgr_frame
from referee.vision.draw import jpeg
from referee.vision.envido_check import EnvidoChecker, ShowCheck
from referee.vision.recognize import Recognizer
from referee.vision.tracker import PlayTracker

Log = Callable[[str], None]
SHOW_EVERY = 5  # frames between two looks at the envido or flor winner's cards
SHOW_STEADY = 3  # looks in a row that must read the same cards (or the same doubt) to tell it


class GameService(Protocol):
    def snapshot(self) -> dict[str, Any]: ...

    def submit_line(self, line: str, origin: str = "manual") -> dict[str, Any]: ...

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]: ...


class TableCamera:
    """One frame at a time: follows the hand in the service and feeds it what the camera saw."""

    def __init__(self, service: GameService, recognizer: Recognizer, log: Log,
                 regions: Mapping[str, Box] | None = None) -> None:
        self.service = service
        self.log = log
        self.regions = dict(regions or {})
        self._strangers = ""
        self.tracker = PlayTracker(recognizer, [])
        self.checker = EnvidoChecker(recognizer)
        self._hand: int | None = None
        self._shown: set[Card] = set()  # cards read in front of a seat that had to show them
        self._waiting: dict[Play, Any] = {}  # plays refused, with the table as it was then
        self._refused: set[tuple[str, frozenset[Card]]] = set()  # shows refused in this hand
        self._sent: dict[str, int] = {}  # lines taken from the camera in this hand: where in the log
        self._overruled: set[str] = set()  # of those, the ones the table took back: never again
        self._earlier: set[Card] = set()  # cards of earlier deals that may still lie on the table
        self._looks: dict[str, tuple[object, int]] = {}  # each seat's last reading, looks in a row
        self._doubts: set[str] = set()  # seats whose doubt was said in this hand
        self._frames = 0
        self._odd = False  # an odd frame was said

    def step(self, frame: np.ndarray) -> None:
        """Cards put down in a duel still played are plays; in a duel over (or once the game
        has ended, when only the shows are left) the winner's shown cards are checked.  A frame
        no card can be read on (empty, odd) is skipped, said once."""
        usable = bgr_frame(frame)
        if usable is None:
            if not self._odd:
                self.log(escape("cámara: salteo imágenes que no se pueden leer (vacías o de un "
                                f"formato raro: {_shape(frame)})"))
            self._odd = True
            return
        frame = usable
        snap = self.service.snapshot()
        duels = duels_of(snap)
        self._follow_hand(snap, duels)
        self._follow_undos(snap)
        self._frames += 1
        ended = snap.get("chico_winner") is not None
        playing = {seat for d in duels if not (d.get("over") or ended) for seat in d["seats"]}
        if playing:
            self._play([p for p in self.tracker.update(frame) if p.seat in playing], frame)
        if self._frames % SHOW_EVERY == 0:
            for duel in duels:
                if duel.get("over") or ended:
                    self._check_duel(frame, duel, duels)

    def _follow_hand(self, snap: dict[str, Any], duels: list[dict[str, Any]]) -> None:
        number = duels[0].get("number") if duels else None
        if number != self._hand:
            self._hand = number
            # the last hand's cards may still lie there, played or shown by any means
            self.tracker.new_hand(self._shown | cards_of_last_deal(snap.get("log") or []))
            self._earlier = set(self.tracker.lying)
            self._shown, self._waiting, self._refused = set(), {}, set()
            self._sent, self._overruled, self._looks, self._doubts = {}, set(), {}, set()
            seats = seats_of(snap)
            self._say_strangers(seats)
            self.tracker.seats = default_regions(seats, self.regions)
        for seat, card in plays_in(duels):  # played by any means (a tap, the camera)
            self.tracker.played.setdefault(card, seat)

    def check_regions(self) -> None:
        """Say at once a seat region given for a seat that does not play in the game (it is said
        again whenever a hand begins with other seats, so that one no longer plays)."""
        self._say_strangers(seats_of(self.service.snapshot()))

    def _say_strangers(self, seats: tuple[str, ...]) -> None:
        """Say, once, the seat regions given for seats other than ``seats``."""
        strangers = ", ".join(sorted(set(self.regions) - set(seats)))
        if strangers and strangers != self._strangers:
            self.log(escape(f"cámara: {strangers} no juega en esta mesa; esa región no se usa"))
        self._strangers = strangers

    def _check_duel(self, frame: np.ndarray, duel: dict[str, Any],
                    duels: list[dict[str, Any]]) -> None:
        """Look at whoever may still show in this duel, until the table takes one show."""
        for due in to_show(duel):
            if self._check_show(frame, due, played_by_others(duels, due.seat)):
                return

    def _follow_undos(self, snap: dict[str, Any]) -> None:
        """A line the camera gave that is no longer in the game's log was taken back by the table:
        it is overruled, and not given again in this hand (``_submit``); said once."""
        for line, at in list(self._sent.items()):
            if not still_at(snap, at, line):
                del self._sent[line]
                self._overruled.add(line)
                self.log(escape(f"cámara: la mesa deshizo «{line}»; en esta mano no lo vuelvo "
                                "a anotar"))

    def _check_show(self, frame: np.ndarray, due: ToShow, elsewhere: list[Card]) -> bool:
        """Read the seat's shown cards and submit the show; whether the table took it.  The same
        cards must be read ``SHOW_STEADY`` looks in a row (``_steady``).  A show refused is not
        offered again in this hand: another reading may be; once the table took back a show of
        the seat, the camera leaves that seat's show to the table."""
        if any(line.startswith(f"{due.seat} shows ") for line in self._overruled):
            return False
        region = next(r for r in self.tracker.seats if r.seat == due.seat)
        refused = {cards for seat, cards in self._refused if seat == due.seat}
        crop = _crop(frame, region.box)
        check = self.checker.check(due.seat, crop, due.declared, elsewhere, due.kind, refused,
                                   stray=self._earlier & self.tracker.lying)
        self._shown |= {r.card for r in check.readings if r.card is not None}
        event = check.event
        if not self._steady(check):
            return False
        if event is None:
            self._doubt(check, crop)
            return False
        self.log(escape(f"cámara: {check.message}"))
        line = str(event)
        if not self._submit(line):
            self._refused.add((due.seat, frozenset(event.cards)))
            return False
        self.log(escape(f"cámara: ✓ {line}"))
        # the hand may go on (a lie reopened the game): the cards shown are no plays until
        # they have been picked up
        self.tracker.lying |= self._shown
        self._show(check.message, jpeg(crop, check.readings, check.message), line)
        return True

    def _steady(self, check: ShowCheck) -> bool:
        """Whether this look read what the last ``SHOW_STEADY - 1`` looks at the seat read (one
        misread frame decides nothing)."""
        seat = check.seat
        seen = frozenset(check.event.cards) if check.event else check.message
        last, looks = self._looks.get(seat, (None, 0))
        looks = looks + 1 if seen == last else 1
        self._looks[seat] = (seen, looks)
        return looks >= SHOW_STEADY

    def _doubt(self, check: ShowCheck, crop: np.ndarray) -> None:
        """A doubt that held steady, with cards in view, is said once in the hand, on the
        terminal and on the pages with the frame it was read on: the table knows the camera will
        not tell this show and has to decide it."""
        if not check.readings or check.seat in self._doubts:
            return
        self._doubts.add(check.seat)
        self.log(escape(f"cámara: {check.seat} muestra, pero {check.message}; que lo diga la mesa"))
        self._show(f"{check.seat} muestra sus cartas", jpeg(crop, check.readings, check.message),
                   None, doubt=f"{check.message}; que lo diga la mesa")

    def _play(self, plays: list[Play], frame: np.ndarray) -> None:
        """Submit the plays seen.  Two cards seen at once (one read late, a hand over the table)
        come in the order of their names, not of the turns: a play refused waits, and while its
        card is in sight it is tried again each time the table has moved on (a play, a call),
        never on the table that refused it, until the hand ends."""
        for play in plays:
            if self._submit(str(play)):
                self._played(play, frame)
            else:
                self._waiting[play] = self._table_now()
        for play in [p for p in self._waiting if (p.seat, p.card) in self.tracker.in_sight]:
            now = self._table_now()
            if self._waiting[play] == now:
                continue
            if self._submit(str(play), quiet=True):
                del self._waiting[play]
                self._played(play, frame)
            else:
                self._waiting[play] = now

    def _table_now(self) -> tuple[Any, Any]:
        """The game's log as far as telling that the table moved on: its length and last line."""
        snap = self.service.snapshot()
        log = snap.get("log") or []
        return snap.get("log_total", len(log)), log[-1] if log else None

    def _submit(self, line: str, quiet: bool = False) -> bool:
        """Submit a line; False if the table refused it (said unless ``quiet``) or had taken it
        back in this hand (``_follow_undos``).  Where it went in the log is remembered."""
        if line in self._overruled:
            return False
        try:
            snap = self.service.submit_line(line, origin="camera")
        except ValueError as err:
            if not quiet:
                self.log(escape(f"cámara: ✗ {line}: {getattr(err, 'message', err)}"))
            return False
        at = place_of(snap if snap and "log" in snap else self.service.snapshot(), line)
        if at is not None:
            self._sent[line] = at
        return True

    def _played(self, play: Play, frame: np.ndarray) -> None:
        """Say a play accepted; the frame it was seen on, with the cards read drawn on it, is kept
        with the game and shown on the pages (``_show``)."""
        line = str(play)
        self.log(escape(f"cámara: ✓ {line}"))
        self._show(f"{play.seat} jugó el {play.card.nombre}",
                   jpeg(frame, self.tracker.readings, line), line)

    def _show(self, text: str, picture: bytes, line: str | None,
              doubt: str | None = None) -> None:
        """What the camera saw, with its picture (JPEG), kept with the game and shown on the
        pages beside what was heard, or why it leaves it to the table (``doubt``); a store
        that refuses it costs the picture, never the play nor the camera."""
        try:
            self.service.record_seen(text, picture, line, doubt)
        except Exception as err:  # noqa: BLE001 - the disk, the store: the play already stands
            self.log(escape(f"cámara: no pude guardar la foto con la partida: {err}"))


def _crop(frame: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = box
    return frame[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]


def _shape(frame: object) -> str:
    return str(getattr(frame, "shape", type(frame).__name__))

"""A game of Truco as a referee keeps it: the event log, the score, and the hand in play.

The state is a pure function of the log: ``undo`` replays the log without its last event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import IllegalEvent, InvalidEvent
from engine.events import (
    TEAMS,
    Adjust,
    Call,
    Declare,
    EnvidoAside,
    EnvidoResult,
    Event,
    HandResult,
    NewHand,
    Play,
    RoundResult,
    Say,
    SetRule,
    Show,
    Team,
    in_spanish,
)
from engine.hand import Hand
from engine.settings import Settings

TRUCO = (Call.TRUCO, Call.RETRUCO, Call.VALE_CUATRO)
ENVIDO = (Call.ENVIDO, Call.REAL_ENVIDO, Call.FALTA_ENVIDO)
ANSWERS = (Call.QUIERO, Call.NO_QUIERO)
FLOR = (Call.FLOR, Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_QUIERO,
        Call.CON_FLOR_ME_ACHICO)


def pica_pica_duels(seats: tuple[str, ...], mano: str) -> list[tuple[tuple[str, str], str]]:
    """The three one-against-one duels of a pica-pica hand (each seat against the one facing it),
    each with its mano: the duel's seat that comes first from the hand's mano."""
    n = len(seats)
    start = seats.index(mano)
    rank = {seats[(start + k) % n]: k for k in range(n)}
    duels = []
    for i in range(n // 2):
        pair = (seats[i], seats[i + n // 2])
        duels.append((pair, min(pair, key=rank.__getitem__)))
    return duels


class Game:
    """One game (or a match of chicos) to 15 or 30 points."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.initial_settings = settings or Settings()
        self.events: list[Event] = []
        self._reset()

    def _reset(self) -> None:
        self.settings = self.initial_settings
        self._score: dict[Team, int] = {"A": 0, "B": 0}
        self.chicos: dict[Team, int] = {"A": 0, "B": 0}
        self.deals: list[list[Hand]] = []   # one hand each, or three duels in pica-pica
        self.chico_start = 0   # the first deal of the chico being played
        self.hand_count = 0
        self._winner: Team | None = None

    # -- the ledger a hand writes into -----------------------------------------------------------
    @property
    def score(self) -> dict[Team, int]:
        return self._score

    def credit(self, team: Team, points: int) -> None:
        self._score[team] += points
        self._winner = self._find_winner()

    # -- results ---------------------------------------------------------------------------------------
    def chico_winner(self) -> Team | None:
        """The team that reached the target in the chico being played."""
        a, b = self._score["A"], self._score["B"]
        if max(a, b) < self.settings.points:
            return None
        return "A" if a >= b else "B"

    def chicos_won(self) -> dict[Team, int]:
        """The chicos each team has won, the one just won included (``chicos`` counts it when
        the next one starts, and a match won has no next one)."""
        chico = self.chico_winner() if self.settings.match else None
        return {team: self.chicos[team] + (team == chico) for team in TEAMS}

    @property
    def winner(self) -> Team | None:
        """The winner of the game (of the match, when playing chicos), or None."""
        return self._winner

    def _find_winner(self) -> Team | None:
        chico = self.chico_winner()
        if not self.settings.match:
            return chico
        for team in TEAMS:
            if self.chicos[team] + (chico == team) >= 2:
                return team
        return None

    @property
    def over(self) -> bool:
        return self._winner is not None

    @property
    def deal(self) -> list[Hand]:
        return self.deals[-1] if self.deals else []

    @property
    def hand(self) -> Hand | None:
        """The hand in play (in pica-pica, the first duel still going, else the last one)."""
        deal = self.deal
        return next((h for h in deal if not h.over), deal[-1] if deal else None)

    @property
    def deal_over(self) -> bool:
        return all(h.over for h in self.deal)

    # -- events -------------------------------------------------------------------------------------
    def is_legal(self, event: Event) -> bool:
        try:
            self.check(event)
        except (IllegalEvent, InvalidEvent):
            return False
        return True

    def check(self, event: Event) -> None:
        """Raise ``IllegalEvent`` (or ``InvalidEvent``) with the reason if the event is refused."""
        self._dispatch(event, commit=False)

    def apply(self, event: Event) -> None:
        """Apply one event, or raise with the reason and leave the state exactly as it was."""
        try:
            self._dispatch(event, commit=True)
        except (IllegalEvent, InvalidEvent):
            raise
        except Exception:
            self._rebuild(self.events)
            raise
        self.events.append(event)

    def undo(self) -> Event:
        """Take back the last event; the state becomes what it was before it."""
        if not self.events:
            raise IllegalEvent("no hay nada para deshacer")
        last = self.events[-1]
        self._rebuild(self.events[:-1])
        return last

    def _rebuild(self, events: list[Event]) -> None:
        self._reset()
        self.events = []
        for event in events:
            self._dispatch(event, commit=True)
            self.events.append(event)

    def _dispatch(self, event: Event, commit: bool) -> None:
        handler: Callable[[Game, Any, bool], None] | None = _HANDLERS.get(type(event))
        if handler is None:
            raise InvalidEvent(f"unknown event {event!r}")
        handler(self, event, commit)

    # -- handlers ------------------------------------------------------------------------------------
    def _seat_hand(self, seat: str, event: Event) -> Hand:
        if seat not in self.settings.seats:
            raise InvalidEvent(f"{in_spanish(event)}: no hay asiento {seat} en una mesa de "
                               f"{self.settings.players} ({' '.join(self.settings.seats)})")
        self._require_playing(event)
        deal = self.deals[-1]
        return deal[0] if len(deal) == 1 else next(h for h in deal if seat in h.seats)

    def _require_playing(self, event: Event) -> None:
        if self.over:
            raise IllegalEvent(f"{in_spanish(event)}: la partida terminó")
        if not self.deals:
            raise IllegalEvent(f"{in_spanish(event)}: todavía no se repartió la mano")
        if self.settings.match and self.chico_winner() is not None:
            raise IllegalEvent(f"{in_spanish(event)}: el chico terminó; "
                               "falta repartir la mano del próximo")

    def _say(self, event: Say, commit: bool) -> None:
        hand = self._seat_hand(event.seat, event)
        call = event.call
        if call in TRUCO:
            hand.call_truco(event.seat, call, commit)
        elif call in ENVIDO:
            hand.call_envido(event.seat, call, commit)
        elif call in ANSWERS:
            hand.answer(event.seat, call, commit)
        elif call in FLOR:
            hand.flor_call(event.seat, call, commit)
        elif call is Call.SON_BUENAS:
            hand.declare(event.seat, None, commit)
        else:
            hand.mazo(event.seat, commit)

    def _declare(self, event: Declare, commit: bool) -> None:
        self._seat_hand(event.seat, event).declare(event.seat, event.points, commit)

    def _play(self, event: Play, commit: bool) -> None:
        self._seat_hand(event.seat, event).play(event.seat, event.card, commit)

    def _show(self, event: Show, commit: bool) -> None:
        if event.seat not in self.settings.seats or not self.deals:
            raise IllegalEvent(f"{in_spanish(event)}: no hay mano para mostrar")
        next(h for h in self.deal if event.seat in h.seats).show(event.seat, event.cards, commit)

    def _reported_hand(self, seat: str | None, event: Event,
                       wanted: Callable[[Hand], bool]) -> Hand:
        self._require_playing(event)
        if seat is not None:
            return self._seat_hand(seat, event)
        candidates = [h for h in self.deal if wanted(h)]
        if len(self.deal) > 1 and len(candidates) > 1:
            said = in_spanish(event)
            raise IllegalEvent(f"{said}: decí de qué duelo (un asiento, p. ej. «{said} A1»)")
        return candidates[0] if candidates else self.deal[-1]

    def _round(self, event: RoundResult, commit: bool) -> None:
        hand = self._reported_hand(event.seat, event, lambda h: not h.over)
        hand.report_round(event.winner, commit)

    def _hand_result(self, event: HandResult, commit: bool) -> None:
        hand = self._reported_hand(event.seat, event, lambda h: not h.over)
        hand.report_hand(event.winner, commit)

    def _envido_aside(self, event: EnvidoAside, commit: bool) -> None:
        self._reported_hand(event.seat, event, lambda h: h.declaring()).set_aside(commit)

    def _envido_result(self, event: EnvidoResult, commit: bool) -> None:
        """The winner of a contest of numbers: in the hand in play, or, when none waits there,
        the last one set aside in an earlier hand (``EnvidoAside``)."""
        hand = self._reported_hand(event.seat, event, lambda h: h.contest_unsettled() is not None)
        if hand.contest_unsettled() is None:
            hand = next(iter(self.set_aside_before(event.seat)), hand)
        hand.report_envido(event.winner, commit)

    def set_aside_before(self, seat: str | None = None) -> list[Hand]:
        """The hands of the chico's earlier deals (of ``seat``, if given) whose contest was set
        aside and is not decided yet, the latest first: a chico over takes its own with it."""
        return [hand for deal in reversed(self.deals[self.chico_start:-1]) for hand in deal
                if hand.contest_unsettled() and (seat is None or seat in hand.seats)]

    def _new_hand(self, event: NewHand, commit: bool) -> None:
        if self.over:
            raise IllegalEvent(f"{in_spanish(event)}: la partida terminó")
        chico_over = self.settings.match and self.chico_winner() is not None
        if self.deals and not self.deal_over and not chico_over:
            raise IllegalEvent(f"{in_spanish(event)}: la mano anterior no terminó")
        if not commit:
            return
        chico = self.chico_winner()
        if chico is not None:  # a match goes on with a new chico
            self.chico_start = len(self.deals)
            self.chicos[chico] += 1
            self._score = {"A": 0, "B": 0}
            self._winner = self._find_winner()
        seats = self.settings.seats
        mano = seats[self.hand_count % len(seats)]
        self.hand_count += 1
        if self._pica_pica_now():
            deal = [Hand(self, pair, duel_mano, self.hand_count)
                    for pair, duel_mano in pica_pica_duels(seats, mano)]
        else:
            deal = [Hand(self, seats, mano, self.hand_count)]
        self.deals.append(deal)

    def _pica_pica_now(self) -> bool:
        """Pica-pica hands alternate with full-table hands while the leader has from 5 to 24
        points (in a 30-point game; 2 to 12 in a 15-point game), as rules.md §10 says."""
        if not self.settings.pica_pica:
            return False
        low = self.settings.points // 6
        lead = max(self._score.values())
        previous_was = bool(self.deals) and len(self.deal) > 1
        return low <= lead < self.settings.points - low and not previous_was

    def _adjust(self, event: Adjust, commit: bool) -> None:
        if event.delta == 0 or abs(event.delta) > self.settings.points:
            raise InvalidEvent(f"{in_spanish(event)}: corregí entre -{self.settings.points} y "
                               f"+{self.settings.points}, sin cero")
        if self._score[event.team] + event.delta < 0:
            raise IllegalEvent(f"{in_spanish(event)}: el puntaje no puede quedar negativo")
        if event.delta > 0 and max(self._score.values()) >= self.settings.points:
            # after the end a correction fixes a mistake: it takes points away (which may reopen
            # the game), never piles them over the target (a «+1» tapped on a finished game)
            raise IllegalEvent(f"{in_spanish(event)}: la partida ya terminó; una corrección solo "
                               "puede restar (si ganó quien no era, restale primero al ganador)")
        if commit:
            self.credit(event.team, event.delta)
            self._score_kept_out()

    def _score_kept_out(self) -> None:
        """Once a correction takes the target back, score the points of the deal in play that
        the target had left out, as a false declaration shown does (rules.md §5, §12)."""
        for hand in self.deal:
            if hand.unscored:
                hand.score_unscored()

    def _set_rule(self, event: SetRule, commit: bool) -> None:
        settings = self._with_rule(event)
        if self.over:
            raise IllegalEvent(f"{in_spanish(event)}: la partida terminó")
        if self.deals and not self.deal_over:
            raise IllegalEvent(f"{in_spanish(event)}: las reglas se cambian entre manos")
        if self.deals and settings.players != self.settings.players:
            raise IllegalEvent(f"{in_spanish(event)}: "
                               "la cantidad de jugadores se elige antes de empezar")
        if commit:
            self.settings = settings
            self._winner = self._find_winner()

    def _with_rule(self, event: SetRule) -> Settings:
        """The settings with the event's rule changed, or the refusal of an unknown rule or a bad
        value (checked before the moment: such a line is wrong whenever it comes)."""
        try:
            return self.settings.with_rule(event.name, event.value)
        except InvalidEvent as err:
            raise InvalidEvent(f"{in_spanish(event)}: {err.reason}") from None


_HANDLERS: dict[type, Callable[[Game, Any, bool], None]] = {
    Say: Game._say,
    Declare: Game._declare,
    Play: Game._play,
    Show: Game._show,
    RoundResult: Game._round,
    HandResult: Game._hand_result,
    EnvidoResult: Game._envido_result,
    EnvidoAside: Game._envido_aside,
    NewHand: Game._new_hand,
    Adjust: Game._adjust,
    SetRule: Game._set_rule,
}

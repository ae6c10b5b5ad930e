"""Random legal games with dealt cards: the property tests and the benchmark play these.

A ``Simulation`` deals three cards per seat from a shuffled deck, then keeps picking a random
event among a few plausible candidates for the state (calls, answers, truthful or sometimes false
declarations, plays of the seat's own cards, shows, going to the mazo, now and then a reported
result) and applies the first one the game accepts, until the game ends.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

from engine.betting import TRUCO_NAME
from engine.cards import DECK, Card, envido_value, flor_value, has_flor
from engine.declarations import Declarations
from engine.events import (TEAMS, Call, Declare, EnvidoResult, Event, HandResult, NewHand, Play,
                           RoundResult, Say, Show, Team, other, team_of)
from engine.game import Game
from engine.hand import Hand
from engine.settings import Settings

ENVIDO_CALLS = (Call.ENVIDO, Call.REAL_ENVIDO, Call.FALTA_ENVIDO)
FLOR_ANSWERS = (Call.FLOR, Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_ME_ACHICO)
CONTRAFLOR_ANSWERS = (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO, Call.CONTRAFLOR_AL_RESTO)
MAX_EVENTS = 5000  # a game that long is stuck: the engine offers no way forward


class StuckGame(RuntimeError):
    """No candidate event was legal: a state the rules cannot get out of."""


class Simulation:
    """One random game; ``cards`` holds what each seat was dealt in the hand in play."""

    def __init__(self, settings: Settings, rng: random.Random, lies: float = 0.05,
                 reports: float = 0.03) -> None:
        self.game = Game(settings)
        self.rng = rng
        self.lies = lies          # how often a declaration (or a flor) is false
        self.reports = reports    # how often a result is told instead of played
        self.cards: dict[str, tuple[Card, ...]] = {}

    # -- driving --------------------------------------------------------------------------------
    def steps(self) -> Iterator[Event]:
        """Apply random legal events until the game ends, yielding each one after applying it."""
        game = self.game
        while not game.over:
            if len(game.events) >= MAX_EVENTS:
                raise StuckGame(f"no end after {MAX_EVENTS} events: {game.events[-5:]}")
            event = self.pick()
            game.apply(event)
            if type(event) is NewHand:
                self.deal()
            yield event

    def run(self) -> Game:
        for _ in self.steps():
            pass
        return self.game

    def deal(self) -> None:
        seats = self.game.settings.seats
        drawn = self.rng.sample(DECK, 3 * len(seats))
        self.cards = {seat: tuple(drawn[3 * i:3 * i + 3]) for i, seat in enumerate(seats)}

    def pick(self) -> Event:
        """A random legal event for the state."""
        candidates = self.candidates()
        self.rng.shuffle(candidates)
        is_legal = self.game.is_legal
        for event in candidates:
            if is_legal(event):
                return event
        raise StuckGame(f"no legal event among {[str(e) for e in candidates]} after "
                        f"{[str(e) for e in self.game.events[-8:]]}")

    # -- candidates -------------------------------------------------------------------------------
    def candidates(self) -> list[Event]:
        game = self.game
        if not game.deals:
            return [NewHand()]
        open_hands = [h for h in game.deal if not h.over]
        if not open_hands:
            return [NewHand(), *self.shows(game.deal)]
        hand = self.rng.choice(open_hands)
        events = self.hand_candidates(hand)
        if self.rng.random() < 0.1:
            events += self.shows(game.deal)
        return events

    def hand_candidates(self, hand: Hand) -> list[Event]:
        rng = self.rng
        if hand.flor_status == "pending":
            seat = rng.choice(self.team_seats(hand, other(hand.flor_by)))  # type: ignore[arg-type]
            return [Say(seat, c) for c in CONTRAFLOR_ANSWERS] + [Say(seat, Call.MAZO)]
        if hand.flor_status == "accepted":
            return self.declarations(hand, hand.flor_decl, flor=True)  # type: ignore[arg-type]
        if hand.envido_status == "pending":
            seat = rng.choice(self.team_seats(hand, other(hand.envido_by)))  # type: ignore[arg-type]
            return [Say(seat, c) for c in (Call.QUIERO, Call.NO_QUIERO, *ENVIDO_CALLS, Call.MAZO)] \
                + self.flor_candidates(hand, seat)
        if hand.envido_status == "accepted":
            return self.declarations(hand, hand.envido_decl, flor=False)  # type: ignore[arg-type]
        if hand.truco_pending is not None:
            level, team, _ = hand.truco_pending
            seat = rng.choice(self.team_seats(hand, other(team)))
            events: list[Event] = [Say(seat, Call.QUIERO), Say(seat, Call.QUIERO),
                                   Say(seat, Call.NO_QUIERO), Say(seat, Call.MAZO)]
            if level < 4:
                events.append(Say(seat, TRUCO_NAME[level + 1]))
            return events + self.bet_openings(hand, seat)
        return self.play_candidates(hand)

    def play_candidates(self, hand: Hand) -> list[Event]:
        rng = self.rng
        seat = hand.turn() or rng.choice(hand.seats)
        played = {c for r in hand.rounds for _, c in r.plays}
        events: list[Event] = [Play(seat, c) for c in self.cards[seat] if c not in played] * 3
        caller = rng.choice(hand.seats)
        if hand.truco_level < 4 and rng.random() < 0.3:
            events.append(Say(caller, TRUCO_NAME[hand.truco_level + 1]))
        events += self.bet_openings(hand, seat)
        if rng.random() < 0.05:
            events.append(Say(caller, Call.MAZO))
        if hand.flor_status == "open":
            rival = rng.choice(self.team_seats(hand, other(hand.flor_by)))  # type: ignore[arg-type]
            events += self.flor_candidates(hand, rival, FLOR_ANSWERS)
        if rng.random() < self.reports:
            winner = rng.choice(TEAMS)
            duel_seat = hand.seats[0] if len(self.game.deal) > 1 else None
            events.append(rng.choice([RoundResult(winner, duel_seat), RoundResult(None, duel_seat),
                                      HandResult(winner, duel_seat)]))
        return events

    def bet_openings(self, hand: Hand, seat: str) -> list[Event]:
        """Envido calls and the flor for a seat that has not played its first card."""
        if not hand.in_first_round or seat in hand.played_first:
            return []
        events: list[Event] = []
        if self.rng.random() < 0.4:
            events.append(Say(seat, self.rng.choice(ENVIDO_CALLS)))
        return events + self.flor_candidates(hand, seat)

    def flor_candidates(self, hand: Hand, seat: str,
                        calls: tuple[Call, ...] = (Call.FLOR,)) -> list[Event]:
        if not self.game.settings.flor:
            return []
        if has_flor(self.cards[seat]) or self.rng.random() < self.lies:
            return [Say(seat, c) for c in calls] * 2
        return []

    def declarations(self, hand: Hand, decl: Declarations, flor: bool) -> list[Event]:
        rng = self.rng
        seat = decl.next_seat()
        if seat is None:
            return []
        cards = self.cards[seat]
        if flor:
            true = flor_value(cards) if has_flor(cards) else 20 + rng.randrange(19)
        else:
            true = envido_value(cards)
        points = true
        if rng.random() < self.lies:
            points = rng.choice((rng.randrange(8), 20 + rng.randrange(19 if flor else 14)))
            points = max(points, 20) if flor else points
        events: list[Event] = [Declare(seat, points)]
        best = decl.best()
        if best is not None and (best[1] > true or (best[1] == true and rng.random() < 0.5)):
            events = [Say(seat, Call.SON_BUENAS)] * 3 + events
        if rng.random() < self.reports:
            duel_seat = hand.seats[0] if len(self.game.deal) > 1 else None
            events.append(EnvidoResult(rng.choice(TEAMS), duel_seat))
        return events

    def shows(self, deal: list[Hand]) -> list[Event]:
        """The winner of an envido or flor shows the cards it was dealt."""
        events: list[Event] = []
        for hand in deal:
            for decl in (hand.flor_decl, hand.envido_decl):
                seat = decl.winning_seat() if decl is not None else None
                if seat is not None and seat in self.cards:
                    events.append(Show(seat, self.cards[seat]))
            if hand.flor_status == "decided" and hand.flor_decl is None:
                for seat in hand.flor_sung:
                    events.append(Show(seat, self.cards[seat]))
        return events

    def team_seats(self, hand: Hand, team: Team) -> list[str]:
        return [s for s in hand.seats if team_of(s) == team]


def random_game(settings: Settings, seed: int,
                on_event: Callable[[Simulation, Event], None] | None = None) -> Game:
    """Play one random game to its end; ``on_event`` sees the simulation after every event."""
    sim = Simulation(settings, random.Random(seed))
    for event in sim.steps():
        if on_event is not None:
            on_event(sim, event)
    return sim.game

"""Random legal games with dealt cards: the property tests and the benchmark play these.

A ``Simulation`` deals three cards per seat from a shuffled deck, then keeps picking a random
event among a few plausible candidates for the state (calls, answers, truthful or sometimes false
declarations, plays of the seat's own cards, shows, going to the mazo, now and then a reported
result) and applies the first one the game accepts, until the game ends.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from engine.betting import TRUCO_NAME
from engine.cards import DECK, Card, Suit, envido_value, flor_value, has_flor
from engine.declarations import Declarations
from engine.errors import EngineError
from engine.events import (
    TEAMS,
    Call,
    Declare,
    EnvidoResult,
    Event,
    HandResult,
    NewHand,
    Play,
    RoundResult,
    Say,
    Show,
    Team,
    other,
    team_of,
)
from engine.game import Game
from engine.hand import Hand
from engine.settings import Settings

# Envido calls, weighted: the falta envido is the rarest.
ENVIDO_CALLS = (Call.ENVIDO,) * 5 + (Call.REAL_ENVIDO,) * 2 + (Call.FALTA_ENVIDO,)
FLOR_ANSWERS = (Call.FLOR, Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_ME_ACHICO)
CONTRAFLOR_ANSWERS = (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO, Call.CONTRAFLOR_AL_RESTO)
MAX_EVENTS = 5000  # a game that long is stuck: the engine offers no way forward


class StuckGame(RuntimeError):
    """No candidate event was legal: a state the rules cannot get out of."""


class Simulation:
    """One random game; ``cards`` holds what each seat was dealt in the hand in play."""

    def __init__(self, settings: Settings, rng: random.Random, lies: float = 0.05,
                 reports: float = 0.03, calls: float = 0.12, flors: float = 0.2) -> None:
        self.game = Game(settings)
        self.rng = rng
        self.lies = lies          # how often a declaration (or a flor) is false
        self.reports = reports    # how often a result is told instead of played
        self.calls = calls        # how often a seat about to play calls truco (and envido)
        self.flors = flors        # with flor on, how often a deal gives two seats a flor
        self.cards: dict[str, tuple[Card, ...]] = {}
        self.plays: dict[str, list[Play]] = {}
        self.said: dict[tuple[str, Call], Say] = {}

    # -- driving --------------------------------------------------------------------------------
    def steps(self) -> Iterator[Event]:
        """Apply random legal events until the game ends, yielding each one after applying it."""
        while not self.game.over:
            yield self.pick_and_apply()

    def apply(self, event: Event) -> None:
        """Apply an event to the game; a new hand deals new cards."""
        if len(self.game.events) >= MAX_EVENTS:
            raise StuckGame(f"no end after {MAX_EVENTS} events: {self.game.events[-5:]}")
        self.game.apply(event)
        if type(event) is NewHand:
            self.deal()

    def run(self) -> Game:
        for _ in self.steps():
            pass
        return self.game

    def deal(self) -> None:
        """Three cards per seat; with flor on, now and then two seats get a flor each."""
        rng, seats = self.rng, self.game.settings.seats
        if not self.game.settings.flor or rng.random() >= self.flors:
            drawn = rng.sample(DECK, 3 * len(seats))
        else:
            drawn = rng.sample(DECK, len(DECK))
            first, second = rng.sample(list(Suit), 2)
            flors = [c for c in drawn if c.suit is first][:3] + \
                [c for c in drawn if c.suit is second][:3]
            drawn = flors + [c for c in drawn if c not in flors]
            seats = tuple(rng.sample(seats, len(seats)))
        self.cards = {seat: tuple(drawn[3 * i:3 * i + 3]) for i, seat in enumerate(seats)}
        self.plays = {seat: [Play(seat, c) for c in cards] for seat, cards in self.cards.items()}

    def say(self, seat: str, call: Call) -> Say:
        """The event for a call; events are values, so one instance serves every game step."""
        key = (seat, call)
        event = self.said.get(key)
        if event is None:
            event = self.said[key] = Say(seat, call)
        return event

    def pick_and_apply(self) -> Event:
        """Apply the first legal event among the candidates, which come in order of preference.

        ``Game.apply`` checks before it changes anything, so trying is the same as asking.
        """
        candidates = self.candidates()
        for event in candidates:
            try:
                self.apply(event)
            except EngineError:
                continue
            return event
        raise StuckGame(f"no legal event among {[str(e) for e in candidates]} after "
                        f"{[str(e) for e in self.game.events[-8:]]}")

    # -- candidates, the preferred first -----------------------------------------------------------
    def candidates(self) -> list[Event]:
        game, rng = self.game, self.rng
        if not game.deals:
            return [NewHand()]
        deal = game.deal
        open_hands = [h for h in deal if not h.over]
        if game.settings.match and game.chico_winner() is not None:
            open_hands = []
        if not open_hands:
            return (self.shows(deal) if rng.random() < 0.3 else []) + [NewHand()]
        hand = open_hands[0] if len(open_hands) == 1 else rng.choice(open_hands)
        events = self.hand_candidates(hand)
        return self.shows(deal) + events if rng.random() < 0.02 else events

    def hand_candidates(self, hand: Hand) -> list[Event]:
        if hand.flor_status == "pending":
            seat = self.rival_seat(hand, hand.flor_by)  # type: ignore[arg-type]
            answers = [self.say(seat, c) for c in CONTRAFLOR_ANSWERS]
            return self.rotated(answers) + [self.say(seat, Call.MAZO)]
        if hand.flor_status == "accepted":
            return self.declarations(hand, hand.flor_decl, flor=True)  # type: ignore[arg-type]
        if hand.envido_status == "pending":
            seat = self.rival_seat(hand, hand.envido_by)  # type: ignore[arg-type]
            answers = [self.say(seat, Call.QUIERO), self.say(seat, Call.NO_QUIERO),
                       self.say(seat, self.rng.choice(ENVIDO_CALLS))]
            return self.flor_candidates(seat) + self.rotated(answers) + [self.say(seat, Call.MAZO)]
        if hand.envido_status == "accepted":
            return self.declarations(hand, hand.envido_decl, flor=False)  # type: ignore[arg-type]
        if hand.truco_pending is not None:
            level, team, _ = hand.truco_pending
            seat = self.rival_seat(hand, team)
            answers = [self.say(seat, Call.QUIERO), self.say(seat, Call.NO_QUIERO)]
            if level < 4:
                answers.append(self.say(seat, TRUCO_NAME[level + 1]))
            first = self.bet_openings(hand, seat) if self.rng.random() < 0.3 else []
            return first + self.rotated(answers) + [self.say(seat, Call.MAZO)]
        return self.play_candidates(hand)

    def play_candidates(self, hand: Hand) -> list[Event]:
        """Mostly a card of the seat whose turn it is; sometimes a call, the mazo or a result."""
        rng = self.rng
        seat = hand.turn() or rng.choice(hand.seats)
        plays: list[Event] = [e for e in self.plays[seat] if e.card not in hand.on_table]
        first: list[Event] = []
        r = rng.random()
        if r < self.calls:
            if hand.truco_level < 4:
                team = rng.choice(TEAMS) if hand.truco_holder is None else hand.truco_holder
                first.append(self.say(rng.choice(self.team_seats(hand, team)),
                                 TRUCO_NAME[hand.truco_level + 1]))
        elif r < 2 * self.calls:
            first = self.bet_openings(hand, seat)
        elif r < 2 * self.calls + 0.01:
            first.append(self.say(rng.choice(hand.seats), Call.MAZO))
        elif r < 2 * self.calls + 0.01 + self.reports:
            first.append(self.result(hand))
        if self.game.settings.flor and rng.random() < 0.8:
            first = self.flor_answers(hand) + self.flor_openings(hand, seat) + first
        return first + self.rotated(plays)

    def flor_openings(self, hand: Hand, seat: str) -> list[Event]:
        """A seat with flor sings it before its first card (players must)."""
        if hand.in_first_round and seat not in hand.played_first and seat not in hand.flor_sung:
            return self.flor_candidates(seat)
        return []

    def flor_answers(self, hand: Hand) -> list[Event]:
        """A rival with flor answers an open flor: flor, contraflor, al resto, me achico."""
        if hand.flor_status != "open":
            return []
        rivals = self.team_seats(hand, other(hand.flor_by))  # type: ignore[arg-type]
        with_flor = [s for s in rivals if has_flor(self.cards[s]) and s not in hand.flor_sung]
        return self.flor_candidates(self.rng.choice(with_flor or rivals), FLOR_ANSWERS)

    def result(self, hand: Hand) -> Event:
        """A round or hand result told to the referee (naming the duel in pica-pica)."""
        rng = self.rng
        seat = hand.seats[0] if len(self.game.deal) > 1 else None
        winner = rng.choice(TEAMS)
        return rng.choice((RoundResult(winner, seat), RoundResult(None, seat),
                           HandResult(winner, seat)))

    def bet_openings(self, hand: Hand, seat: str) -> list[Event]:
        """The flor (when the seat has one) or an envido call, before the seat's first card."""
        if not hand.in_first_round or seat in hand.played_first:
            return []
        return self.flor_candidates(seat) + [self.say(seat, self.rng.choice(ENVIDO_CALLS))]

    def flor_candidates(self, seat: str, calls: tuple[Call, ...] = (Call.FLOR,)) -> list[Event]:
        """Flor calls for a seat with flor (and, now and then, for one that lies)."""
        if not self.game.settings.flor:
            return []
        if has_flor(self.cards[seat]) or self.rng.random() < self.lies:
            return self.rotated([self.say(seat, c) for c in calls])
        return []

    def rotated(self, events: Sequence[Event]) -> list[Event]:
        """The events from a random one on: a cheap random preference with every fallback."""
        i = self.rng.randrange(len(events)) if len(events) > 1 else 0
        return [*events[i:], *events[:i]]

    def rival_seat(self, hand: Hand, team: Team) -> str:
        return self.rng.choice(self.team_seats(hand, other(team)))

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
            events.insert(0, self.say(seat, Call.SON_BUENAS))
        if rng.random() < self.reports:
            duel_seat = hand.seats[0] if len(self.game.deal) > 1 else None
            events.insert(0, EnvidoResult(rng.choice(TEAMS), duel_seat))
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

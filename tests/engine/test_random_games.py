"""Random legal games with dealt cards (``engine.simulate``): invariants over 10,000 games.

Each game has its seed; a failure names it and its settings, and
``engine.simulate.random_game(settings, seed)`` plays the same game again.
``TRUCO_RANDOM_GAMES`` sets how many games (default 10,000).
"""

from __future__ import annotations

import os
import random

import pytest

from engine import (
    DECK,
    Call,
    Declare,
    EngineError,
    EnvidoAside,
    EnvidoResult,
    Event,
    Game,
    HandResult,
    NewHand,
    Play,
    RoundResult,
    Say,
    Settings,
    Show,
    snapshot,
)
from engine.hand import Hand
from engine.simulate import Simulation, random_game

GAMES = int(os.environ.get("TRUCO_RANDOM_GAMES", "10000"))
BATCHES = 20
ILLEGAL_PROBES = 0.03   # per step: try a random event and, if refused, check nothing changed
UNDO_PROBES = 0.01      # per step: undo the event and apply it again

MIXES: list[Settings] = [
    Settings(),
    Settings(players=4),
    Settings(players=6),
    Settings(players=6, pica_pica=True, flor=True),
    Settings(flor=True, envido_credit="hand-end"),
    Settings(points=15, falta="malas", mazo_extra=True),
    Settings(players=4, flor=True, falta="dos-faltas", resto="falta"),
    Settings(points=15, match=True, falta="winner"),
    Settings(players=4, flor=True, envido_credit="hand-end", mazo_extra=True, falta="malas",
             contraflor_points=4),
]
ALL_SEATS = ("A1", "B1", "A2", "B2", "A3", "B3")
ENVIDO_CALL_POINTS = {Call.ENVIDO: 2, Call.REAL_ENVIDO: 3, Call.FALTA_ENVIDO: 0}


def random_event(rng: random.Random) -> Event:
    """Any event at all: a random seat, call, card, number or result."""
    seat = rng.choice(ALL_SEATS)
    team = rng.choice(("A", "B"))
    duel = rng.choice((None, seat))
    makers = (
        lambda: Say(seat, rng.choice(list(Call))),
        lambda: Play(seat, rng.choice(DECK)),
        lambda: Declare(seat, rng.randrange(-2, 41)),
        lambda: Show(seat, tuple(rng.sample(DECK, rng.choice((2, 3))))),
        lambda: RoundResult(rng.choice((team, None)), duel),
        lambda: HandResult(team, duel),
        lambda: EnvidoResult(team, duel),
        lambda: EnvidoAside(duel),
        lambda: NewHand(),
    )
    return rng.choice(makers)()  # type: ignore[no-any-return]


def hand_bounds(hand: Hand, settings: Settings) -> dict[str, int]:
    """The most each category of a hand can give, from its bets."""
    envido = 1 if settings.mazo_extra else 0
    if hand.envido_chain:   # accepted: the sum of the calls (envido 2, real envido 3), or a falta
        falta = Call.FALTA_ENVIDO in hand.envido_chain
        calls = sum(ENVIDO_CALL_POINTS[c] for c in hand.envido_chain)
        envido = max(envido, settings.points if falta else calls)
    sung = len(hand.flor_sung)
    flor = 3 * sung
    if Call.CONTRAFLOR in hand.flor_chain:
        flor = max(flor, settings.contraflor_points)
    if Call.CONTRAFLOR_AL_RESTO in hand.flor_chain:
        flor = max(flor, settings.points + 3 * sung)
    return {"envido": envido, "flor": flor, "truco": hand.truco_level if hand.over else 0}


def check_hands(game: Game, deals: list[list[Hand]]) -> None:
    for deal in deals:
        for hand in deal:
            bounds = hand_bounds(hand, game.settings)
            for category, bound in bounds.items():
                given = sum(hand.points[category].values())
                assert given <= bound, f"hand {hand.number} {category}: {given} > {bound}"
            truco = sum(hand.points["truco"].values())
            # the truco goes unscored only when the hand's flor or envido reached the target first
            unscored = any("la partida ya terminó" in note for note in hand.notes)
            assert truco == bounds["truco"] or (truco == 0 and unscored), \
                f"hand {hand.number}: truco {truco}"


def credited(deals: list[list[Hand]]) -> dict[str, int]:
    """Points the hands have put on the score (deferred envido not yet)."""
    total = {"A": 0, "B": 0}
    for deal in deals:
        for hand in deal:
            for team in total:
                total[team] += sum(hand.points[c][team] for c in hand.points)  # type: ignore[index]
            for _, team, points in hand.deferred:
                total[team] -= points
    return total


class Referee:
    """Plays one random game and checks the invariants at every step."""

    def __init__(self, settings: Settings, seed: int) -> None:
        self.sim = Simulation(settings, random.Random(seed))
        self.game = self.sim.game
        self.probe_rng = random.Random(seed ^ 0x5EED)
        self.chico_start = 0   # the first deal of the chico being played
        self.chico_ends: set[int] = set()   # deals during which a chico was won

    def play(self) -> None:
        game, sim, rng = self.game, self.sim, self.probe_rng
        while not game.over:
            before = snapshot(game) if rng.random() < UNDO_PROBES else None
            score, chicos = dict(game.score), dict(game.chicos)
            kept_out = sum(points for hand in game.deal for _, _, points, _ in hand.unscored)
            event = sim.pick_and_apply()
            self.check_score(event, score, chicos, kept_out)
            if before is not None:
                self.check_undo(event, before)
            if rng.random() < ILLEGAL_PROBES:
                self.check_refusal(random_event(rng))
        self.check_end()

    def check_score(self, event: Event, score: dict[str, int], chicos: dict[str, int],
                    kept_out: int) -> None:
        now = self.game.score
        if isinstance(event, NewHand) and chicos != self.game.chicos:
            assert now == {"A": 0, "B": 0}, f"new chico starts at {now}"
            self.chico_start = len(self.game.deals) - 1
            self.chico_ends.add(self.chico_start - 1)
        elif isinstance(event, Show):
            # a false declaration moves points; it makes none but those the target kept out (§5)
            made = sum(now.values()) - sum(score.values())
            assert 0 <= made <= kept_out, f"{event}: {score} -> {now}"
        else:
            assert all(now[t] >= score[t] for t in now), f"{event}: {score} -> {now}"  # type: ignore[index]

    def check_undo(self, event: Event, before: dict[str, object]) -> None:
        after = snapshot(self.game)
        assert str(self.game.undo()) == str(event)
        assert snapshot(self.game) == before, f"undo of {event}"
        self.game.apply(event)
        assert snapshot(self.game) == after, f"apply of {event} after undo"

    def check_refusal(self, event: Event) -> None:
        if self.game.is_legal(event):
            return
        before = snapshot(self.game)
        with pytest.raises(EngineError) as refused:
            self.game.apply(event)
        assert refused.value.reason, f"{event}: refused without a reason"
        assert snapshot(self.game) == before, f"refused {event} changed the state"

    def check_end(self) -> None:
        game = self.game
        assert game.winner is not None
        unfinished = {i for i, deal in enumerate(game.deals[:-1]) if not all(h.over for h in deal)}
        assert unfinished <= self.chico_ends, "a hand left unfinished without a chico won in it"
        check_hands(game, game.deals)
        assert credited(game.deals[self.chico_start:]) == game.score
        replayed = Game(game.initial_settings)
        for event in game.events:
            replayed.apply(event)
        assert snapshot(replayed) == snapshot(game), "replay of the log differs"


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_games(batch: int) -> None:
    per_batch = -(-GAMES // BATCHES)
    for seed in range(batch * per_batch, min((batch + 1) * per_batch, GAMES)):
        settings = MIXES[seed % len(MIXES)]
        try:
            Referee(settings, seed).play()
        except AssertionError as err:
            raise AssertionError(f"random game seed={seed} settings={settings}: {err}") from err


def test_a_seed_plays_the_same_game() -> None:
    first = random_game(Settings(players=4, flor=True), 7)
    again = random_game(Settings(players=4, flor=True), 7)
    assert [str(e) for e in first.events] == [str(e) for e in again.events]
    assert first.over and first.winner in ("A", "B")

"""One hand of Truco (or one pica-pica duel): its rounds, its bets, and who scored what.

Every handler takes ``commit``: with ``commit=False`` it only checks the event and raises
``IllegalEvent`` with the reason; with ``commit=True`` it checks first and then changes state, so
a refused event never leaves anything half-applied.
"""

from __future__ import annotations

from engine.cards import Card
from engine.errors import IllegalEvent
from engine.events import TEAMS, Call, Team, other, team_of
from engine.hand_envido import EnvidoRules
from engine.hand_flor import FlorRules
from engine.hand_state import Ledger, Round
from engine.hand_truco import TrucoRules
from engine.rounds import PARDA, RoundWinner, hand_winner, round_winner

CATEGORIES = ("envido", "flor", "truco")


class Hand(TrucoRules, EnvidoRules, FlorRules):
    """The state of one hand among ``seats`` (table order), with ``mano`` first to play."""

    def __init__(self, ledger: Ledger, seats: tuple[str, ...], mano: str, number: int) -> None:
        self.ledger = ledger
        self.seats = seats
        self.mano = mano
        self.number = number
        i = seats.index(mano)
        self.order = seats[i:] + seats[:i]
        self.rounds = [Round(mano)]
        self.on_table = set()
        self.played_first = set()
        self.winner = None
        self.over = False
        self.points = {c: {"A": 0, "B": 0} for c in CATEGORIES}
        self.notes = []
        self.deferred = []
        self.unscored = []
        self.scored_later = []
        self.init_truco()
        self.init_envido()
        self.init_flor()

    # -- what must be answered first -----------------------------------------------------------
    def blocking(self) -> str | None:
        """What must be answered before cards, results or truco can go on, or None."""
        return self.flor_blocking() or self.envido_blocking() or self.truco_blocking()

    def require_unblocked(self, what: str) -> None:
        reason = self.blocking()
        self.require(reason is None, f"{what}: {reason}")

    # -- cards and rounds ----------------------------------------------------------------------
    @property
    def current_round(self) -> Round:
        return self.rounds[-1]

    def turn(self) -> str | None:
        """The seat expected to play next, or None when any seat may start the round."""
        if self.over:
            return None
        rnd = self.current_round
        first = rnd.plays[0][0] if rnd.plays else rnd.leader
        played = len(rnd.plays)
        if first is None or played >= len(self.order):
            return None
        return self.order[(self.order.index(first) + played) % len(self.order)]

    def play(self, seat: str, card: Card, commit: bool) -> None:
        refusal = self.play_refusal(seat, card)
        if refusal is not None:
            raise IllegalEvent(f"{seat} juega {card}: {refusal}")
        if not commit:
            return
        rnd = self.current_round
        rnd.plays.append((seat, card))
        self.on_table.add(card)
        if len(self.rounds) == 1:
            self.played_first.add(seat)
        if len(rnd.plays) == len(self.seats):
            result, lead = round_winner(rnd.plays)
            self.end_round(result, lead if lead else rnd.plays[0][0])
        else:
            self.close_flor_if_unanswered()

    def play_refusal(self, seat: str, card: Card) -> str | None:
        """Why the seat may not play this card now, or None.  (The hottest check of the engine:
        the reason text is built only for a refusal.)"""
        if self.over:
            return self.over_reason()
        blocked = self.blocking()
        if blocked is not None:
            return blocked
        if card in self.on_table:
            return "esa carta ya está en la mesa"
        if any(s == seat for s, _ in self.current_round.plays):
            return "ya jugó en esta vuelta"
        expected = self.turn()
        if expected is not None and expected != seat:
            return f"le toca a {expected}"
        return None

    def report_round(self, winner: Team | None, commit: bool) -> None:
        what = f"vuelta {winner or 'parda'}"  # as the notation says it
        self.require_open(what)
        self.require_unblocked(what)
        if not commit:
            return
        rnd = self.current_round
        result: RoundWinner = winner or PARDA  # type: ignore[assignment]
        team_seats = [s for s in self.seats if team_of(s) == winner]
        lead = team_seats[0] if len(team_seats) == 1 else None
        self.end_round(result, lead if winner else rnd.leader)

    def end_round(self, result: RoundWinner, next_leader: str | None) -> None:
        self.current_round.result = result
        if len(self.rounds) == 1:
            self.close_flor_if_unanswered(force=True)
        results = [r.result for r in self.rounds if r.result is not None]
        winner = hand_winner(results, self.mano_team)
        if winner is not None:
            self.finish(winner, self.truco_value(), "truco" if self.truco_level > 1 else "la mano")
        else:
            self.rounds.append(Round(next_leader))

    def report_hand(self, winner: Team, commit: bool) -> None:
        what = f"mano {winner}"
        self.require_open(what)
        self.require_unblocked(what)
        if commit:
            self.finish(winner, self.truco_value(), "truco" if self.truco_level > 1 else "la mano")

    # -- leaving and ending ----------------------------------------------------------------------
    def mazo(self, seat: str, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat} se va al mazo"
        self.require_open(what)
        self.require(not self.declaring(), f"{what}: primero se dicen los tantos")
        self.require(self.own_bet_pending(team) is None,
                     f"{what}: {self.own_bet_pending(team)} espera respuesta")
        if not commit:
            return
        winner = other(team)
        extra = self.settings.mazo_extra and self.bets_untouched() and self.envido_callable()
        self.refuse_pending_bets(winner)
        if extra:
            self.score_points("envido", winner, 1, "mazo sin envido en primera")
        self.finish(winner, self.truco_value(), f"{seat} se fue al mazo")

    def finish(self, winner: Team, truco_points: int, why: str) -> None:
        """End the hand: the open flor, then envido credited at hand end, then the truco, until a
        team reaches the target (``target_reached``)."""
        self.close_flor_if_unanswered(force=True)
        self.over = True
        self.winner = winner
        self.truco_pending = None
        for category, team, points in self.deferred:
            if self.target_reached():
                self.points[category][team] -= points
                self.note_unscored(category, team, points, category)
            else:
                self.ledger.credit(team, points)
        self.deferred = []
        self.score_points("truco", winner, truco_points, why)

    # -- answers shared by the bets ----------------------------------------------------------------
    def answer(self, seat: str, call: Call, commit: bool) -> None:
        """Quiero / no quiero: answers the innermost pending bet (envido before truco)."""
        what = f"{seat}: {call.value}"
        self.require_open(what)
        if self.envido_status == "pending":
            return self.answer_envido(seat, call, commit)
        # with a flor sung, quiero answers only a truco of the other team left waiting; once the
        # truco is answered the flor sung takes no more answers (rules.md §7)
        truco_to_answer = self.truco_pending is not None and self.truco_pending[1] != team_of(seat)
        flor_answerable = self.flor_status == "open" and self.truco_level == 1
        flor_waits = self.flor_status == "pending" or (flor_answerable and not truco_to_answer)
        self.require(not flor_waits, f"{what}: {self.flor_answers(call.value)}")
        self.require(not self.declaring(), f"{what}: primero se dicen los tantos")
        return self.answer_truco(seat, call, commit)

    def declaring(self) -> bool:
        return self.flor_declaring() or self.envido_declaring()

    def own_bet_pending(self, team: Team) -> str | None:
        """This team's bet that the table is waiting on (the innermost pending one), if any.

        With A's truco and B's envido both pending, A may still leave: leaving refuses B's envido.
        """
        if self.flor_status == "pending":
            return "la contraflor" if self.flor_by == team else None
        if self.envido_status == "pending":
            return "el envido" if self.envido_by == team else None
        if self.truco_pending and self.truco_pending[1] == team:
            return "el truco"
        return None

    def refuse_pending_bets(self, winner: Team) -> None:
        if self.envido_status == "pending":
            self.refuse_envido()
        if self.flor_status == "pending":
            self.refuse_flor()

    def points_total(self) -> dict[Team, int]:
        return {t: sum(self.points[c][t] for c in CATEGORIES) for t in TEAMS}

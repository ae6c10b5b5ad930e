"""Envido, real envido, falta envido: the chain, its answers, the declarations and the proof."""

from __future__ import annotations

from engine.betting import ENVIDO_CHAINS, falta_points
from engine.cards import Card, envido_values_made, is_possible_envido
from engine.declarations import Declarations
from engine.errors import IllegalEvent
from engine.events import Call, Team, other, team_of
from engine.hand_state import HandState

# pending: called, waiting for an answer; accepted: declaring; aside: its numbers were not heard
# and the hand went on, it waits for the table to say who won it; refused / decided: settled;
# cancelled: a flor took its place.
ENVIDO_STATUSES = ("none", "pending", "accepted", "aside", "refused", "decided", "cancelled")


class EnvidoRules(HandState):
    """Mixed into ``Hand``: the envido bet."""

    def init_envido(self) -> None:
        self.envido_chain = ()
        self.envido_by = None
        self.envido_status = "none"
        self.envido_decl = None
        self.envido_winner = None
        self.envido_worth = 0
        self.envido_shown = None  # None: not shown; True: the cards made it; False: they did not

    def envido_declaring(self) -> bool:
        return self.envido_status == "accepted"

    def envido_blocking(self) -> str | None:
        if self.envido_status == "pending":
            assert self.envido_by is not None
            return f"{other(self.envido_by)} tiene que contestar el envido"
        if self.envido_status == "accepted":
            return "faltan los tantos del envido"
        return None

    def call_envido(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat}: {call.value}"
        self.require_open(what)
        self.require(self.in_first_round, f"{what}: el envido se canta solo en la primera vuelta")
        self.require(self.flor_status == "none", f"{what}: con flor no hay envido")
        if self.envido_status == "pending":
            # a raise answers the envido: the answering team may raise it after its first card,
            # as it may accept it [IT] (rules.md §3)
            self.require(team != self.envido_by, f"{what}: {team} ya cantó, contesta {other(team)}")
            self.require(self.envido_chain + (call,) in ENVIDO_CHAINS,
                         f"{what}: no se puede cantar después de {self._chain_text()}")
        else:
            self.require(seat not in self.played_first, f"{what}: ya jugó su primera carta")
            self.require(self.envido_status == "none", f"{what}: el envido ya se jugó en esta mano")
            self.require(self.envido_in_time(team), f"{what}: {self.envido_too_late(team)}")
        if not commit:
            return
        self.envido_chain += (call,)
        self.envido_by = team
        self.envido_status = "pending"

    def envido_in_time(self, team: Team) -> bool:
        """Envido (or flor) before any truco, or in answer to a first truco: the envido is first."""
        if self.truco_pending is None:
            return self.truco_level == 1
        level, caller, _ = self.truco_pending
        return level == 2 and caller != team

    def envido_callable(self) -> bool:
        """Whether some seat could call envido now, asked of ``call_envido`` itself so that the
        extra point of ``mazo_extra`` (rules.md §9) follows the same rule as the call."""
        for seat in self.seats:
            try:
                self.call_envido(seat, Call.ENVIDO, commit=False)
            except IllegalEvent:
                continue
            return True
        return False

    def envido_too_late(self, team: Team) -> str:
        """Why envido (or flor) is no longer in time for this team."""
        if self.truco_pending is not None and self.truco_level == 1:
            return f"{team} cantó el truco: el envido está primero solo para {other(team)}"
        return "el truco ya fue querido"

    def _chain_text(self) -> str:
        return " ".join(c.value for c in self.envido_chain)

    def answer_envido(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        self.require(team != self.envido_by, f"{seat}: {call.value}: contesta {other(team)}")
        if not commit:
            return
        if call is Call.QUIERO:
            self.envido_status = "accepted"
            self.envido_decl = Declarations(self.order)
            self.notes.append(f"{self._chain_text()} querido por {team}")
            self.settle_envido_if_decided()
        else:
            self.refuse_envido()

    def refuse_envido(self) -> None:
        assert self.envido_by is not None
        self.envido_status = "refused"
        self.envido_winner = self.envido_by
        self.envido_worth = ENVIDO_CHAINS[self.envido_chain][1]
        self.score_points("envido", self.envido_by, self.envido_worth,
                          f"{self._chain_text()} no querido", self.credit_deferred())

    def declare(self, seat: str, points: int | None, commit: bool) -> None:
        """A number sung for the open contest (flor first), or son buenas when points is None."""
        flor = self.flor_declaring()
        decl = self.flor_decl if flor else (self.envido_decl if self.envido_declaring() else None)
        what = f"{seat}: {'son buenas' if points is None else points}"
        self.require(decl is not None, f"{what}: no hay tantos para decir ahora")
        assert decl is not None
        expected = decl.next_seat()
        self.require(expected == seat, f"{what}: le toca decir a {expected}")
        if points is None:
            self.require(decl.best() is not None, f"{what}: la mano dice primero sus tantos")
        else:
            self.require(is_possible_envido(points, flor),
                         f"{what}: {points} no es {'una flor' if flor else 'un envido'} posible")
        if not commit:
            return
        decl.said.append((seat, points))
        if flor:
            self.settle_flor_if_decided()
        else:
            self.settle_envido_if_decided()

    def contest_unsettled(self) -> str | None:
        """The contest of numbers accepted and not decided ("envido" or "flor"), whether its
        numbers are being said or were set aside, or None."""
        if self.flor_status in ("accepted", "aside"):
            return "flor"
        if self.envido_status in ("accepted", "aside"):
            return "envido"
        return None

    def set_aside(self, commit: bool) -> None:
        """The numbers of the open contest were not heard and the hand went on: the contest
        stops holding the hand up and waits for the table to say who won it
        (``report_envido``)."""
        self.require(self.flor_declaring() or self.envido_declaring(),
                     "envido aparte: no hay tantos por decir")
        if not commit:
            return
        if self.flor_declaring():
            self.flor_status = "aside"
            self.notes.append("los tantos de la flor no se oyeron: falta decir quién la ganó")
        else:
            self.envido_status = "aside"
            self.notes.append("los tantos del envido no se oyeron: falta decir quién lo ganó")

    def report_envido(self, winner: Team, commit: bool) -> None:
        """The winner of the open contest, told to the referee when the numbers were not heard
        (also once the hand went on without them, ``set_aside``)."""
        contest = self.contest_unsettled()
        decl = self.flor_decl if contest == "flor" else self.envido_decl
        self.require(contest is not None and decl is not None,
                     f"envido para {winner}: no hay tantos por decidir")
        if not commit:
            return
        assert decl is not None
        decl.reported = winner
        if contest == "flor":
            self.settle_flor_if_decided()
        else:
            self.settle_envido_if_decided()

    def settle_envido_if_decided(self) -> None:
        decl = self.envido_decl
        if decl is None or not decl.decided:
            return
        winner = decl.winner()
        assert winner is not None
        accepted = ENVIDO_CHAINS[self.envido_chain][0]
        self.envido_worth = accepted if accepted is not None else falta_points(
            self.settings, self.ledger.score, winner)
        self.envido_status = "decided"
        self.envido_winner = winner
        self.score_points("envido", winner, self.envido_worth, f"{self._chain_text()} querido",
                          self.credit_deferred())

    def show(self, seat: str, cards: tuple[Card, ...], commit: bool) -> None:
        """The winner shows the cards behind the declaration; false cards give the points away."""
        what = f"{seat} muestra {' '.join(map(str, cards))}"
        if self.flor_status == "decided" and self.flor_shown is None:
            return self.show_flor(seat, cards, commit)
        self.require(self.envido_status == "decided" and self.envido_decl is not None,
                     f"{what}: no hay envido ganado para mostrar")
        assert self.envido_decl is not None
        self.require(self.envido_shown is None, f"{what}: el envido ya se mostró")
        winning = self.envido_decl.winning_seat()
        self.require(winning is not None, f"{what}: el envido se dio por resultado, sin tantos")
        self.require(winning == seat, f"{what}: muestra quien ganó el envido ({winning})")
        self.require(2 <= len(cards) <= 3, f"{what}: se muestran dos o tres cartas")
        self.require_cards_not_elsewhere(seat, cards, what)
        if not commit:
            return
        declared = self.envido_decl.declared_by(seat)
        self.envido_shown = declared in envido_values_made(cards)
        if not self.envido_shown:
            self.give_away("envido", f"{seat} cantó {declared} y no lo tenía")

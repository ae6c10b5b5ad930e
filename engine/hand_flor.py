"""Flor (when the table plays it): singing it, the answers, the contest, and the proof."""

from __future__ import annotations

from engine.betting import flor_level_points, flor_refused_points
from engine.cards import Card, flor_value, has_flor
from engine.declarations import Declarations
from engine.events import Call, Team, other, team_of
from engine.hand_state import HandState

# open: sung, the other team may still answer; pending: a contraflor waits for an answer;
# accepted: declaring; aside: its numbers were not heard (as the envido's); decided: settled.
FLOR_STATUSES = ("none", "open", "pending", "accepted", "aside", "decided")

# What answers the flor at each step of its chain (rules.md §7) [IT].
FLOR_ANSWERS: dict[tuple[Call, ...], tuple[Call, ...]] = {
    (): (Call.FLOR, Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO, Call.CON_FLOR_ME_ACHICO),
    (Call.CONTRAFLOR,): (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO, Call.CONTRAFLOR_AL_RESTO),
    (Call.CONTRAFLOR_AL_RESTO,): (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO),
    (Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO): (Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO),
}


class FlorRules(HandState):
    """Mixed into ``Hand``: the flor."""

    def init_flor(self) -> None:
        self.flor_sung = []
        self.flor_chain = ()        # contraflor, contraflor al resto
        self.flor_by = None         # the team that sang or raised last
        self.flor_status = "none"
        self.flor_decl = None
        self.flor_winner = None
        self.flor_worth = 0
        self.flor_shown = None

    def flor_declaring(self) -> bool:
        return self.flor_status == "accepted"

    def flor_blocking(self) -> str | None:
        if self.flor_status == "pending":
            assert self.flor_by is not None
            return f"{other(self.flor_by)} tiene que contestar la {self.flor_chain[-1].value}"
        if self.flor_status == "accepted":
            return "faltan los tantos de la flor"
        return None

    def flor_answers(self, said: str | None = None) -> str:
        """What answers the flor in play, as a player reads it (after what was ``said`` instead):
        «a la flor no se le contesta quiero: se contesta flor, contraflor, …»."""
        name = self.flor_chain[-1].value if self.flor_chain else "flor"
        *first, last = (c.value for c in FLOR_ANSWERS[self.flor_chain])
        answers = f"se contesta {', '.join(first)} o {last}"
        return f"a la {name} no se le contesta {said}: {answers}" if said else f"a la {name} {answers}"

    def bets_untouched(self) -> bool:
        return self.envido_status == "none" and self.flor_status == "none"

    def _require_can_sing(self, seat: str, what: str) -> None:
        self.require_open(what)
        self.require(self.in_first_round, f"{what}: la flor se canta en la primera vuelta")
        self.require(seat not in self.played_first, f"{what}: ya jugó su primera carta")
        self.require(seat not in self.flor_sung, f"{what}: ya cantó flor")
        # an envido a flor cancelled is no bar to the flors that answer that flor
        self.require(self.envido_status in ("none", "pending", "cancelled"),
                     f"{what}: el envido ya se jugó")
        # a truco answered closes the flor for every seat that has not sung it, the flors that
        # answer an open one too: a seat that kept its flor past it lost it
        self.require(self.truco_level == 1, f"{what}: el truco ya fue querido")

    def flor_call(self, seat: str, call: Call, commit: bool) -> None:
        what = f"{seat}: {call.value}"
        self.require_open(what)
        self.require(self.settings.flor, f"{what}: se juega sin flor")
        handler = {
            Call.FLOR: self._sing_flor,
            Call.CONTRAFLOR: self._raise_flor,
            Call.CONTRAFLOR_AL_RESTO: self._raise_flor,
            Call.CON_FLOR_QUIERO: self._accept_flor,
            Call.CON_FLOR_ME_ACHICO: self._achicarse,
        }[call]
        handler(seat, call, commit)

    def _sing_flor(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat}: flor"
        self._require_can_sing(seat, what)
        self.require(self.flor_status in ("none", "open") or self._contest_can_grow(),
                     f"{what}: la flor ya está en juego")
        if self.flor_status == "none" and self.envido_status != "pending":
            # an envido in play may always be answered with a flor, even by the team whose truco
            # the envido was sung against
            self.require(self.envido_in_time(team), f"{what}: {self.envido_too_late(team)}")
        if not commit:
            return
        if self.envido_status == "pending":
            self.envido_status = "cancelled"
            self.notes.append("la flor anuló el envido")
        self.flor_sung.append(seat)
        if self.flor_status == "none":
            self.flor_status, self.flor_by = "open", team
        elif self.flor_status == "accepted" or self.flor_by != team:
            self._open_contest()  # flor against flor: the best flor takes 3 for each one sung

    def _contest_can_grow(self) -> bool:
        """A flor-against-flor contest still takes more flors (4 or 6 players) until the
        first number is declared."""
        return (self.flor_status == "accepted" and not self.flor_chain
                and self.flor_decl is not None and not self.flor_decl.said)

    def _require_answer_in_time(self, seat: str, what: str) -> None:
        """A seat that has not sung answers the other team's flor only while it could still sing
        one: the truco answered closed that flor (scored at once), and the refusal says why."""
        if seat not in self.flor_sung and self.flor_by not in (None, team_of(seat)):
            self.require(self.truco_level == 1, f"{what}: el truco ya fue querido")

    def _raise_flor(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat}: {call.value}"
        self.require_open(what)
        self._require_answer_in_time(seat, what)
        self.require(self.flor_status in ("open", "pending") and self.flor_by != team,
                     f"{what}: se contesta a una flor del otro equipo")
        if self.flor_status == "pending":
            self.require(call in FLOR_ANSWERS[self.flor_chain], f"{what}: {self.flor_answers()}")
        if seat not in self.flor_sung:  # a raise says the seat has a flor: in time to sing it
            self._require_can_sing(seat, what)
        if not commit:
            return
        if seat not in self.flor_sung:
            self.flor_sung.append(seat)
        self.flor_chain += (call,)
        self.flor_status, self.flor_by = "pending", team

    def _accept_flor(self, seat: str, call: Call, commit: bool) -> None:
        what = f"{seat}: con flor quiero"
        self.require_open(what)
        self._require_answer_in_time(seat, what)
        self.require(self.flor_status == "pending" and self.flor_by != team_of(seat),
                     f"{what}: no hay contraflor para querer")
        if seat not in self.flor_sung:  # «con flor quiero» says the seat has a flor
            self._require_can_sing(seat, what)
        if commit:
            if seat not in self.flor_sung:
                self.flor_sung.append(seat)
            self.notes.append(f"{self.flor_chain[-1].value} querida por {team_of(seat)}")
            self._open_contest()

    def _achicarse(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat}: con flor me achico"
        self.require_open(what)
        self._require_answer_in_time(seat, what)
        self.require(self.flor_status in ("open", "pending") and self.flor_by != team,
                     f"{what}: no hay flor del otro equipo")
        if self.flor_status == "open":  # a flor of its own: in time to sing it
            self._require_can_sing(seat, what)
        if not commit:
            return
        if self.flor_status == "open":  # has a flor too, but gives the contest away
            self.flor_sung.append(seat)
        self.refuse_flor()

    def refuse_flor(self) -> None:
        """The flor goes to the team that sang or raised last (see ``flor_refused_points``)."""
        winner = self.flor_by
        assert winner is not None
        own = sum(1 for s in self.flor_sung if team_of(s) == winner)
        chain = self.flor_chain if self.flor_status == "pending" else ()
        self.flor_worth = flor_refused_points(self.settings, chain, own)
        self.flor_status, self.flor_winner = "decided", winner
        self.score_points("flor", winner, self.flor_worth, "con flor me achico",
                          self.credit_deferred())

    def _open_contest(self) -> None:
        self.flor_status = "accepted"
        self.flor_decl = Declarations(tuple(s for s in self.order if s in self.flor_sung))

    def settle_flor_if_decided(self) -> None:
        decl = self.flor_decl
        if decl is None or not decl.decided:
            return
        winner = decl.winner()
        assert winner is not None
        level = self.flor_chain[-1] if self.flor_chain else None
        self._settle_flor(winner, level, f"{level.value if level else 'flor'} ganada")

    def close_flor_if_unanswered(self, force: bool = False) -> None:
        """An open flor goes to its team the moment nobody can answer it any more (rules.md §7):
        the truco answered, every seat of the other team past its first card, the first round
        over (``force``) or the hand over (``force``)."""
        if self.flor_status != "open":
            return
        rivals = [s for s in self.seats if team_of(s) != self.flor_by]
        if force or self.truco_level > 1 or all(s in self.played_first for s in rivals):
            assert self.flor_by is not None
            self._settle_flor(self.flor_by, None, "flor")

    def _settle_flor(self, winner: Team, level: Call | None, why: str) -> None:
        self.flor_worth = flor_level_points(self.settings, level, len(self.flor_sung),
                                            self.ledger.score, winner)
        self.flor_status, self.flor_winner = "decided", winner
        self.score_points("flor", winner, self.flor_worth, why, self.credit_deferred())

    def show_flor(self, seat: str, cards: tuple[Card, ...], commit: bool) -> None:
        what = f"{seat} muestra {' '.join(map(str, cards))}"
        decl = self.flor_decl
        winning = decl.winning_seat() if decl else None
        allowed = seat == winning if winning else (
            seat in self.flor_sung and team_of(seat) == self.flor_winner)
        self.require(allowed, f"{what}: muestra quien ganó la flor")
        self.require(len(cards) == 3, f"{what}: la flor se muestra con tres cartas")
        self.require_cards_not_elsewhere(seat, cards, what)
        if not commit:
            return
        declared = decl.declared_by(seat) if decl and winning else None
        self.flor_shown = has_flor(cards) and (declared is None or flor_value(cards) == declared)
        if not self.flor_shown:
            self.give_away("flor", f"{seat} cantó flor y no la tenía")

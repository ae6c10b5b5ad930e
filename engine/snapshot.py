"""The game as plain data (JSON-able): what the scoreboard shows and ``replay --json`` prints."""

from __future__ import annotations

from typing import Any

from engine.betting import ENVIDO_CHAINS, TRUCO_NAME, falta_needs_winner, falta_points
from engine.events import Team, other
from engine.game import Game
from engine.hand import Hand

BANNERS = {
    "truco": "¡TRUCO! — ¿quiero?",
    "retruco": "¡RETRUCO! — ¿quiero?",
    "vale cuatro": "¡VALE CUATRO! — ¿quiero?",
    "envido": "¡ENVIDO! — ¿quiero?",
    "real envido": "¡REAL ENVIDO! — ¿quiero?",
    "falta envido": "¡FALTA ENVIDO! — ¿quiero?",
    "contraflor": "¡CONTRAFLOR! — ¿con flor quiero?",
    "contraflor al resto": "¡CONTRAFLOR AL RESTO! — ¿con flor quiero?",
}


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a scoreboard needs, as plain data."""
    return {
        "score": dict(game.score),
        "winner": game.winner,
        "chico_winner": game.chico_winner(),
        "target": game.settings.points,
        "settings": game.settings.to_dict(),
        "seats": list(game.settings.seats),
        "chicos": game.chicos_won(),
        "hand": hand_view(game.hand) if game.hand else None,
        "duels": [hand_view(h) for h in game.deal] if len(game.deal) > 1 else [],
        "hands": [deal_record(deal) for deal in game.deals],
        "set_aside": set_aside_view(game),
        "log": [str(e) for e in game.events],
    }


def deal_record(deal: list[Hand]) -> dict[str, Any]:
    """Who scored what in one hand (all duels together in pica-pica), and why.

    ``points`` are all the hand's points; ``scored_later`` lists those of them scored only once
    a later event (a correction, a false show: ``event`` indexes the log) took the target back,
    after the end of the game had left them out."""
    points = {c: {"A": 0, "B": 0} for c in ("envido", "flor", "truco")}
    notes: list[str] = []
    for hand in deal:
        for category, by_team in hand.points.items():
            for team, p in by_team.items():
                points[category][team] += p
        notes += hand.notes
    later = sorted((index, category, team, p) for hand in deal
                   for category, team, p, index in hand.scored_later)
    return {"number": deal[0].number, "mano": deal[0].mano if len(deal) == 1 else None,
            "pica_pica": len(deal) > 1, "over": all(h.over for h in deal),
            "winner": deal[0].winner if len(deal) == 1 else None,
            "points": points, "notes": notes,
            "scored_later": [{"category": category, "team": team, "points": p, "event": index}
                             for index, category, team, p in later]}


def set_aside_view(game: Game) -> list[dict[str, Any]]:
    """The contests of the chico's earlier hands whose numbers were not heard and that wait for
    the table to say who won them (``EnvidoAside``), the earliest first, each with the seats
    of its hand (of its duel, in pica-pica)."""
    return [{"hand": hand.number, "contest": hand.contest_unsettled(), "seats": list(hand.seats)}
            for hand in reversed(game.set_aside_before())]


def hand_view(hand: Hand) -> dict[str, Any]:
    return {
        "number": hand.number,
        "seats": list(hand.seats),
        "mano": hand.mano,
        "turn": hand.turn(),
        "over": hand.over,
        "winner": hand.winner,
        "rounds": [{"plays": [{"seat": s, "card": str(c)} for s, c in r.plays],
                    "winner": r.result, "leader": r.leader} for r in hand.rounds],
        "truco": truco_view(hand),
        "envido": envido_view(hand),
        "flor": flor_view(hand),
        "pending": pending_view(hand),
        "points": {c: dict(p) for c, p in hand.points.items()},
        "notes": list(hand.notes),
    }


def truco_view(hand: Hand) -> dict[str, Any]:
    pending = None
    if hand.truco_pending:
        level, team, seat = hand.truco_pending
        pending = {"call": TRUCO_NAME[level].value, "by": team, "seat": seat,
                   "quiero": level, "no_quiero": level - 1}
    return {"level": hand.truco_level, "value": hand.truco_value(),
            "call": TRUCO_NAME[hand.truco_level].value if hand.truco_level > 1 else None,
            "holder": hand.truco_holder, "pending": pending,
            "refused": TRUCO_NAME[hand.truco_refused].value if hand.truco_refused else None}


def envido_view(hand: Hand) -> dict[str, Any]:
    chain = hand.envido_chain
    accepted, refused = ENVIDO_CHAINS.get(chain, (None, 0)) if chain else (0, 0)
    decl = hand.envido_decl
    if chain and accepted is None:
        score = hand.ledger.score
        accepted = None if falta_needs_winner(hand.settings, score) else falta_points(
            hand.settings, score, None)
    return {"chain": [c.value for c in chain], "status": hand.envido_status,
            "by": hand.envido_by, "quiero": accepted, "no_quiero": refused,
            "declarations": decl.to_list() if decl else [],
            "next_declarer": decl.next_seat() if decl and hand.envido_status == "accepted" else None,
            "winner": hand.envido_winner, "points": hand.envido_worth, "shown": hand.envido_shown}


def flor_view(hand: Hand) -> dict[str, Any]:
    decl = hand.flor_decl
    return {"sung": list(hand.flor_sung), "chain": [c.value for c in hand.flor_chain],
            "status": hand.flor_status, "by": hand.flor_by,
            "declarations": decl.to_list() if decl else [],
            "next_declarer": decl.next_seat() if decl and hand.flor_status == "accepted" else None,
            "winner": hand.flor_winner, "points": hand.flor_worth, "shown": hand.flor_shown}


def pending_view(hand: Hand) -> dict[str, Any] | None:
    """The call the table is waiting on, innermost first, with its banner."""
    if hand.over:
        return None
    if hand.flor_status == "pending":
        call = hand.flor_chain[-1].value
        return _pending("flor", call, call, hand.flor_by)
    if hand.flor_status == "accepted" and hand.flor_decl:
        return _declare("flor", hand.flor_decl.next_seat())
    if hand.envido_status == "pending":
        chain = " ".join(c.value for c in hand.envido_chain)
        return _pending("envido", chain, hand.envido_chain[-1].value, hand.envido_by)
    if hand.envido_status == "accepted" and hand.envido_decl:
        return _declare("envido", hand.envido_decl.next_seat())
    if hand.truco_pending:
        level, team, _ = hand.truco_pending
        call = TRUCO_NAME[level].value
        return _pending("truco", call, call, team)
    return None


def _pending(kind: str, call: str, last: str, by: Team | None) -> dict[str, Any]:
    return {"kind": kind, "call": call, "by": by, "answer_by": other(by) if by else None,
            "banner": BANNERS[last]}


def _declare(kind: str, seat: str | None) -> dict[str, Any]:
    what = "de la flor" if kind == "flor" else "del envido"
    return {"kind": "declare", "call": kind, "by": None, "answer_by": seat,
            "banner": f"Tantos {what}: le toca a {seat}" if seat else ""}

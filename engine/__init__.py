"""The rules of Truco as a referee applies them: pure Python, standard library only, no I/O.

Feed a ``Game`` events (what was said, cards seen, results reported); ask it what is legal;
read the score.  ``snapshot(game)`` gives the whole state as plain data.
"""

from engine.cards import DECK, Card, Suit, envido_value, flor_value, has_flor, parse_cards
from engine.errors import EngineError, IllegalEvent, InvalidEvent
from engine.events import (
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
    other,
    team_of,
)
from engine.game import Game
from engine.settings import Settings
from engine.snapshot import snapshot

__all__ = [
    "DECK",
    "Adjust", "Call", "Card", "Declare", "EngineError", "EnvidoAside", "EnvidoResult", "Event", "Game",
    "HandResult", "IllegalEvent", "InvalidEvent", "NewHand", "Play", "RoundResult", "Say",
    "SetRule", "Settings", "Show", "Suit", "Team",
    "envido_value", "flor_value", "has_flor", "other", "parse_cards", "snapshot", "team_of",
]

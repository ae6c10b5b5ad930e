"""The rules of the game the command line can set (``serve``, ``listen``): the same options,
read the same way."""

from __future__ import annotations

import argparse
from typing import Any

from engine.settings import FALTA_FORMULAS, SEATS, TARGETS

NAMES = ("players", "points", "flor", "falta")


def add_rule_arguments(parser: argparse.ArgumentParser, title: str) -> None:
    """``--players``, ``--points``, ``--flor``/``--no-flor`` and ``--falta``, in a group."""
    rules = parser.add_argument_group(title)
    rules.add_argument("--players", type=int, choices=tuple(SEATS), help="jugadores: 2, 4 o 6")
    rules.add_argument("--points", type=int, choices=TARGETS, help="a cuántos puntos: 15 o 30")
    rules.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None,
                       help="jugar con flor, o sin flor con --no-flor (por defecto, sin flor)")
    rules.add_argument("--falta", choices=FALTA_FORMULAS,
                       help="cuánto vale la falta envido (por defecto leader): leader = lo que "
                       "le falta al que va ganando; malas = en malas, el partido; dos-faltas = "
                       "en malas, lo que le falta al que va ganando para entrar en buenas, y en "
                       "buenas, para ganar; winner = lo que le falta al que gana el envido")


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rule settings written on the command line (the others are left to the game)."""
    return {n: getattr(args, n) for n in NAMES if getattr(args, n, None) is not None}

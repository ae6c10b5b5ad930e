"""A stored game as a table log (docs/replay.md), to keep or to check with ``truco-referee
replay``: the rules it was played with as ``set`` lines, then every line applied, in order.  A
header of comments says which game it is and how it stood."""

from __future__ import annotations

import time
from typing import Any

from web_scoreboard.store import GameRow


def file_name(game_id: int) -> str:
    return f"partida-{game_id}.txt"


def replay_file(game: GameRow, names: dict[str, str], rules: list[str], lines: list[str],
                snap: dict[str, Any]) -> str:
    """The text of a game's log: a header (its teams' ``names``, and how it stands in ``snap``,
    its Table's snapshot), its ``rules`` lines, its ``lines``."""
    score = snap.get("score", {})
    standing = ", ".join(f"{names[t]} {score.get(t, 0)}" for t in ("A", "B"))
    winner = snap.get("winner")
    started = time.strftime("%d/%m/%Y %H:%M", time.localtime(game.created_at))
    won = f"; ganó {names[winner]}" if winner in names else ""
    again = f"truco-referee replay {file_name(game.id)}"
    header = [f"# Partida {game.id}, empezada el {started}: {standing}{won}",
              f"# A = {names['A']}, B = {names['B']}. Para volver a jugarla: {again}"]
    return "\n".join([*header, *rules, *lines]) + "\n"

"""Rules engine benchmark: random full games per second on one core.

    python -m benchmarks.engine [--games 1000] [--seed 0] [--players 2 4 6] [--points 30]

Each game is a ``engine.simulate`` random game with dealt cards, played to its end: random legal
calls, answers, declarations, plays and shows, every candidate checked with ``Game.is_legal``.
"""

from __future__ import annotations

import argparse
import time

from engine import Settings
from engine.simulate import random_game


def measure(settings: Settings, games: int, seed: int) -> tuple[float, float]:
    """(games per second of CPU time, events per game) over ``games`` random games."""
    events = 0
    start = time.process_time()
    for i in range(games):
        events += len(random_game(settings, seed + i).events)
    elapsed = time.process_time() - start
    return games / elapsed, events / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per table size")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], choices=[2, 4, 6])
    parser.add_argument("--points", type=int, default=30, choices=[15, 30])
    args = parser.parse_args(argv)

    print(f"random full games to {args.points}, {args.games} per table, one core (CPU time)")
    print(f"{'players':>7}  {'games/s':>8}  {'events/game':>11}  {'events/s':>9}")
    total_games, total_time = 0, 0.0
    for players in args.players:
        rate, per_game = measure(Settings(players=players, points=args.points), args.games,
                                 args.seed)
        total_games += args.games
        total_time += args.games / rate
        print(f"{players:>7}  {rate:>8.0f}  {per_game:>11.0f}  {rate * per_game:>9.0f}",
              flush=True)
    print(f"{'all':>7}  {total_games / total_time:>8.0f}")


if __name__ == "__main__":
    main()

"""Rules engine benchmark: random full games per second on one core.

    python -m benchmarks.engine [--games 1000] [--seed 0] [--players 2 4 6] [--points 30]

Each game is an ``engine.simulate`` random game with dealt cards, played to its end: random legal
calls, answers, declarations, plays and shows, every candidate checked with ``Game.is_legal``.
The "replay" column applies the same games' logs to a new ``Game`` (what undo and a restart do).
Times are CPU time of this process, so other work on the machine counts less.
"""

from __future__ import annotations

import argparse
import time

from engine import Event, Game, NewHand, Settings
from engine.simulate import random_game


def play(settings: Settings, games: int, seed: int) -> tuple[float, list[list[Event]]]:
    """CPU seconds to play ``games`` random games, and their logs."""
    start = time.process_time()
    logs = [random_game(settings, seed + i).events for i in range(games)]
    return time.process_time() - start, logs


def replay(settings: Settings, logs: list[list[Event]]) -> float:
    """CPU seconds to apply every log to a new game."""
    start = time.process_time()
    for log in logs:
        game = Game(settings)
        for event in log:
            game.apply(event)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per table size")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], choices=[2, 4, 6])
    parser.add_argument("--points", type=int, default=30, choices=[15, 30])
    args = parser.parse_args(argv)

    print(f"random full games to {args.points}, {args.games} per table size, one core")
    print(f"{'players':>7}  {'games/s':>8}  {'hands/game':>10}  {'events/game':>11}  "
          f"{'events/s':>9}  {'replay games/s':>14}")
    total_games, total_time = 0, 0.0
    for players in args.players:
        settings = Settings(players=players, points=args.points)
        seconds, logs = play(settings, args.games, args.seed)
        replayed = replay(settings, logs)
        events = sum(map(len, logs))
        hands = sum(isinstance(e, NewHand) for log in logs for e in log)
        total_games += args.games
        total_time += seconds
        print(f"{players:>7}  {args.games / seconds:>8.0f}  {hands / args.games:>10.1f}  "
              f"{events / args.games:>11.0f}  {events / seconds:>9.0f}  "
              f"{args.games / replayed:>14.0f}", flush=True)
    print(f"{'all':>7}  {total_games / total_time:>8.0f}")


if __name__ == "__main__":
    main()

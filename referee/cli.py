"""The ``truco-referee`` command: one subcommand per module in ``referee.commands``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# numpy's BLAS on one thread, set before numpy loads: the camera's one matrix product a frame is
# no faster on two, and OpenBLAS's waiting thread spins on the core the voice decoder needs (a
# frame took twice its wall time in CPU).  A value the user set stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Subcommand name -> module in referee.commands exposing ``add_arguments(parser)`` and ``run(args)``.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("serve", "start the referee and the tablet scoreboard"),
    "demo": ("demo", "play a short spoken game through the referee, no microphone needed"),
    "replay": ("replay", "apply a written table log and print the result"),
    "listen": ("listen", "hear calls from the microphone or a WAV file and print them"),
    "devices": ("devices", "list the microphones"),
    "voices": ("voices", "calibrate the recognizer to the voices of your table"),
    "models": ("models", "fetch, check and list recognition and card models"),
    "cards": ("cards", "recognize Spanish-deck cards in an image or from a camera"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truco-referee",
        description="Árbitro y anotador de truco, sin internet: escucha los cantos y lleva los puntos.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(f"referee.commands.{module_name}")
        except ModuleNotFoundError as err:
            if err.name != f"referee.commands.{module_name}":
                raise
            continue
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip())
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

"""The ``truco-referee`` command: one subcommand per module in ``referee.commands``."""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import importlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

# numpy's BLAS on one thread, set before numpy loads: the camera's one matrix product a frame is
# no faster on two, and OpenBLAS's waiting thread spins on the core the voice decoder needs (a
# frame took twice its wall time in CPU).  A value the user set stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

INTERRUPTED = 130  # the exit code of a program stopped with Ctrl-C

# Subcommand name -> module in referee.commands exposing ``add_arguments(parser)`` and ``run(args)``.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("serve", "arrancar el árbitro y el tanteador para la tablet"),
    "demo": ("demo", "jugar una partida corta hablada por el árbitro, sin micrófono"),
    "replay": ("replay", "aplicar un registro escrito de la mesa y mostrar el resultado"),
    "listen": ("listen", "escuchar los cantos del micrófono o de un WAV y mostrarlos"),
    "devices": ("devices", "listar los micrófonos"),
    "voices": ("voices", "calibrar el reconocedor a las voces de tu mesa"),
    "models": ("models", "bajar, revisar y listar los modelos de voz y de cartas"),
    "cards": ("cards", "reconocer cartas españolas en una imagen o desde una cámara"),
}

# argparse's own texts, in Spanish (they go through its module-level ``_``/``ngettext``).
ARGPARSE_ES: dict[str, str] = {
    "usage: ": "uso: ",
    "options": "opciones",
    "positional arguments": "argumentos",
    "show this help message and exit": "muestra esta ayuda y sale",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "the following arguments are required: %s": "faltan estos argumentos: %s",
    "unrecognized arguments: %s": "no entiendo estos argumentos: %s",
    "invalid choice: %(value)r (choose from %(choices)s)":
        "opción inválida: %(value)r (puede ser %(choices)s)",
    "invalid %(type)s value: %(value)r": "valor inválido: %(value)r",
    "expected one argument": "falta un valor",
    "expected at most one argument": "se espera un valor como mucho",
    "expected at least one argument": "falta al menos un valor",
    "expected %s argument": "se espera %s valor",
    "expected %s arguments": "se esperan %s valores",
    "ambiguous option: %(option)s could match %(matches)s":
        "opción ambigua: %(option)s puede ser %(matches)s",
    "not allowed with argument %s": "no va junto con %s",
    "ignored explicit argument %r": "sobra el valor %r",
    "one of the arguments %s is required": "falta uno de estos argumentos: %s",
    "unexpected option string: %s": "opción inesperada: %s",
    "can't open '%(filename)s': %(error)s": "no puedo abrir '%(filename)s': %(error)s",
}


def _spanish(text: str) -> str:
    return ARGPARSE_ES.get(text, text)


def _spanish_n(singular: str, plural: str, n: int) -> str:
    return _spanish(singular if n == 1 else plural)


@contextlib.contextmanager
def spanish_argparse() -> Iterator[None]:
    """argparse speaking Spanish for a while (its texts are looked up when used)."""
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = _spanish, _spanish_n  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


class SpanishParser(argparse.ArgumentParser):
    """An argument parser whose help, usage and errors are in Spanish; its subcommands' parsers
    are of the same class (argparse makes them with the parent's class).  An option is taken
    only as written: no abbreviations, so that a mistaken ``--model`` is refused instead of
    being taken for ``--models-dir``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        with spanish_argparse():
            super().__init__(*args, **kwargs)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        with spanish_argparse():  # its "unrecognized arguments" is looked up outside the next
            return super().parse_args(args, namespace)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        with spanish_argparse():
            return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        with spanish_argparse():
            return super().format_usage()

    def format_help(self) -> str:
        with spanish_argparse():
            return super().format_help()

    def error(self, message: str) -> NoReturn:
        with spanish_argparse():
            super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = SpanishParser(
        prog="truco-referee",
        description="Árbitro y anotador de truco, sin internet: escucha los cantos y lleva los puntos.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMANDO")
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
    from referee.commands.values import not_folders

    _say_crashes()
    _print_what_it_can()

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    wrong = not_folders(args)
    if wrong:
        print("\n".join(f"truco-referee {args.command}: {problem}" for problem in wrong),
              file=sys.stderr)
        return 2
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush
        return 0
    except KeyboardInterrupt:  # Ctrl-C where the command does not handle it: no traceback
        print(f"\ntruco-referee {args.command}: interrumpido", file=sys.stderr)
        return INTERRUPTED


def _print_what_it_can() -> None:
    """Standard output and error print what the terminal's encoding can show and «?» for the
    rest (a «—» or an accent on a Latin-1 or ASCII terminal, a file name Python could not
    decode) instead of ending in a ``UnicodeEncodeError``."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(ValueError, io.UnsupportedOperation):
                stream.reconfigure(errors="replace")


def _say_crashes() -> None:
    """A crash Python cannot catch (the disk under SQLite's memory map gone, a fault in a C
    library) says so on standard error, with where each thread was, instead of ending the
    process without a word (``faulthandler``); where a caller already does, as pytest, or
    standard error is no file, nothing changes."""
    if faulthandler.is_enabled():
        return
    with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
        faulthandler.enable()


if __name__ == "__main__":
    sys.exit(main())

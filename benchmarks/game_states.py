"""Moments of a hand, for scoring speech "in game": at the table a call is applied only if the
rules allow it now (``referee.interpret``), so a misheard "flor" during a retruco, or a number
outside the envido, is shown as refused and changes nothing.

Each moment is a short log (the ``replay`` notation) and, from the engine, the labels a transcript
could apply there, whoever said it.  Flor is on, so every call exists somewhere; look-alikes and
chatter are also scored at a table without flor (the engine's default).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from benchmarks.speech_corpus import Item
from referee.phrases import Heard
from referee.table import Table, keys_taken

MOMENTS: dict[str, tuple[str, ...]] = {
    "empieza la mano": ("hand",),
    "truco cantado": ("hand", "A1: truco"),
    "retruco cantado": ("hand", "A1: truco", "B1: retruco"),
    "vale cuatro cantado": ("hand", "A1: truco", "B1: retruco", "A1: vale cuatro"),
    "envido cantado": ("hand", "A1: envido"),
    "diciendo los tantos": ("hand", "A1: envido", "B1: quiero"),
    "contestando los tantos": ("hand", "A1: envido", "B1: quiero", "A1: veintisiete"),
    "flor cantada": ("hand", "A1: flor"),
    "contraflor cantada": ("hand", "A1: flor", "B1: contraflor"),
    "segunda ronda": ("hand", "A1 plays 4c", "B1 plays 5c"),
}

# Where most table talk happens: chatter and look-alikes are scored in each of these.
TALK_MOMENTS = ("empieza la mano", "truco cantado", "envido cantado", "segunda ronda")


def label(heard: Heard) -> str:
    """The benchmark's label of a parsed item: the call, or ``puntos:N``."""
    return heard.key


@cache
def legal_labels(moment: str, flor: bool = True) -> frozenset[str]:
    """The labels a transcript could apply at this moment (calls and envido numbers), at a table
    that plays with flor or, as by default, without.  Read as the table reads a call said
    alone, not as the first of a phrase (``Table.expected``, what the recognizer is told to
    expect, also counts a truco that would set the envido's numbers aside)."""
    return keys_taken(at(moment, flor).interpret)


def at(moment: str, flor: bool = True) -> Table:
    """A table at this moment of a hand, with flor or without."""
    table = Table()
    if flor:
        table.apply_line("set flor on")
    for line in MOMENTS[moment]:
        table.apply_line(line)
    return table


@cache
def expected_at(moment: str) -> frozenset[str]:
    """What the table expects at this moment (``Table.expected``), with flor: what the recognizer
    listens for most there."""
    return at(moment).expected()


def at_moments(items: Iterable[Item], talk_groups: Iterable[str]) -> list[Item]:
    """Each file said at a moment of a hand, as at a table whose recognizer listens for what the
    rules take: a call or a number where it can be applied (``moments_for``; a file with no such
    moment at none), a look-alike or chatter (``talk_groups``) once at each moment of talk."""
    talk = set(talk_groups)
    out: list[Item] = []
    for it in items:
        if it.group in talk:
            out += [replace(it, moment=m) for m in TALK_MOMENTS]
        else:
            out.append(replace(it, moment=next(iter(moments_for(it.label.split("+"))), "")))
    return out


def moments_for(expected: list[str]) -> list[str]:
    """The moments where every expected label can be applied; the one with most legal labels
    first (the hardest place to hear it right)."""
    fits = [m for m in MOMENTS if set(expected) <= legal_labels(m)]
    return sorted(fits, key=lambda m: -len(legal_labels(m)))

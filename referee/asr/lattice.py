"""A word's posterior read from the whole Sphinx lattice, not from one of its copies.

Sphinx's grammar search keeps one lattice node per word *and grammar state*: a «quiero» that can
be a call alone, the start of «quiero retruco» or a word before the garbage path is three nodes
over the same frames, and the best path's segment carries the posterior of its own copy only
(0.15 for a clear «quiero» whose three copies add up to 1.0).  How sure the lattice is of a word
there is the sum over every link that says that word over that stretch of time.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """One lattice link: a word from ``start`` to ``end`` (seconds into the utterance) and the
    posterior of the paths through it."""

    word: str
    start: float
    end: float
    posterior: float


def read_htk(text: str) -> list[Span]:
    """The word links of a lattice in HTK's SLF, as pocketsphinx writes it (a link's word is its
    start node's, over the time from its start node to its end node)."""
    nodes: dict[str, tuple[str, float]] = {}
    links: list[tuple[str, str, float]] = []
    for line in text.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "I" in fields and "W" in fields:
            nodes[fields["I"]] = (fields["W"].split("(")[0], float(fields["t"]))
        elif "J" in fields and "p" in fields:
            links.append((fields["S"], fields["E"], float(fields["p"])))
    return [Span(nodes[s][0], nodes[s][1], nodes[e][1], p)
            for s, e, p in links if s in nodes and e in nodes]


def posterior(spans: list[Span], word: str, start: float, end: float) -> float:
    """How sure the lattice is of ``word`` between ``start`` and ``end`` (seconds into the
    utterance): the posteriors of its links that cover the middle of that stretch, added up."""
    middle = (start + end) / 2
    total = sum(s.posterior for s in spans if s.word == word and s.start <= middle < s.end)
    return max(0.0, min(1.0, total))


def lattice_spans(decoder: object) -> list[Span] | None:
    """The word links of the decoder's lattice for the utterance just ended (None without one)."""
    lattice = decoder.get_lattice()  # type: ignore[attr-defined]
    if lattice is None:
        return None
    fd, path = tempfile.mkstemp(suffix=".slf")
    os.close(fd)
    try:
        lattice.write_htk(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            return read_htk(f.read())
    finally:
        os.unlink(path)

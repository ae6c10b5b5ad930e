"""People's and teams' names as typed: the one form a name is kept in (``clean_name``), and what two
names are compared by (``name_key``), so that a name typed on a keyboard that writes «í» as «i» plus
an accent (a Mac's, some Android ones: Unicode's NFD) is the same name as one typed with «í»
whole (NFC), in any case."""

from __future__ import annotations

import unicodedata


def clean_name(text: str) -> str:
    """A name as it is kept: composed (NFC), on one line (what is not printable is a space),
    inner spaces collapsed to one, trimmed."""
    composed = unicodedata.normalize("NFC", text)
    return " ".join("".join(c if c.isprintable() else " " for c in composed).split())


def name_key(text: str) -> str:
    """What a name is compared by: ``clean_name``, in any case (Unicode's canonical caseless match:
    «MARTÍN» is «martín», typed either way)."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", clean_name(text)).casefold())


def same_name(a: str, b: str) -> bool:
    """Whether two names are one name, typed in any case or Unicode form."""
    return name_key(a) == name_key(b)


__all__ = ["clean_name", "name_key", "same_name"]

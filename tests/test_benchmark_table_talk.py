"""What the speech benchmark lets the cepstral mean settle on before each file: the caller's own
talk, or with ``--table-talk`` a table's, several voices with the caller among them."""

from __future__ import annotations

import zlib
from collections import Counter

from benchmarks.speech_listening import settle_files

FILES = {voice: [f"{voice}/{n}.wav" for n in range(200)] for voice in ("a", "b", "c", "real")}


def _voices(talk: list[str]) -> Counter[str]:
    return Counter(file.split("/")[0] for file in talk)


def test_alone_the_mean_settles_on_the_callers_other_half_of_files() -> None:
    talk = settle_files("a", 1, FILES)
    assert 20 <= len(talk) <= 30  # about 30 s of files of about 1.2 s
    assert _voices(talk) == {"a": len(talk)}
    assert all(zlib.crc32(file.encode()) % 2 == 1 for file in talk)


def test_at_a_table_every_voice_talks_the_caller_among_them_in_like_shares() -> None:
    alone = settle_files("real", 0, FILES)
    talk = settle_files("real", 0, FILES, frozenset({"a", "b", "c"}))
    assert len(talk) == len(alone) == len(set(talk))
    shares = _voices(talk)
    assert set(shares) == {"a", "b", "c", "real"}  # a caller not of the table's voices too
    assert min(shares.values()) >= len(talk) // 8
    assert all(zlib.crc32(file.encode()) % 2 == 0 for file in talk)
    # the same talk every run, and another caller hears it in another order
    assert talk == settle_files("real", 0, FILES, frozenset({"a", "b", "c"}))
    assert settle_files("a", 0, FILES, frozenset({"a", "b", "c", "real"})) != talk

"""What the voice referee heard, as the listener hands it to the scoreboard."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from referee import clip_codec

HeardStatus = Literal["accepted", "unsure", "rejected"]
HEARD_STATUSES = ("accepted", "unsure", "rejected")


@dataclass(frozen=True)
class Heard:
    """Something the voice referee heard, as the listener reports it.

    ``accepted`` items carry the ``line`` to apply (``record_heard`` applies it); ``unsure`` ones
    carry the line a person can confirm with one tap; ``rejected`` ones carry the ``reason``.
    ``clip`` is the utterance as evidence: a WAV file, or raw 16-bit mono samples at
    ``clip_rate`` (what the listener keeps), which are stored as a FLAC file (``clip_codec``).
    """

    text: str
    status: HeardStatus
    line: str | None = None
    reason: str | None = None
    team: str | None = None
    clip: bytes | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    clip_rate: int = 16_000

    def __post_init__(self) -> None:
        if self.status not in HEARD_STATUSES:
            raise ValueError(f"invalid heard status {self.status!r}: use one of "
                             f"{', '.join(HEARD_STATUSES)}")

    def audio(self) -> tuple[bytes, str] | None:
        """The clip as a file for the page's play button, with its type: a WAV as given, raw
        samples as FLAC."""
        if not self.clip:
            return None
        if self.clip[:4] == b"RIFF":
            return self.clip, clip_codec.WAV
        return clip_codec.encode(self.clip, self.clip_rate), clip_codec.FLAC

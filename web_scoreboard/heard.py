"""What the voice referee heard, as the listener hands it to the scoreboard."""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass, field
from typing import Any, Literal

HeardStatus = Literal["accepted", "unsure", "rejected"]
HEARD_STATUSES = ("accepted", "unsure", "rejected")


@dataclass(frozen=True)
class Heard:
    """Something the voice referee heard, as the listener reports it.

    ``accepted`` items carry the ``line`` to apply (``record_heard`` applies it); ``unsure`` ones
    carry the line a person can confirm with one tap; ``rejected`` ones carry the ``reason``.
    ``clip`` is the utterance as evidence: a WAV file, or raw 16-bit mono samples at
    ``clip_rate`` (what the listener keeps), which are stored as a WAV file.
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

    def wav(self) -> bytes | None:
        """The clip as a WAV file, ready for the page's play button."""
        if not self.clip:
            return None
        if self.clip[:4] == b"RIFF":
            return self.clip
        out = io.BytesIO()
        with wave.open(out, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(self.clip_rate)
            wav.writeframes(self.clip)
        return out.getvalue()

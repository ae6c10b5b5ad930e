"""What the voice referee heard, as the listener hands it to the scoreboard."""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass, field
from typing import Any, Literal

HeardStatus = Literal["accepted", "unsure", "rejected"]
HEARD_STATUSES = ("accepted", "unsure", "rejected")


def taken_back_reason(confidence: float, tap: bool = True) -> str:
    """Why a call applied from a partial hearing was taken back by the whole phrase (and, where a
    tablet can confirm it, ``tap``, how)."""
    then = "tocá para confirmar" if tap else "no se aplica sin confirmar"
    return f"dudoso: la frase entera no lo confirmó (confianza {confidence:.2f}); {then}"


# The calls that declare the tantos: one heard while another of the hand waits as dudoso waits too
# (its seat comes from the declaration order).
DECLARATIONS = ("puntos", "son buenas")


def waiting_reason(before: str) -> str:
    """Why a heard item waits for a tap although it may be sure: it depends on a doubtful one said
    before it (``before``, its words)."""
    return f"dudoso: depende de «{before}», dudoso"


def rejudged_reason(before: str | None) -> str:
    """Why a call the rules refused was applied after all: what refused it was taken back."""
    return f"anotado al retirarse lo que lo impedía (antes: {before})"


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

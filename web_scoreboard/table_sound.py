"""The table's sound the referee keeps in memory, as the tablet asks for it (to hear again what
was said, and to keep it with the game): refused in words when there is none to give."""

from __future__ import annotations

from typing import Protocol

from referee.table_audio import Replay
from web_scoreboard.errors import ActionError


class TableAudioLike(Protocol):
    """The table's last seconds of sound, kept in memory (``referee.table_audio``)."""

    def last(self, seconds: float) -> Replay | None: ...

    def handed(self, replay_id: str) -> Replay | None: ...

    def kept(self, replay: Replay, where: str) -> None: ...


def kept_sound(kept: TableAudioLike | None) -> TableAudioLike:
    """The table's sound this server keeps; ActionError 409 when it keeps none."""
    if kept is None:
        raise ActionError("table-audio-off", "el árbitro no guarda el sonido de la mesa: "
                          "hace falta 'serve' con micrófono (y sin --table-audio 0)", 409)
    return kept


def last_sound(kept: TableAudioLike | None, seconds: float) -> Replay:
    """The table's last ``seconds`` of sound as a WAV; ActionError 409 when this server keeps
    none, or has heard nothing yet."""
    replay = kept_sound(kept).last(seconds)
    if replay is None:
        raise ActionError("table-audio-empty", "el micrófono todavía no oyó nada", 409)
    return replay


def handed_sound(kept: TableAudioLike, replay_id: str) -> Replay:
    """The sound handed over as ``replay_id``, to keep; ActionError 409 when it was kept already
    or is forgotten."""
    replay = kept.handed(replay_id)
    if replay is None:
        raise ActionError("table-audio-gone", "ese sonido ya se guardó, o ya se borró de "
                          "la memoria del árbitro: volvé a escucharlo", 409)
    return replay

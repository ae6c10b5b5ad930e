"""The voices' calibration panel's taps, carried out by what the referee gives the
``TableService`` (``referee.table_calibration``): refused in words when this server cannot
calibrate from the tablet, or when the calibration cannot take the tap now."""

from __future__ import annotations

from typing import Protocol

from web_scoreboard.errors import ActionError


class CalibrationControls(Protocol):
    """What carries out the calibration panel's taps (``referee.table_calibration``): ValueError,
    in words, for one that cannot be done now."""

    def act(self, action: str, players: int, index: int | None,
            kept: int | None = None, name: str = "") -> None: ...

    def voice_sample(self, player: int) -> bytes | None: ...


def tap(controls: CalibrationControls | None, action: str, players: int, index: int | None,
        kept: int | None, name: str) -> None:
    """Carry out a tap on the calibration panel (``TableService.calibrate``); ActionError (409)
    when this server cannot calibrate (``controls`` None) or the tap cannot be done now, and
    why."""
    if controls is None:
        raise ActionError("calibration-off", "calibrar las voces desde la tablet necesita "
                          "que 'serve' escuche un micrófono con el modelo de Sphinx en "
                          "español", 409)
    try:
        controls.act(action, players, index, kept, name)
    except ValueError as err:
        raise ActionError("calibration-refused", str(err), 409) from err


def voice_sample(controls: CalibrationControls | None, player: int) -> bytes | None:
    """A few prompts a kept calibrated ``player`` said, as a WAV; None when there is no such
    player (or no calibration from this server)."""
    return None if controls is None else controls.voice_sample(player)

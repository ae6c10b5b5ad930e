"""Which microphones the table plays with: one, or one per team (two devices, their lag kept
between sessions, or two channels of one)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from referee.audio import AudioError
from referee.mic_lag import apart, in_step
from referee.microphone import MicSource, device_names
from referee.mics import TeamMics
from referee.table_sound import keep_lag, kept_lag, lag_file


def channel_teams(specs: list[str] | None, channels: int) -> tuple[str, ...]:
    """Which team each microphone (or channel) is, as the listener takes them: none with one."""
    return ("A", "B") if channels == 2 or len(specs or []) == 2 else ()


def lag_options(specs: Sequence[str], data_dir: Path | None,
                say: Callable[[str], None]) -> dict[str, Any]:
    """``TeamMics``' ``lag`` and ``on_lag`` for two devices (``specs``): each new lag said to the
    table (``say``); with a ``data_dir``, kept in it for the next session, one file per pair of
    devices by their names (``table_sound.lag_file``, ``microphone.device_names``), and the one
    kept last to start with, said."""
    if data_dir is None:
        return {"on_lag": lambda lag: say(in_step(lag))}
    kept = lag_file(data_dir, *device_names(specs))
    lag = kept_lag(kept)
    if lag is not None:
        say(f"como la última vez, {apart(lag)}")

    def new_lag(lag: float) -> None:
        say(in_step(lag))
        keep_lag(kept, lag)

    return {"lag": lag, "on_lag": new_lag}


def table_mics(specs: list[str] | None, channels: int = 1, *, keep_trying: bool = True,
               data_dir: Path | None = None) -> MicSource | TeamMics:
    """The microphones as the table plays with them, each said on the terminal: one, or one per
    team (``--mic`` twice: two devices, team A's first, their lag kept in ``data_dir`` if given,
    as `serve` keeps it: ``lag_options``; or ``--channels 2``, two channels of one).  With
    ``keep_trying=False`` a missing one is an AudioError instead of a retry."""
    from referee.device_status import print_status

    specs = specs or []
    if len(specs) > 2:
        raise AudioError("mic-too-many", "a lo sumo dos micrófonos, uno por equipo")
    if len(specs) == 2:
        return TeamMics(*(MicSource(spec, on_status=print_status(f"micrófono de {team}"),
                                    keep_trying=keep_trying) for spec, team in zip(specs, "AB")),
                        **lag_options(specs, data_dir, print_status("micrófonos")))
    return MicSource(specs[0] if specs else None, channels=channels,
                     on_status=print_status("micrófono"), keep_trying=keep_trying)

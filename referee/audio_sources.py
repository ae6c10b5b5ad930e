"""What `serve` listens to: a recording played as if it were the microphone (``--wav``), the
microphone, or one per team; each with its start-up line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee.startup_lines import Log, Part, said_once, source_status
from referee.table_listening import data_dir

STILL_LOOKING = "se anota con los botones y se sigue buscando"


def audio_source(args: argparse.Namespace, log: Log, service: Any = None) -> tuple[Any, Part]:
    """The recording (``--wav``) or the microphones, and their start-up line; no source if the
    recording cannot be read."""
    from referee.audio import AudioError
    from referee.wav import WavSource

    source: Any
    if args.wav:
        try:
            told = source_status(service, "mic", said_once(log, "grabación"))
            source = WavSource(args.wav, realtime=True, on_status=told)
        except (AudioError, OSError) as err:
            message = getattr(err, "message", None) or str(err)
            return None, Part("audio", False, f"no puedo leer {args.wav}: {message}")
        cut = f"; {source.notice}" if source.notice else ""  # a file cut short: heard as it is
        return source, Part("audio", True, f"la grabación {Path(args.wav).name} "
                            f"({source.duration:.0f} s), como si fuera el micrófono{cut}")
    return _mic_source(args, log, service)


def _mic_source(args: argparse.Namespace, log: Log, service: Any = None) -> tuple[Any, Part]:
    """The microphone (or one per team) and whether it is there: the source is made even when it
    is not, and keeps looking for it while the scoreboard runs on its buttons; the terminal and
    the pages (``service``) are told how it is doing."""
    from referee.audio import AudioError
    from referee.microphone import MicSource, list_devices

    source: Any
    mics = args.mic or []
    if len(mics) > 2:
        return None, Part("micrófono", False, "a lo sumo dos micrófonos, uno por equipo")
    if len(mics) == 2:
        source = _team_mics(mics[0], mics[1], log, service, data_dir(args))
    else:
        source = MicSource(mics[0] if mics else None, channels=args.channels,
                           on_status=source_status(service, "mic", said_once(log, "micrófono")))
    try:
        devices = list_devices()
    except AudioError as err:
        return source, Part("micrófono", False, f"{err.message}; {STILL_LOOKING}")
    return source, mic_part(mics, devices)


def mic_part(mics: list[str], devices: list[Any]) -> Part:
    """The microphone's line of the start-up screen: whether the ones asked for (none: the
    system's own) are among ``devices`` (``microphone.InputDevice``), and if not, why."""
    from referee.audio import AudioError
    from referee.microphone import resolve_device

    if not devices:
        return Part("micrófono", False, f"no hay ninguno conectado; {STILL_LOOKING} (enchufá "
                    "uno cuando quieras)")
    names = ", ".join(d.name for d in devices[:3])
    try:
        for spec in mics:
            resolve_device(spec, devices)
    except AudioError as err:
        return Part("micrófono", False, f"{err.message} (hay: {names}; mirá 'truco-referee "
                    f"devices'); {STILL_LOOKING}")
    which = " y ".join(map(str, mics)) or "el de siempre"
    return Part("micrófono", True, f"{which} (hay: {names})")


def _team_mics(spec_a: str, spec_b: str, log: Log, service: Any, folder: Path) -> Any:
    """One microphone per team (``mics.TeamMics``), each shown on the pages on its own ("mic A",
    "mic B"): one unplugged while the other hears is not hidden by it.  How much later B's hands
    over its sound is kept in the data folder (``folder``), and the next session with the same
    two devices starts with it."""
    from referee.mic_choice import lag_options
    from referee.microphone import MicSource
    from referee.mics import TeamMics

    said = said_once(log, "micrófonos")

    def mic(spec: str, team: str) -> MicSource:
        def terminal(message: str) -> None:
            said(f"el de {team}: {message}")

        return MicSource(spec, on_status=source_status(service, f"mic {team}", terminal))

    return TeamMics(mic(spec_a, "A"), mic(spec_b, "B"),
                    **lag_options([spec_a, spec_b], folder, said))

"""The microphone (``sounddevice``) as a stream of 16 kHz chunks, and the input devices to pick
it from; one that is missing or unplugged is looked for again until it is back.  A device that
does not record at 16 kHz (a sound card's own input, named directly, often takes only 44.1 or
48 kHz) is opened at its own rate and resampled as it is heard.  One that sounds like a telephone
(``referee.band``: a Bluetooth headset on its 8 kHz link) or clipped (``referee.clipping``:
turned up too far) says so, as its status (``sound_check``)."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from referee.audio import CHUNK_S, SAMPLE_RATE, AudioChunk, AudioError, Channels, to_chunk
from referee.device_status import retrying
from referee.resampling import Resampler
from referee.sound_check import SoundCheck


@dataclass(frozen=True)
class InputDevice:
    index: int
    name: str
    channels: int
    default_rate: float
    is_default: bool


def list_devices() -> list[InputDevice]:
    """Every input device PortAudio knows about."""
    try:
        import sounddevice as sd

        default_in = sd.default.device[0] if sd.default.device else -1
        devices = sd.query_devices()
    except (OSError, Exception) as err:  # PortAudio missing raises OSError; others PortAudioError
        raise AudioError("no-audio-system", f"no puedo hablar con el sistema de audio: {err}") from err
    return [
        InputDevice(i, str(d["name"]), int(d["max_input_channels"]),
                    float(d["default_samplerate"]), i == default_in)
        for i, d in enumerate(devices)
        if int(d["max_input_channels"]) > 0
    ]


def device_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Devices as the table names them from one session to the next: given by number, their own
    names where they are there (numbers change as devices come and go), but for two of the same
    name (two of one model: only their numbers tell them apart); given by name, as given."""
    names: dict[int, str] = {}
    try:
        if any(spec.isdigit() for spec in specs):
            names = {d.index: d.name for d in list_devices()}
    except AudioError:
        pass
    own = [names.get(int(spec), spec) if spec.isdigit() else spec for spec in specs]
    return tuple(name if own.count(name) == 1 else spec for name, spec in zip(own, specs))


def resolve_device(spec: str | int | None, devices: Sequence[InputDevice] | None = None) -> int | None:
    """A device index from an index or a (part of a) name; None means the system default."""
    if spec is None or spec == "":
        return None
    devices = list(devices) if devices is not None else list_devices()
    if isinstance(spec, int) or str(spec).isdigit():
        index = int(spec)
        if any(d.index == index for d in devices):
            return index
        raise AudioError("mic-missing", f"no hay un micrófono con el número {index}")
    matches = [d for d in devices if str(spec).lower() in d.name.lower()]
    if not matches:
        raise AudioError("mic-missing", f"no encuentro un micrófono que se llame '{spec}'")
    return matches[0].index


class MicSource:
    """The microphone as a stream of chunks.  If it is missing or gets unplugged, ``on_status`` is
    told in plain words and the source keeps retrying until it is back (or ``stop()`` is called);
    with ``keep_trying=False`` (a one-shot command) the AudioError is raised instead."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        channels: int = 1,
        chunk_s: float = CHUNK_S,
        retry_s: float = 2.0,
        on_status: Callable[[str], None] = lambda msg: None,
        keep_trying: bool = True,
    ) -> None:
        self.device_spec = device
        self.keep_trying = keep_trying
        self.channels = channels
        self.chunk_s = chunk_s
        self.retry_s = retry_s
        self.on_status = on_status
        self._stopped = False
        self._samples = 0  # frames at 16 kHz given so far
        self._queue: queue.Queue[tuple[np.ndarray, bool]] | None = None
        self._resampler = Resampler(SAMPLE_RATE)

    def stop(self) -> None:
        self._stopped = True

    def drop_queued(self) -> None:
        """Forget the sound the microphone heard and nobody has read yet: the answer to a prompt
        starts after the prompt, not with what was said while the player got ready."""
        while self._queue is not None:
            try:
                self._samples += len(self._resampler.push(_floats(self._queue.get_nowait()[0])))
            except queue.Empty:
                return

    def __iter__(self) -> Iterator[AudioChunk]:
        while not self._stopped:
            try:
                yield from self._run_stream()
            except AudioError as err:
                if not self.keep_trying:
                    raise
                self.on_status(retrying(err.message, self.retry_s))
                time.sleep(self.retry_s)

    def _run_stream(self) -> Iterator[AudioChunk]:
        try:
            import sounddevice as sd
        except OSError as err:
            raise AudioError("no-audio-system", f"falta PortAudio (libportaudio2): {err}") from err
        devices = list_devices()
        if not devices:
            raise AudioError("mic-missing", "no hay ningún micrófono conectado: enchufá uno")
        device = resolve_device(self.device_spec, devices)
        chosen = _chosen(devices, device)
        if chosen is not None and chosen.channels < self.channels:
            raise AudioError("mic-channels", f"«{chosen.name}» tiene {chosen.channels} canal"
                             f"{'es' if chosen.channels != 1 else ''} y hacen falta "
                             f"{self.channels}, uno por equipo")
        rate = _rate(sd, device, self.channels, chosen)
        q: queue.Queue[tuple[np.ndarray, bool]] = queue.Queue()  # each block, and whether lost
        self._queue = q
        self._resampler = Resampler(rate)
        failed: list[str] = []
        channels = Channels(self.chunk_s)

        def callback(indata: np.ndarray, frames: int, t: object, status: object) -> None:
            q.put((indata.copy(), bool(getattr(status, "input_overflow", False))))

        def finished() -> None:
            failed.append("el micrófono dejó de mandar sonido (¿se desenchufó?)")

        try:
            stream = sd.InputStream(
                samplerate=rate, channels=self.channels, dtype="int16", device=device,
                blocksize=int(self.chunk_s * rate), callback=callback,
                finished_callback=finished,
            )
        except (sd.PortAudioError, ValueError) as err:
            raise AudioError("mic-unavailable", f"no puedo abrir el micrófono: {err}") from err
        sound = SoundCheck(rate)  # a clipped sound or a narrow line is said to the table
        with stream:
            self.on_status(sound.live())
            lost = False  # sound lost since the last chunk
            while not self._stopped:
                try:
                    block, overrun = q.get(timeout=max(1.0, 5 * self.chunk_s))
                except queue.Empty:
                    raise AudioError("mic-silent", failed[0] if failed else
                                     "el micrófono no manda sonido") from None
                lost |= overrun
                frames = self._resampler.push(_floats(block))
                if len(frames):
                    chunk = to_chunk(frames, self._samples / SAMPLE_RATE, channels)
                    yield replace(chunk, lost=True) if lost else chunk
                    self._samples += len(frames)
                    lost = False
                    if sound.hear(chunk.pcm):
                        self.on_status(sound.live())


def _floats(block: np.ndarray) -> np.ndarray:
    return block.astype(np.float64) / 32768.0


def _chosen(devices: Sequence[InputDevice], device: int | None) -> InputDevice | None:
    """The device with this index (None: the system's default), if PortAudio lists it."""
    return next((d for d in devices if d.index == device or (device is None and d.is_default)), None)


def _rate(sd: Any, device: int | None, channels: int, chosen: InputDevice | None) -> int:
    """16 kHz if the device records at it, else the device's own rate (to be resampled)."""
    try:
        sd.check_input_settings(device=device, channels=channels, dtype="int16",
                                samplerate=SAMPLE_RATE)
        return SAMPLE_RATE
    except (sd.PortAudioError, ValueError):
        own = int(chosen.default_rate) if chosen else 0
        return own if own > 0 else SAMPLE_RATE

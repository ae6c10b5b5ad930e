"""`serve` listening to a microphone, as at a table: a sound device the test speaks into in real
time (ALSA's ``file`` plugin reading a named pipe, heard through PortAudio and sounddevice as any
microphone is), and the table's voices calibrated from the tablet's API while the game goes on."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.asr.adapt import find_calibration
from referee.calibration_prompts import PROMPTS
from referee.wav import read_wav
from tests.e2e.test_serve_end_to_end import Serve
from tests.referee.test_voices_mic import prompts_said

STEP = 1600  # samples the device gives at a time: 0.1 s at 16 kHz, 16-bit mono
ASOUNDRC = """pcm.tablemic {{
    type file
    slave.pcm "null"
    file "/dev/null"
    infile "{pipe}"
    format "raw"
}}
"""
SAID = 14  # prompts the player says before skipping the rest (the numbers): 8 s of speech
F_SETPIPE_SZ = 1031


class TableMic:
    """The capture device ``tablemic`` for a process whose HOME is ``home``: the table's quiet
    sound, with what ``say`` is given, 0.1 s at a time as a microphone hears it.  ``unplug``
    stops its sound for a while, as a microphone pulled out and plugged in again."""

    def __init__(self, home: Path) -> None:
        pipe = home / "tablemic.raw"
        os.mkfifo(pipe)
        (home / ".asoundrc").write_text(ASOUNDRC.format(pipe=pipe), encoding="utf-8")
        # Read and write: opening never waits for the reader, and sound nobody reads is dropped.
        self._fd = os.open(pipe, os.O_RDWR | os.O_NONBLOCK)
        fcntl.fcntl(self._fd, F_SETPIPE_SZ, 4 * STEP)  # a device keeps little: sound stays live
        self._rng = np.random.default_rng(0)
        self._said: deque[np.ndarray] = deque()
        self._silent_until = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def say(self, pcm: np.ndarray, pause_s: float = 0.6) -> None:
        """A pause, then the phrase (floats, 16 kHz), after what was given before."""
        data = np.concatenate([np.zeros(int(pause_s * 16000)), pcm.ravel()])
        data = np.pad(data, (0, -len(data) % STEP))
        self._said.extend(data[i:i + STEP] for i in range(0, len(data), STEP))

    def said_all(self, timeout: float = 30.0) -> None:
        wait_for(lambda: not self._said, timeout, "the microphone to say everything")

    def unplug(self, seconds: float) -> None:
        self._silent_until = time.monotonic() + seconds

    def _run(self) -> None:
        due = time.monotonic()
        while not self._stop.is_set():
            if time.monotonic() >= self._silent_until:
                sound = self._said.popleft() if self._said else 0.0
                sound = sound + self._rng.normal(0, 0.001, STEP)  # the room, always there
                try:
                    os.write(self._fd, (np.clip(sound, -1, 1) * 32767).astype("<i2").tobytes())
                except BlockingIOError:
                    pass  # the device is not being read: what it heard is gone
            due += 0.1
            time.sleep(max(0.0, due - time.monotonic()))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self._fd)


def wait_for(ready: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := ready()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)
    return got


@pytest.fixture
def mic(tmp_path: Path) -> Iterator[TableMic]:
    pytest.importorskip("sounddevice", reason="needs sounddevice and PortAudio (libportaudio2)")
    table_mic = TableMic(tmp_path)
    yield table_mic
    table_mic.close()


def test_the_voices_are_calibrated_from_the_tablet_through_a_live_microphone(
        shared_dir: Path, tmp_path: Path, mic: TableMic) -> None:
    said = prompts_said(shared_dir)  # one held-out voice's renders of the prompts
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    models = tmp_path / "models"
    serve = Serve("--mic", "tablemic", "--data-dir", str(tmp_path / "data"), "--models-dir",
                  str(models), "--recognizer", "sphinx", "--model", str(model),
                  env={"HOME": str(tmp_path)})
    try:
        printed = serve.wait_printed("calibración", timeout=30)
        assert "calibrá las voces de la mesa desde la tablet" in printed, printed

        def mic_is(state: str) -> bool:
            return any(s["key"] == "mic" and s["state"] == state
                       for s in serve.state().get("sources") or [])

        def calibration() -> dict[str, Any]:
            return dict(serve.state()["calibration"])

        def shown(k: int) -> Callable[[], bool]:
            return lambda: bool(calibration()["index"] == k)

        wait_for(lambda: mic_is("ok"), 30, "the microphone to be heard")
        assert calibration()["state"] == "idle" and not calibration()["calibrated"]

        started = serve.api.post("/api/calibration", json={"action": "start", "players": 1})
        assert started.status_code == 200, started.text
        for k, text in enumerate(PROMPTS[:SAID], start=1):  # each said once it is shown
            wait_for(shown(k), 20, f"prompt {k}")
            assert calibration()["prompt"] == text
            if k == 3:  # pulled out and plugged in again before this one is said
                mic.unplug(4.0)
                wait_for(lambda: mic_is("trouble"), 20, "the microphone to be missed")
                wait_for(lambda: mic_is("ok"), 20, "the microphone to be back")
                now = calibration()  # the prompt shown waited for it
                assert (now["state"], now["index"], now["prompt"]) == ("listening", 3, text)
            mic.say(read_wav(said[text]))
        wait_for(shown(SAID + 1), 20, "the last prompt said")
        for k in range(SAID + 1, len(PROMPTS) + 1):  # «Saltear» on the rest
            skipped = serve.api.post("/api/calibration", json={"action": "skip", "index": k})
            assert skipped.status_code == 200, skipped.text
        state = wait_for(lambda: calibration() if calibration()["state"] in ("done", "failed")
                         else None, 60, "the fitting")
        assert state["state"] == "done", state["message"]
        assert state["message"].startswith(f"Listo: {SAID} frases") and state["calibrated"], state
        assert find_calibration(models, model) is not None  # kept for the next session too

        # The prompts were not calls: the game has heard nothing yet.
        assert serve.state()["heard"] == [], serve.state()["heard"]
        assert serve.api.post("/api/calibration", json={"action": "close"}).status_code == 200
        mic.say(read_wav(said["truco"]), pause_s=1.0)  # and then the game goes on
        mic.said_all()
        heard = wait_for(lambda: serve.state()["heard"], 20, "the truco to be heard")
        assert [(h["status"], h["text"]) for h in heard] == [("accepted", "truco")], heard
    finally:
        printed = serve.stop()
    assert "calibrando las voces desde la tablet (un jugador)" in printed, printed

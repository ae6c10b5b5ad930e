"""A short game to show the referee working with no microphone and no deck: a script of what is
said at the table (calls, look-alikes and chatter), rendered to speech with espeak-ng.

``DEMO_LOG`` is the same game written for ``truco-referee replay``: what the referee should make
of the spoken script.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from referee.wav import read_pcm, read_wav

GAP_S = 1.2

# What is said, in order; hands end by voice (no quiero, mazo), so no result needs a tap.
DEMO_SCRIPT: tuple[str, ...] = (
    # hand 1, A1 is mano
    "a ver, envido", "quiero", "veintisiete", "treinta y uno",   # B +2
    "pasame el mate",
    "truco", "bueno", "quiero retruco", "vale cuatro", "no quiero",  # A +3
    # hand 2, B1 is mano
    "real envido", "no quiero",                                  # B +1
    "turco", "truco", "no quiero",                              # B +1
    # hand 3, A1 is mano
    "falta envido", "quiero", "veintiocho", "son buenas",        # falta: 15 - 4 = 11, A 14
    "truco", "no quiero",                                        # A +1: 15, game over
)

DEMO_LOG = """\
set points 15
hand
A1: a ver, envido
B1: quiero
A1: veintisiete
B1: treinta y uno
A1: truco
B1: quiero retruco
A1: vale cuatro
B1: no quiero
hand
B1: real envido
A1: no quiero
B1: truco
A1: no quiero
hand
A1: falta envido
B1: quiero
A1: veintiocho
B1: son buenas
A1: truco
B1: no quiero
"""

DEMO_POINTS = 15


class DemoError(RuntimeError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def espeak_line(text: str, out: Path, voice: str = "es-419", speed: int = 150) -> None:
    """Speak one line into a WAV file with espeak-ng."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise DemoError("no-espeak", "falta espeak-ng para hablar el guion: "
                        "apt-get install espeak-ng (scripts/setup.sh lo instala)")
    subprocess.run([exe, "-v", voice, "-s", str(speed), "-w", str(out), text],
                   check=True, capture_output=True)


def join_wavs(parts: Sequence[Path], out: Path, gap_s: float = GAP_S) -> float:
    """One 16 kHz mono WAV of the parts with a silence after each; returns its length (s)."""
    gap = np.zeros((int(gap_s * 16000), 1))
    frames = np.concatenate([x for p in parts for x in (read_wav(p)[:, :1], gap)])
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.clip(frames[:, 0], -1, 1) * 32767).astype("<i2").tobytes())
    return len(frames) / 16000


def say_each(lines: Sequence[str], speak: Callable[[str, Path], None] = espeak_line
             ) -> list[tuple[bytes, str]]:
    """Each line said on its own, as (16 kHz PCM, line): the script's voice giving the
    calibration's prompts, as a player gives them to ``voices calibrate``."""
    with tempfile.TemporaryDirectory(prefix="truco-demo-") as tmp:
        said = []
        for i, line in enumerate(lines):
            part = Path(tmp) / f"{i:02d}.wav"
            speak(line, part)
            said.append((read_pcm(part), line))
        return said


def render_script(out: Path, speak: Callable[[str, Path], None] = espeak_line,
                  script: Sequence[str] = DEMO_SCRIPT) -> float:
    """Render the script, one line after another, into ``out``; returns its length in seconds."""
    with tempfile.TemporaryDirectory(prefix="truco-demo-") as tmp:
        parts = []
        for i, line in enumerate(script):
            part = Path(tmp) / f"{i:02d}.wav"
            speak(line, part)
            parts.append(part)
        return join_wavs(parts, out)

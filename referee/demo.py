"""A short game to show the referee working with no microphone and no deck: a script of what is
said at the table (calls, look-alikes and chatter), rendered to speech with espeak-ng.

``DEMO_LOG`` is the same game written for ``truco-referee replay``: what the referee should make
of the spoken script.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
import time
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from rich.markup import escape

from referee.commands.serve_terminal import ORIGINS, Terminal, in_words
from referee.wav import read_pcm, read_wav

if TYPE_CHECKING:
    from rich.console import Console

    from referee.startup_lines import Part

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


WAIT_FOR_PAGE_S = 60.0  # how long the script waits for someone to open the page
HOLD_S = 2.5  # how long a call written down waits to be shown: the end of its phrase may take it back
LEFT_OUT = frozenset({"cámara"})  # start-up lines of parts the demo never uses


@dataclass
class _Line:
    """A line waiting to be shown: a stored row (``line`` and its ``score``) or plain text."""

    at: float
    text: str = ""
    action: str = ""
    line: str = ""
    origin: str = ""
    score: dict[str, int] | None = None


class DemoTerminal(Terminal):
    """The demo's terminal, read as a game being refereed: each hand, each call written down
    and the score when it changes, beside what the listener says of what it heard.

    A call is written down as soon as its words are heard, and taken back if the whole phrase
    does not confirm it (``VoiceReferee.revise``): each call waits ``HOLD_S`` before it is
    shown, so that one taken back in the meantime is shown once, as doubtful, not as written
    down and undone."""

    def __init__(self, console: Console, wait_s: float = WAIT_FOR_PAGE_S,
                 clock: Callable[[], float] = time.monotonic, every_s: float | None = 0.2) -> None:
        super().__init__(console)
        self.wait_s = wait_s
        self._clock = clock
        self._lock = threading.RLock()
        self._held: list[_Line] = []
        self._taken_back: set[str] = set()  # calls undone before they were shown
        self._hands = 0
        # a deal taken back with a call before it was shown: its header stays where it was, and
        # the deal's next row shows none (the hand is the same one)
        self._header_ahead = False
        self._plays = True  # whether the recording is heard (the start-up lines say)
        self._score = {"A": 0, "B": 0}  # the score last shown (the banner's, of a new game)
        self._stop = threading.Event()
        if every_s is not None:
            threading.Thread(target=self._keep_showing, args=(every_s,), name="demo-terminal",
                             daemon=True).start()

    def log(self, text: str) -> None:
        with self._lock:
            for line in list(self._taken_back):
                if f"↶ {escape(line)} — dudoso" in text:  # never shown as written down
                    self._taken_back.discard(line)
                    text = text.replace("↶", "?", 1)
            text = as_refusal(text)
            if self._held:
                self._held.append(_Line(self._clock(), text))
            else:
                super().log(text)

    def stored(self, action: str, line: str, origin: str, score: dict[str, int] | None) -> None:
        with self._lock:
            if action == "undo":
                kept = [k for k, held in enumerate(self._held) if held.action == "apply"]
                if kept and self._held[kept[-1]].line == line:
                    self._take_back(kept[-1])
                    self.show_due()
                    return
            self._held.append(_Line(self._clock(), action=action, line=line, origin=origin,
                                    score=score))

    def _take_back(self, k: int) -> None:
        """Forget the held row ``k``, undone before it was shown.  A deal taken back with the
        first call of its hand keeps its place as the hand's header, so that the call, shown as
        doubtful, is shown under it."""
        held = self._held[k]
        if held.line != "hand":
            del self._held[k]
            self._taken_back.add(held.line)
        elif self._header_ahead:  # its header is already there
            del self._held[k]
        else:
            self._held[k] = _Line(held.at, action="header")
            self._header_ahead = True

    def parts(self, parts: list[Part]) -> None:
        self._plays = any(part.name == "audio" and part.running for part in parts)
        super().parts([part for part in parts if part.name not in LEFT_OUT])

    def ready(self, url: str) -> None:
        if not self._plays:  # the start-up lines say why
            self.log("  (Ctrl+C para terminar)")
            return
        self.log("  Cada canto que se oye: [green]✓[/green] anotado, [yellow]?[/yellow] dudoso "
                 "(espera que lo confirmen en la tablet), [red]✗[/red] no cuenta (no es un canto, "
                 "o no vale en ese momento).")
        if self.wait_s > 0:
            self.log(f"  Esperando que abras la página {escape(url)} para empezar la partida; si "
                     f"nadie la abre, empieza sola en {self.wait_s:.0f} s. (Ctrl+C para terminar)")
        else:
            self.log("  La partida empieza ya (--exit-when-done no espera la página). "
                     "(Ctrl+C para terminar)")

    def close(self) -> None:
        self._stop.set()
        self.show_due(everything=True)

    def show_due(self, everything: bool = False) -> None:
        """Show the lines that waited long enough (or all of them), in order."""
        with self._lock:
            due = self._clock() - HOLD_S
            while self._held and (everything or self._held[0].at <= due
                                  or not self._held[0].action):
                self._show(self._held.pop(0))

    def _keep_showing(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            self.show_due()

    def _show(self, held: _Line) -> None:
        if not held.action:
            super().log(held.text)
            return
        if held.action == "apply" and held.line == "hand" and self._header_ahead:
            self._header_ahead = False  # the deal again, of the hand whose header is shown
            return
        if held.action == "header" or (held.action == "apply" and held.line == "hand"):
            self._hands += 1
            super().log(f"[bold]— mano {self._hands} —[/bold]")
            return
        said = in_words(held.line)  # «A1 juega 7o», not the log's «A1 plays 7o»
        if held.line == "hand" and self._hands:  # a deal undone after its header was shown:
            said = f"{said} {self._hands}"  # «mano 2», as the header said; dealt again, the
            self._hands -= 1  # hand is «— mano 2 —» again
        what = (f"[green]✓[/green] [bold]{escape(said)}[/bold]" if held.action == "apply"
                else f"[yellow]↶ deshecho: {escape(said)}[/yellow]")
        who = ("" if held.origin == "voice"
               else f"  [dim]({escape(ORIGINS.get(held.origin, held.origin))})[/dim]")
        shown = ""
        if held.score is not None and held.score != self._score:
            self._score = dict(held.score)
            shown = f"   [green]→ A {held.score.get('A', 0)} — B {held.score.get('B', 0)}[/green]"
        super().log(f"          {what}{who}{shown}")


# A refusal of the rules, as the engine words it: the event refused («A1: 10»), then why; as a
# reason of its own (« — A1: 10: …») or quoted at the end of one («(antes: A1: 10: …)»).
_REFUSED = re.compile(r"(— |\((?:antes: )?)([AB][1-3]): ([^:«»()\[\]]+): ")


def as_refusal(text: str) -> str:
    """A terminal line with its refusals of the rules as the tablet words them (``ruled`` in
    web_scoreboard/static/words.js): «No vale el «10» de A1: no hay tantos para decir ahora»."""
    return _REFUSED.sub(lambda m: f"{m[1]}No vale el «{m[3]}» de {m[2]}: ", text)

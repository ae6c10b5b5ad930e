"""Recording the calibration prompts at the table's microphones, each player in turn."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from referee.audio import AudioChunk
from referee.calibration_prompts import PHRASE_MAX_S, PROMPT_TIMEOUT_S, PROMPTS, PhraseCapture
from referee.mic_choice import table_mics


class PlayersStopped(KeyboardInterrupt):
    """Ctrl-C while the players were being recorded: the recordings of those who had said every
    prompt before it (``finished``, one list each, in order); the one being asked has none."""

    def __init__(self, finished: list[list[tuple[bytes, str]]]) -> None:
        super().__init__()
        self.finished = finished


def player_label(player: int, names: list[str] | None) -> str:
    """How the prompts call the ``player``-th (from 1): their name, or «Jugador N»."""
    name = (names or [])[player - 1:player]
    return name[0] if name else f"Jugador {player}"


def capture_one(chunks: Iterator[AudioChunk], timeout_s: float = PROMPT_TIMEOUT_S,
                longest_s: float = PHRASE_MAX_S) -> tuple[bytes | None, str]:
    """The next spoken phrase on the stream (``PhraseCapture``), or None and why not."""
    capture = PhraseCapture(timeout_s, longest_s)
    for chunk in chunks:
        got = capture.feed(chunk.pcm)
        if got is not None:
            return got
    return capture.end()


def from_mic(specs: list[str] | None, players: int = 1, channels: int = 1,
             data_dir: Path | None = None,
             names: list[str] | None = None) -> list[list[tuple[bytes, str]]]:
    """Ask each player, in turn (by their name, where ``names`` gives it), for each prompt and
    record it: one list per player.

    The microphone is opened before the first prompt, and a missing or lost one is an AudioError,
    not a retry: nobody is asked to speak to a microphone that is not there.  Two devices' lag is
    kept in ``data_dir`` for `serve` (``mic_choice.lag_options``).  Ctrl-C is ``PlayersStopped``, with
    the players who had finished."""
    mic = table_mics(specs, channels, keep_trying=False, data_dir=data_dir)
    chunks = iter(mic)
    voices: list[list[tuple[bytes, str]]] = []
    try:
        next(chunks, None)  # opens the microphone, or raises why it cannot
        print("Hablá como en la mesa, a la distancia de siempre y con el ruido de siempre: "
              "calibrá donde juegan. Si no te oigo, sigo con la próxima.")
        for player in range(1, players + 1):
            if players > 1 or (names or [])[player - 1:player]:
                _wait_for(f"{player_label(player, names)} ({player} de {players}): cuando estés "
                          "listo, apretá Enter.")
            out: list[tuple[bytes, str]] = []
            for k, text in enumerate(PROMPTS, 1):
                print(f"[{k}/{len(PROMPTS)}] Decí: «{text}»", flush=True)
                mic.drop_queued()  # what was said before the prompt showed is not its answer
                pcm, missed = capture_one(chunks)
                if pcm is None:
                    print(f"   {missed}; sigo", flush=True)
                    continue
                out.append((pcm, text))
            voices.append(out)
    except KeyboardInterrupt as stop:
        raise PlayersStopped(voices) from stop
    finally:
        mic.stop()
    return voices


def _wait_for(message: str) -> None:
    print(message, flush=True)
    if sys.stdin.isatty():
        input()

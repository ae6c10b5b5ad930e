"""The room left in the data folder, in hours of play: said when `serve` starts, and watched while
it runs, so that the table is told to make room before the disk fills in the middle of a game
(after that, what is heard and tapped is no longer written down: ``TableService.change``).

A lively table fills the folder at about 32 MB an hour, the store with its clips and pictures
(``python -m benchmarks.evening``, README).  The pages show the warning from ``LOW_HOURS`` of play
left, and take it back only from ``ROOM_AGAIN_HOURS``, so that a folder hovering at the mark does
not make the banner come and go.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from web_scoreboard.store_trouble import free_room, size_words

STORE_BYTES_PER_HOUR = 32 << 20
FEW_HOURS = 8  # at start, fewer hours of room than this are worth a warning
LOW_HOURS = 1.0  # while playing, the pages warn from here ...
ROOM_AGAIN_HOURS = 2.0  # ... until there is this much again
EVERY_S = 30.0


def play_left(free: int) -> str:
    """How much play ``free`` bytes hold: «unas 50 horas», «unos 40 minutos»."""
    minutes = free / STORE_BYTES_PER_HOUR * 60
    if minutes >= 120:
        return f"unas {minutes / 60:.0f} horas"
    if minutes >= 5:
        return f"unos {5 * round(minutes / 5)} minutos"
    return "menos de 5 minutos"


def room_words(folder: Path, free: int) -> str:
    """«/datos: quedan 96.0 MB libres (unas 3 horas de juego con sus audios)»."""
    return f"{folder}: quedan {size_words(free)} libres ({play_left(free)} de juego con sus audios)"


def low_message(free: int) -> str:
    """What every page says while the room is low."""
    return (f"Queda poco lugar en el disco: alcanza para {play_left(free)} de juego con sus "
            "audios. Liberá espacio (o borrá partidas viejas en Ajustes) antes de que se llene: "
            "después, lo que se oiga y se toque ya no se anota.")


class RoomWatch:
    """Looks at the room left in ``folder`` and tells ``show`` (low, message) when it runs low
    and when there is room again, once each time; ``say`` gets the terminal's line then."""

    def __init__(self, folder: Path, show: Callable[[bool, str], object],
                 say: Callable[[str], None],
                 free: Callable[[Path], int | None] = free_room) -> None:
        self.folder = folder
        self.show = show
        self.say = say
        self.free = free
        self.low = False

    def check(self, say: bool = True) -> None:
        """Look once: a change of state is shown, and said unless ``say`` is False; the same
        state is not."""
        free = self.free(self.folder)
        if free is None:  # the folder cannot be looked at: the store says its own trouble
            return
        hours = free / STORE_BYTES_PER_HOUR
        low = hours < (ROOM_AGAIN_HOURS if self.low else LOW_HOURS)
        if low == self.low:
            return
        self.low = low
        self.show(low, low_message(free) if low else "")
        if say:
            self.say(f"datos: queda poco lugar: {room_words(self.folder, free)}; liberá espacio "
                     "antes de que se llene a mitad de una partida" if low else
                     f"datos: hay lugar de nuevo: {room_words(self.folder, free)}")

    def run(self, every_s: float = EVERY_S) -> None:
        while True:
            time.sleep(every_s)
            self.check()

    def start(self, every_s: float = EVERY_S) -> threading.Thread:
        """Look now (shown, not said: the start-up line said the room), then every ``every_s``
        seconds for as long as the program runs."""
        self.check(say=False)
        thread = threading.Thread(target=self.run, args=(every_s,), name="room", daemon=True)
        thread.start()
        return thread

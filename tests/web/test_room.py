"""The room left in the data folder while `serve` runs: the pages are warned before the disk
fills in the middle of a game, once, and told when there is room again."""

from __future__ import annotations

from pathlib import Path

from web_scoreboard.room import (
    LOW_HOURS,
    ROOM_AGAIN_HOURS,
    STORE_BYTES_PER_HOUR,
    RoomWatch,
    play_left,
)

HOUR = STORE_BYTES_PER_HOUR


def test_play_left_is_said_in_hours_or_in_minutes() -> None:
    assert play_left(50 * HOUR) == "unas 50 horas"
    assert play_left(2 * HOUR) == "unas 2 horas"
    assert play_left(HOUR) == "unos 60 minutos"
    assert play_left(HOUR * 2 // 3) == "unos 40 minutos"
    assert play_left(HOUR // 20) == "menos de 5 minutos"


def test_the_pages_are_warned_once_when_the_room_runs_low_and_told_when_it_is_back(
        tmp_path: Path) -> None:
    free = [10 * HOUR]
    shown: list[tuple[bool, str]] = []
    said: list[str] = []
    watch = RoomWatch(tmp_path, lambda low, message: shown.append((low, message)), said.append,
                      free=lambda _: free[0])
    watch.check()
    assert shown == [] and said == []  # plenty of room: nothing to say
    for left in (0.9, 0.5, 1.5):  # under the mark, and hovering over it: said once
        free[0] = int(left * HOUR)
        watch.check()
    [(low, message)] = shown
    assert low and message.startswith("Queda poco lugar en el disco: alcanza para unos 55 "
                                      "minutos de juego con sus audios. Liberá espacio")
    assert said == [(f"datos: queda poco lugar: {tmp_path}: quedan 28.8 MB libres (unos 55 "
                     "minutos de juego con sus audios); liberá espacio antes de que se llene a "
                     "mitad de una partida")]
    free[0] = int(ROOM_AGAIN_HOURS * HOUR)  # old games deleted
    watch.check()
    assert shown[1:] == [(False, "")]
    assert said[1] == (f"datos: hay lugar de nuevo: {tmp_path}: quedan 64.0 MB libres (unas 2 "
                       "horas de juego con sus audios)")


def test_a_folder_low_at_start_is_shown_on_the_pages_and_said_only_by_the_start_up_line(
        tmp_path: Path) -> None:
    shown: list[tuple[bool, str]] = []
    said: list[str] = []
    watch = RoomWatch(tmp_path, lambda low, message: shown.append((low, message)), said.append,
                      free=lambda _: int(LOW_HOURS * HOUR / 2))
    watch.start(every_s=3600)
    assert [low for low, _ in shown] == [True] and said == []


def test_a_folder_that_cannot_be_looked_at_says_nothing(tmp_path: Path) -> None:
    shown: list[tuple[bool, str]] = []
    watch = RoomWatch(tmp_path, lambda low, message: shown.append((low, message)), print,
                      free=lambda _: None)
    watch.check()
    assert shown == [] and not watch.low

"""Guessing the table PIN: each wrong one makes the next try wait longer, per address and for the
whole table, so trying them all takes far longer than any game."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from web_scoreboard.access import Lockout, wait_text

PIN = "2468"
HOUR = 3600.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def check(app: FastAPI, address: str, pin: str = PIN) -> httpx.Response:
    page = TestClient(app, client=(address, 50000))
    response: httpx.Response = page.post("/api/pin/check", headers={"X-Table-PIN": pin})
    return response


def test_wrong_pins_from_many_addresses_lock_the_whole_table(
        make_app: Callable[..., FastAPI]) -> None:
    app = make_app()
    assert check(app, "10.0.0.1").status_code == 200  # a tablet in play
    for n in range(20):  # one guess from each of 20 addresses
        assert check(app, f"10.0.1.{n}", f"{n:04d}").status_code == 403
    newcomer = check(app, "10.0.2.1")  # even with the right PIN
    assert newcomer.status_code == 429 and newcomer.json()["error"]["code"] == "pin-locked"
    assert "esperá 5 segundos" in newcomer.json()["error"]["message"]
    assert check(app, "10.0.0.1").status_code == 200  # the tablet in play is not held up


def test_each_further_wrong_pin_doubles_the_wait_up_to_an_hour(
        make_app: Callable[..., FastAPI]) -> None:
    clock = Clock()
    app = make_app(pin_lockout=Lockout(clock=clock))
    for n in range(5):
        assert check(app, "10.0.0.9", f"{n:04d}").status_code == 403
    waits = []
    for n in range(5, 16):
        locked = check(app, "10.0.0.9")
        assert locked.status_code == 429
        waits.append(app.state.guard.wait("10.0.0.9"))
        assert f"esperá {wait_text(waits[-1])}" in locked.json()["error"]["message"]
        clock.now += waits[-1]
        assert check(app, "10.0.0.9", f"{n:04d}").status_code == 403
    assert waits == [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, HOUR]
    clock.now += HOUR
    assert check(app, "10.0.0.9").status_code == 200  # the right PIN, once the wait is over
    assert check(app, "10.0.0.9", "0000").status_code == 403  # and the address starts afresh


def test_trying_every_pin_takes_more_than_a_year() -> None:
    """What the README promises: a new address for every guess, each as soon as allowed."""
    clock = Clock()
    lockout = Lockout(clock=clock)
    tried_at = []
    for n in range(10_000):
        address = f"10.{n // 250}.{n % 250}.1"
        clock.now += lockout.wait(address)
        lockout.wrong(address)
        tried_at.append(clock.now)
    assert sum(t <= 3 * HOUR for t in tried_at) == 31  # in a three-hour evening
    assert tried_at[-1] > 9_900 * HOUR > 365 * 24 * HOUR


def test_waits_in_words() -> None:
    assert [wait_text(s) for s in (0.2, 1, 40, 61, 3600)] == [
        "1 segundo", "1 segundo", "40 segundos", "2 minutos", "1 hora"]

"""Who may change the game: the table PIN, how long a wrong one makes the next try wait, and a
per-client limit on how fast anyone may send changes."""

from __future__ import annotations

import hmac
import math
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from web_scoreboard.store import Store

PIN_PATTERN = re.compile(r"^\d{4,8}$")
TABLE_FREE_TRIES = 20  # wrong PINs, from all addresses together, before the whole table waits
ADDRESS_FREE_TRIES = 5  # wrong PINs from one address before it waits
FIRST_WAIT, LONGEST_WAIT = 5.0, 3600.0  # seconds; the wait doubles from the first to the longest
WAIT_UNITS = ((3600, "hora", "horas"), (60, "minuto", "minutos"), (1, "segundo", "segundos"))


PinCheck = Literal["ok", "missing", "wrong", "locked"]


def wait_text(seconds: float) -> str:
    """A wait in words, rounded up: «5 segundos», «3 minutos», «1 hora»."""
    size, one, many = next((unit for unit in WAIT_UNITS if seconds >= unit[0]), WAIT_UNITS[-1])
    count = max(1, math.ceil(seconds / size))
    return f"{count} {one if count == 1 else many}"


@dataclass(frozen=True)
class Backoff:
    """After ``free`` wrong PINs, each one makes the next try wait ``first`` seconds, twice as
    long as the one before, up to ``longest``."""

    free: int
    first: float = FIRST_WAIT
    longest: float = LONGEST_WAIT

    def wait(self, wrong: int) -> float:
        if wrong < self.free:
            return 0.0
        return min(self.longest, self.first * 2.0 ** min(wrong - self.free, 64))


@dataclass
class _Tries:
    wrong: int = 0
    until: float = 0.0


class Lockout:
    """Wrong PINs counted for each address and for the whole table, each count with its backoff.

    The table's count stops guessing from many addresses; it is never forgiven while the server
    runs, but an address that already gave the right PIN (a tablet in play) does not wait for it.
    """

    def __init__(self, per_address: Backoff = Backoff(ADDRESS_FREE_TRIES),
                 table: Backoff = Backoff(TABLE_FREE_TRIES),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.table, self.clock = per_address, table, clock
        self._addresses: dict[str, _Tries] = {}
        self._table = _Tries()
        self._trusted: set[str] = set()
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before it may try a PIN (0: it may try now)."""
        with self._lock:
            until = self._addresses.get(client, _Tries()).until
            if client not in self._trusted:
                until = max(until, self._table.until)
        return max(0.0, until - self.clock())

    def wrong(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            tries = self._addresses.setdefault(client, _Tries())
            for count, backoff in ((tries, self.per_address), (self._table, self.table)):
                count.wrong += 1
                count.until = now + backoff.wait(count.wrong)
            if len(self._addresses) > 4096:  # the table's count still holds the forgotten ones
                for key in [k for k, t in self._addresses.items() if t.until < now]:
                    del self._addresses[key]

    def right(self, client: str) -> None:
        with self._lock:
            self._addresses.pop(client, None)
            self._trusted.add(client)


class PinGuard:
    """The table PIN: given on the command line, kept in the store, or made up on first start.

    Wrong PINs make the next try wait (``Lockout``): after 5 from one address, or 20 from all of
    them together, 5 seconds, then twice as long after each further one, up to an hour.
    """

    def __init__(self, store: Store, pin: str | None = None,
                 lockout: Lockout | None = None) -> None:
        self._store = store
        self._lockout = lockout or Lockout()
        self._verifying = threading.Lock()  # requests in parallel must not share one free try
        if pin is not None:
            if not PIN_PATTERN.match(pin):
                raise ValueError(f"PIN inválido {pin!r}: tiene que tener de 4 a 8 números")
            store.set_meta("pin", pin)
        elif store.get_meta("pin") is None:
            store.set_meta("pin", f"{secrets.randbelow(10_000):04d}")
        self._pin = store.get_meta("pin") or ""

    @property
    def pin(self) -> str:
        return self._pin

    def check(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode(), self._pin.encode())

    def verify(self, candidate: str | None, client: str) -> PinCheck:
        """Check a PIN sent by ``client`` (an address), counting the wrong ones."""
        with self._verifying:
            if self._lockout.wait(client) > 0:
                return "locked"
            if not candidate:
                return "missing"
            if self.check(candidate):
                self._lockout.right(client)
                return "ok"
            self._lockout.wrong(client)
            return "wrong"

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next PIN is checked."""
        return self._lockout.wait(client)

    def change(self, new_pin: str) -> None:
        if not PIN_PATTERN.match(new_pin):
            raise ValueError(f"PIN inválido {new_pin!r}: tiene que tener de 4 a 8 números")
        self._store.set_meta("pin", new_pin)
        self._pin = new_pin


@dataclass(frozen=True)
class RateLimit:
    """At most ``burst`` messages at once, refilled at ``per_second``."""

    per_second: float = 10.0
    burst: float = 30.0


class RateLimiter:
    """A token bucket per client (an address, or one WebSocket connection)."""

    def __init__(self, limit: RateLimit | None) -> None:
        self.limit = limit
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        if self.limit is None:
            return True
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.limit.burst, now))
            tokens = min(self.limit.burst, tokens + (now - last) * self.limit.per_second)
            allowed = tokens >= 1.0
            self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
            if len(self._buckets) > 4096:
                self._forget_idle(now)
        return allowed

    def forget(self, key: str) -> None:
        with self._lock:
            self._buckets.pop(key, None)

    def _forget_idle(self, now: float) -> None:
        assert self.limit is not None
        full_after = self.limit.burst / max(self.limit.per_second, 1e-9)
        for key, (_, last) in list(self._buckets.items()):
            if now - last > full_after:
                del self._buckets[key]

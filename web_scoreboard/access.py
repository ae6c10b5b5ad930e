"""Who may change the game: the table PIN, and a per-client limit on how fast anyone may try."""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Literal

from web_scoreboard.store import Store

PIN_PATTERN = re.compile(r"^\d{4,8}$")


PinCheck = Literal["ok", "missing", "wrong", "locked"]


class PinGuard:
    """The table PIN: given on the command line, kept in the store, or made up on first start.

    After a few wrong PINs from one address, that address must wait before trying again, so a
    4-digit PIN cannot be guessed by trying them all.
    """

    def __init__(self, store: Store, pin: str | None = None,
                 wrong_tries: RateLimit | None = None) -> None:
        self._store = store
        self._wrong = RateLimiter(wrong_tries or RateLimit(per_second=0.2, burst=5))
        if pin is not None:
            if not PIN_PATTERN.match(pin):
                raise ValueError(f"invalid pin {pin!r}: use 4 to 8 digits")
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
        if self._wrong.blocked(client):
            return "locked"
        if not candidate:
            return "missing"
        if self.check(candidate):
            return "ok"
        self._wrong.allow(client)
        return "wrong"

    def change(self, new_pin: str) -> None:
        if not PIN_PATTERN.match(new_pin):
            raise ValueError(f"invalid pin {new_pin!r}: use 4 to 8 digits")
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

    def blocked(self, key: str) -> bool:
        """True if ``key`` has no message left to spend right now (nothing is spent)."""
        if self.limit is None:
            return False
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.limit.burst, now))
        return min(self.limit.burst, tokens + (now - last) * self.limit.per_second) < 1.0

    def forget(self, key: str) -> None:
        with self._lock:
            self._buckets.pop(key, None)

    def _forget_idle(self, now: float) -> None:
        assert self.limit is not None
        full_after = self.limit.burst / max(self.limit.per_second, 1e-9)
        for key, (_, last) in list(self._buckets.items()):
            if now - last > full_after:
                del self._buckets[key]

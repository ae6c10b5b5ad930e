"""Who may change the game: the table PIN, and a per-client limit on how fast anyone may try."""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass

from web_scoreboard.store import Store

PIN_PATTERN = re.compile(r"^\d{4,8}$")


class PinGuard:
    """The table PIN: given on the command line, kept in the store, or made up on first start."""

    def __init__(self, store: Store, pin: str | None = None) -> None:
        self._store = store
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

    def forget(self, key: str) -> None:
        with self._lock:
            self._buckets.pop(key, None)

    def _forget_idle(self, now: float) -> None:
        assert self.limit is not None
        full_after = self.limit.burst / max(self.limit.per_second, 1e-9)
        for key, (_, last) in list(self._buckets.items()):
            if now - last > full_after:
                del self._buckets[key]

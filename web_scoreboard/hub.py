"""The broadcast hub: pushes every new snapshot to every open page, in order.

Snapshots are published from any thread (HTTP workers, the listener, the camera); the hub hands
them to the event loop with ``call_soon_threadsafe``, whose callbacks run in FIFO order, so pages
receive snapshots in the order they were made.  Each page has its own queue and sender task, so
one slow tablet never holds up the others; if a page falls far behind, older snapshots are
dropped in favour of newer ones (each snapshot is complete, so nothing is lost but intermediate
frames).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

Sender = Callable[[str], Awaitable[None]]


@dataclass(eq=False)
class Subscriber:
    """One open page: its pending messages and the sequence number of the last one queued."""

    send: Sender
    last_seq: int = -1
    max_pending: int = 256
    pending: deque[str] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: int = 0
    closed: bool = False

    def offer(self, seq: int, text: str) -> None:
        """Queue a message unless it is not newer than what the page already has."""
        if self.closed or seq <= self.last_seq:
            return
        self.last_seq = seq
        self.pending.append(text)
        while len(self.pending) > self.max_pending:
            self.pending.popleft()
            self.dropped += 1
        self.wake.set()

    def reply(self, text: str) -> bool:
        """Queue an answer meant for this page only (never dropped); False, and the page given
        up, once it has left ``max_pending`` messages unread: it sends and never reads."""
        if self.closed:
            return False
        if len(self.pending) >= self.max_pending:
            self.closed = True
            self.wake.set()
            return False
        self.pending.append(text)
        self.wake.set()
        return True

    async def run(self) -> None:
        """Send queued messages until the page goes away (or its connection breaks)."""
        while not self.closed:
            await self.wake.wait()
            self.wake.clear()
            while self.pending and not self.closed:
                try:
                    await self.send(self.pending.popleft())
                except Exception:  # noqa: BLE001 - any failure means the page is gone; its
                    # receive loop notices and unsubscribes it
                    self.closed = True
                    return


class Hub:
    """The set of open pages and a thread-safe way to push a snapshot to all of them."""

    def __init__(self, max_pending: int = 256) -> None:
        self.max_pending = max_pending
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: set[Subscriber] = set()
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return len(self._subscribers)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Attach the hub to the server's event loop (done at start-up)."""
        self._loop = loop

    def bind_if_unbound(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is None or self._loop.is_closed():
            self._loop = loop

    def subscribe(self, send: Sender, seq: int, text: str) -> Subscriber:
        """Register a page and queue its first snapshot; call from the event loop."""
        sub = Subscriber(send=send, max_pending=self.max_pending)
        sub.offer(seq, text)
        with self._lock:
            self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        sub.closed = True
        sub.wake.set()
        with self._lock:
            self._subscribers.discard(sub)

    def publish(self, seq: int, text: str) -> None:
        """Push a snapshot to every page; safe from any thread, keeps the publishing order."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._deliver, seq, text)
        except RuntimeError:  # loop shutting down: nobody left to tell
            pass

    def _deliver(self, seq: int, text: str) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.offer(seq, text)

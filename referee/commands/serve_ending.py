"""Ending `serve` on SIGTERM or SIGHUP as Ctrl+C ends it: the store closed before the process
ends by the signal."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn


class Stopped(BaseException):
    """The system asked serve to end (SIGTERM: systemd, a shutdown; SIGHUP: its terminal
    closed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Ending:
    """Ends serve on SIGTERM or SIGHUP as Ctrl+C does: the page's server stops first (uvicorn
    takes SIGTERM itself while it runs, and sends it on once it stopped), then ``Stopped``
    unwinds the program, so that the store is closed (its ``-wal`` copied into the file) before
    the process ends by the signal."""

    def __init__(self) -> None:
        self.server: uvicorn.Server | None = None
        self.signum = 0

    def __call__(self, signum: int, _: FrameType | None) -> None:
        if self.server is not None and not self.server.should_exit:
            self.server.should_exit = True  # it ends its connections, then _serve raises
            self.signum = signum
            return
        raise Stopped(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle the signals that would end the process with the store open (an ignored one,
        as under ``nohup``, stays ignored)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        kept = {sig: signal.signal(sig, self) for sig in ENDING_SIGNALS
                if signal.getsignal(sig) is signal.SIG_DFL}
        try:
            yield
        finally:
            for sig, handler in kept.items():
                signal.signal(sig, handler)


def end_by(stop: Stopped, me: str, before: Callable[[], None] | None = None) -> int:
    """Say the signal that ended ``me`` (``truco-referee serve``), run ``before``, and end the
    process by that signal, as it would have ended it (no ``finally`` runs after)."""
    print(f"{me}: terminado por la señal {signal.Signals(stop.signum).name}", file=sys.stderr,
          flush=True)
    sys.stdout.flush()
    if before is not None:
        before()
    signal.signal(stop.signum, signal.SIG_DFL)
    signal.raise_signal(stop.signum)
    return 128 + stop.signum  # not reached

"""Why the engine refuses an event."""


class EngineError(ValueError):
    """Base of the engine's refusals; ``reason`` is the plain text shown to the players."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidEvent(EngineError):
    """An event that is malformed whatever the state (unknown seat, impossible envido number)."""


class IllegalEvent(EngineError):
    """A well-formed event the rules do not allow now; the state is left exactly as it was."""

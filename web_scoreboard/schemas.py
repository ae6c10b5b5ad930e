"""What a page may send: every request body and WebSocket message, validated by pydantic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from referee.names import clean_name, same_name
from web_scoreboard.access import PIN_PATTERN

# Error types of the checks below: their messages are already in Spanish, for the page to show.
OWN_ERRORS = frozenset({"text_empty", "text_too_long", "pin_format", "name_same"})


def _length(what: str, most: int) -> Callable[[str], str]:
    """A check of a text's length that says what is wrong in Spanish, for the page to show."""

    def check(value: str) -> str:
        if not value:
            raise PydanticCustomError("text_empty", f"{what} no puede quedar vacío")
        if len(value) > most:
            raise PydanticCustomError(
                "text_too_long", f"{what} puede tener hasta {most} caracteres (tiene {len(value)})")
        return value

    return check


def _pin(value: str) -> str:
    if not PIN_PATTERN.match(value):
        raise PydanticCustomError("pin_format", "el PIN tiene que tener de 4 a 8 números")
    return value


Line = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_length("el evento", 200)),
                 Field(json_schema_extra={"minLength": 1, "maxLength": 200})]
# A team's name as kept (``referee.names.clean_name``): composed (NFC), so that a name typed on a
# keyboard that writes «í» as «i» plus an accent is stored, shown and counted as the same name;
# on one line, spaces collapsed.
Name = Annotated[str, AfterValidator(clean_name), AfterValidator(_length("el nombre", 24)),
                 Field(json_schema_extra={"minLength": 1, "maxLength": 24})]
Pin = Annotated[str, AfterValidator(_pin), Field(json_schema_extra={"pattern": PIN_PATTERN.pattern})]
# A game's or a heard item's number: an SQLite integer (64 bits), or the store cannot look it up.
MAX_ROW = 2**63 - 1
RowId = Annotated[int, Field(ge=-MAX_ROW - 1, le=MAX_ROW)]
Seq = Annotated[int, Field(ge=0, le=MAX_ROW)]
SeatName = Annotated[str, StringConstraints(pattern=r"^[AB][1-3]$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventIn(Strict):
    """One event in the replay-log notation, e.g. ``{"line": "A1: truco"}``."""

    line: Line


class SeatIn(Strict):
    """The seat that said the last call, a partner of the seat it was given to: ``{"seat": "A2"}``."""

    seat: SeatName


# A call a doubtful heard one may have been the end of (``phrases.longer_calls``).
CallName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)]


class ConfirmIn(Strict):
    """How a doubtful heard call is confirmed: as heard, or as the longer call it ended
    (``{"instead": "falta envido"}``)."""

    instead: CallName | None = None


class SwapIn(Strict):
    """The last call was the end of a longer one: ``{"to": "falta envido"}``."""

    to: CallName


class NamesIn(Strict):
    """The teams' names: two names, not one name twice (``referee.names.same_name``: in any case
    or Unicode form), or the board could not say in words which team it means."""

    A: Name
    B: Name

    @field_validator("B")
    @classmethod
    def _not_the_same_as_a(cls, value: str, info: ValidationInfo) -> str:
        other = info.data.get("A")
        if other is not None and same_name(other, value):
            raise PydanticCustomError(
                "name_same", "los dos equipos no pueden llamarse igual («{a}» y «{b}»): "
                "cambiá uno, así el tablero dice de quién habla", {"a": other, "b": value})
        return value


class SettingsIn(Strict):
    """Rule settings for a new game; what is left out is kept from the current game."""

    players: Literal[2, 4, 6] | None = None
    points: Literal[15, 30] | None = None
    flor: bool | None = None
    falta: Literal["leader", "malas", "dos-faltas", "winner"] | None = None
    envido_credit: Literal["settled", "hand-end"] | None = None
    mazo_extra: bool | None = None
    pica_pica: bool | None = None
    match: bool | None = None
    contraflor_points: int | None = Field(default=None, ge=1, le=30)
    resto: Literal["falta+flores", "falta"] | None = None

    def given(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class NewGameIn(Strict):
    settings: SettingsIn | None = None
    names: NamesIn | None = None


class CalibrationIn(Strict):
    """A tap on the voices' calibration panel: ``{"action": "start", "players": 2}``, or "add"
    (players who sat down at a calibrated table: fitted with the kept recordings); then "next"
    (the next player is ready), "skip" (the prompt shown), "cancel", "close" (the result was
    read), "remove" (a kept player who left: ``{"action": "remove", "index": 2}``), "rename"
    (a kept player's name: ``{"action": "rename", "index": 2, "name": "Juan"}``; "" takes it
    away), "name" (the player saying the prompts, or the next one to: ``{"action": "name",
    "name": "Ana"}``), "forget" (the table's calibration)."""

    action: Literal["start", "add", "next", "skip", "name", "cancel", "close", "remove",
                    "rename", "forget"]
    players: Annotated[int, Field(ge=1, le=6)] = 1
    # with "skip": the prompt shown (its number), refused if the table has moved on since;
    # with "remove" or "rename": the kept player's number
    index: Annotated[int, Field(ge=1, le=1000)] | None = None
    # with "remove" or "rename": how many kept players the page listed, refused if the list
    # changed since
    kept: Annotated[int, Field(ge=1, le=1000)] | None = None
    # with "rename" or "name": the player's name (longer than the referee keeps is refused in words)
    name: Annotated[str, Field(max_length=200)] = ""


class TableAudioIn(Strict):
    """How much of the table's last sound to hear again: ``{"seconds": 30}``."""

    seconds: Annotated[int, Field(ge=1, le=600)] = 30  # the most serve --table-audio keeps


class TableAudioKeepIn(Strict):
    """Keep with the game the sound heard again: ``{"id": …}``, its ``X-Table-Audio``."""

    id: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]


class PinIn(Strict):
    pin: Pin


# -- WebSocket (and /api/actions) messages: {"action": ..., "pin": ..., "id": ...} -------------
class Message(Strict):
    pin: str | None = Field(default=None, max_length=16)
    id: int | str | None = None


class LastLineMsg(Message):
    """A change with the snapshot the page showed (``Snapshots.require_seen``)."""

    seq: Seq | None = None


class EventMsg(LastLineMsg):
    action: Literal["event"]
    line: Line


class UndoMsg(LastLineMsg):
    action: Literal["undo"]


class FlipMsg(LastLineMsg):
    action: Literal["flip"]


class SwapMsg(LastLineMsg):
    action: Literal["swap"]
    to: CallName | None = None  # a longer call the last one ended («falta envido»)


class SeatMsg(LastLineMsg):
    """The last call was said by ``seat``, a partner of the seat it was given to."""

    action: Literal["seat"]
    seat: SeatName


class NamesMsg(Message):
    action: Literal["names"]
    names: NamesIn


class NewGameMsg(Message):
    action: Literal["new-game"]
    settings: SettingsIn | None = None
    names: NamesIn | None = None


class OpenGameMsg(Message):
    action: Literal["open-game"]
    game_id: RowId


class ConfirmMsg(Message):
    action: Literal["confirm"]
    heard_id: RowId
    instead: CallName | None = None


class DismissMsg(Message):
    action: Literal["dismiss"]
    heard_id: RowId


class PingMsg(Message):
    """A page asking whether the server is still there (no PIN: watching needs none)."""

    action: Literal["ping"]


Command = Annotated[
    EventMsg | UndoMsg | FlipMsg | SwapMsg | SeatMsg | NamesMsg | NewGameMsg | OpenGameMsg | ConfirmMsg
    | DismissMsg | PingMsg,
    Field(discriminator="action"),
]
COMMAND = TypeAdapter(Command)
ACTIONS = ("event", "undo", "flip", "swap", "seat", "names", "new-game", "open-game", "confirm", "dismiss",
           "ping")

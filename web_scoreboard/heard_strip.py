"""The "Oído" strip: what the referee heard and the camera saw, as stored and as the pages show it.

Each item is a row of the store; the strip keeps a copy of the latest ones for the snapshot.
Every change to an item is written to the store first, then to that copy.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from referee import clip_codec
from referee.doubt import CONFIRMED
from web_scoreboard.errors import ActionError, written
from web_scoreboard.store import HeardRow, Store

UNDONE_REASON = "deshecho a mano"
DISMISSED_REASON = "descartado a mano"


def may_be_confirmed(item: dict[str, Any]) -> bool:
    """Whether a tap may still apply a heard item (as stored, ``HeardRow.to_dict``): one waiting
    for it, or one heard and refused (a look-alike, or a call or number the rules refuse), which a
    tap may take for the longer call it was the end of («mazo» of «me voy al mazo», «cuatro» of
    «vale cuatro»: ``HeardCalls.instead``); not one a person set aside."""
    extra = item.get("extra") or {}
    refused = "words" in extra and item.get("reason") != DISMISSED_REASON
    return item.get("status") == "unsure" or item.get("status") == "rejected" and refused


def evidence_of_lines(rows: list[HeardRow], lines: list[str]) -> dict[int, dict[str, Any]]:
    """For each line of the log (``lines``) that a heard call or the camera applied and that still
    stands there, what was heard or seen, with its clip or picture: ``{index: {"heard_id",
    "text", "clip_id", "seen"}}``, for the history to play it beside the line."""
    found: dict[int, dict[str, Any]] = {}
    for row in rows:
        at, applied = row.extra.get("applied_at"), row.extra.get("applied")
        if (row.status != "accepted" or not row.clip_id or not isinstance(at, int)
                or not isinstance(applied, list) or lines[at:at + len(applied)] != applied):
            continue
        for n in range(at, at + len(applied)):
            found[n] = {"heard_id": row.id, "text": row.text, "clip_id": row.clip_id,
                        "seen": bool(row.extra.get("seen"))}
    return found


def voice_tally(rows: list[HeardRow]) -> dict[str, int]:
    """How the voice referee did in a game, for the table to judge it by: of what it heard
    (the camera's and the sounds kept by hand aside), how many were applied as heard
    (``alone``), applied with a tap (``confirmed``), given to another seat or turned into their
    opposite by a tap (``changed``), undone, refused (a look-alike, or a call the rules did not
    take), set aside by a tap (``dismissed``), or still waiting for one (``waiting``)."""
    return dict(Counter(_verdict(row) for row in rows
                        if row.status != "kept" and not row.extra.get("seen")))


def _verdict(row: HeardRow) -> str:
    if row.status == "accepted":
        return ("changed" if row.extra.get("changed") else
                "confirmed" if (row.reason or "").startswith(CONFIRMED) else "alone")
    if row.status == "rejected":
        return "dismissed" if row.reason == DISMISSED_REASON else "refused"
    return {"unsure": "waiting"}.get(row.status, row.status)


class HeardStrip:
    """The heard items of the game in play: stored, and the latest ``limit`` of them shown."""

    def __init__(self, store: Store, limit: int = 30) -> None:
        self.store = store
        self._limit = limit
        self._shown: deque[dict[str, Any]] = deque(maxlen=limit)

    def load(self, game_id: int) -> None:
        """Show the latest stored items of a game (newest first)."""
        self._shown.clear()
        self._shown.extend(h.to_dict() for h in self.store.heard(game_id, self._limit))

    def shown(self) -> list[dict[str, Any]]:
        """The items as the snapshot shows them, newest first (copies)."""
        return [dict(h) for h in self._shown]

    def guess_of_last(self, lines: list[str]) -> list[str]:
        """What of who said the last of ``lines`` (the log) is a guess (``who_said``), when a heard
        call applied it and no tap has changed it since; else nothing."""
        for item in self._shown:
            extra = item.get("extra") or {}
            at, applied = extra.get("applied_at"), extra.get("applied")
            if (item["status"] == "accepted" and isinstance(at, int) and applied
                    and applied == lines[at:]):
                return [] if extra.get("changed") else list(extra.get("guess") or [])
        return []

    def add(self, game_id: int, status: str, text: str, *, line: str | None,
            clip: bytes | None, extra: dict[str, Any], reason: str | None = None,
            team: str | None = None, mime: str = clip_codec.WAV) -> dict[str, Any]:
        """Store an item (with its clip, if any) and show it first; the stored item as a dict."""
        clip_id = self.store.put_clip(clip, mime) if clip else None
        row = self.store.add_heard(game_id, status, text, line=line, reason=reason,
                                   team=team, clip_id=clip_id, extra=extra)
        self._shown.appendleft(row.to_dict())
        return row.to_dict()

    def set_status(self, heard_id: int, status: str, reason: str | None, *,
                   line: str | None = None, extra: dict[str, Any] | None = None) -> None:
        """Store an item's new status and reason (with the line it stands for and its extra, if
        given) and show them."""
        if extra is not None:
            written(lambda: self.store.set_heard_extra(heard_id, extra))
        written(lambda: self.store.set_heard_status(heard_id, status, reason, line=line))
        changed = {"line": line, "extra": extra}
        self.show(heard_id, status=status, reason=reason,
                  **{k: v for k, v in changed.items() if v is not None})

    def show(self, heard_id: int, **fields: Any) -> None:
        """Update the shown copy of an item (already stored)."""
        for item in self._shown:
            if item["id"] == heard_id:
                item.update(fields)

    def unsure(self, game_id: int, heard_id: int, refused: bool = False) -> HeardRow:
        """The item ``heard_id`` of the game, if it still waits for a tap (or, ``refused``, was
        heard and refused, and a tap may take it for a longer call: ``may_be_confirmed``); else
        ActionError."""
        row = self.store.heard_item(heard_id)
        if row is None or row.game_id != game_id:
            raise ActionError("no-such-heard", f"no hay nada oído con el número {heard_id}", 404)
        if row.status != "unsure" and not (refused and may_be_confirmed(row.to_dict())):
            raise ActionError("not-unsure", "eso ya fue decidido")
        return row

    def mark_undone(self, game_id: int, start: int) -> None:
        """Show each heard call applied at line ``start`` or later, now taken back by an undo, as
        undone (stored, so a restart shows it too)."""
        for row in self.store.heard_of(game_id, "accepted"):
            at = row.extra.get("applied_at")
            if isinstance(at, int) and at >= start:
                self.set_status(row.id, "undone", UNDONE_REASON)

    def reline(self, game_id: int, start: int, lines: list[str], how: str) -> None:
        """Show each heard call applied at line ``start`` or later that a tap gave to another
        seat or turned into its opposite (the log is now ``lines``) as it stands now, marked as
        changed by hand, and ``how`` (``flip``, ``seat``, ``swap``: a swapped answer's words were
        misheard, so it is not learned from); stored, so a restart shows it too.  Such a call
        ends the log, and the lines it brought with it (``dealt``: the hand it dealt, the envido
        of a pica-pica duel it set aside) are those between its first line and its new place: a
        call moved into a duel awaiting its numbers sets that one aside, one moved out of it
        takes the set-aside back."""
        for row in self.store.heard_of(game_id, "accepted"):
            at, applied = row.extra.get("applied_at"), row.extra.get("applied")
            if not (isinstance(at, int) and at >= start and isinstance(applied, list)):
                continue
            begin, now_at = at - len(row.extra.get("dealt") or []), len(lines) - len(applied)
            now = lines[now_at:]
            if applied and begin <= now_at and now != applied:
                self.set_status(row.id, "accepted", row.reason, line=" · ".join(now),
                                extra={**row.extra, "applied": now, "applied_at": now_at,
                                       "dealt": lines[begin:now_at], "changed": how})

"""The evidence folder's clips bounded like a dashcam's loop: the sessions on the disk, oldest
first, and the words that say which were let go (``referee.evidence.EvidenceStore``)."""

from __future__ import annotations

import calendar
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

CLIP_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9]{5}$")  # <session>-<n>
SESSION_FORMAT = "%Y%m%dT%H%M%SZ"  # UTC start time: sessions sort in the order they began
MB = 1_000_000  # as disks are sold
MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
          "septiembre", "octubre", "noviembre", "diciembre")



@dataclass
class Session:
    """The clips one session kept, as they are on the disk."""

    name: str
    clips: list[Path] = field(default_factory=list)
    size: int = 0
    newest: float = 0.0  # when its last clip was written (UNIX time)


def sessions_on_disk(clips_dir: Path) -> list[Session]:
    """The sessions that have clips in ``clips_dir``, oldest first (files not named as the
    store names its clips are left alone)."""
    found: dict[str, Session] = {}
    with os.scandir(clips_dir) as entries:
        for entry in entries:
            ident = entry.name.removesuffix(".wav")
            if ident == entry.name or not CLIP_ID.match(ident):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:  # let go meanwhile by another listen
                continue
            if stat.S_ISREG(info.st_mode):
                session = found.setdefault(ident.split("-")[0], Session(ident.split("-")[0]))
                session.clips.append(Path(entry.path))
                session.size += info.st_size
                session.newest = max(session.newest, info.st_mtime)
    return [found[name] for name in sorted(found)]


def unlink_all(paths: list[Path]) -> tuple[int, OSError | None]:
    """Delete ``paths``: the bytes freed, and the error that stopped it, if one did."""
    freed = 0
    for path in paths:
        try:
            size = path.stat().st_size
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as err:
            return freed, err
        freed += size
    return freed, None


def let_go_words(gone: list[Session], limit: int) -> str:
    """«borré los audios de 3 sesiones viejas (del 2 al 9 de noviembre, 412 MB) para no pasar
    de 1 GB; …»."""
    which = "1 sesión vieja" if len(gone) == 1 else f"{len(gone)} sesiones viejas"
    them = "ella" if len(gone) == 1 else "ellas"
    return (f"borré los audios de {which} ({days_words(gone[0].name, gone[-1].name)}, "
            f"{size_words(sum(s.size for s in gone))}) para no pasar de {size_words(limit)}; "
            f"lo que se oyó en {them} sigue anotado")


def days_words(first: str, last: str) -> str:
    """The days (local) of two sessions: «del 2 al 9 de noviembre», «del 2 de noviembre», «del
    28 de octubre al 9 de noviembre»; with the year when it is not this one."""
    a, b = (time.localtime(calendar.timegm(time.strptime(s, SESSION_FORMAT))) for s in (first, last))
    year = a.tm_year != b.tm_year or b.tm_year != time.localtime().tm_year
    end = f"{b.tm_mday} de {MONTHS[b.tm_mon - 1]}" + (f" de {b.tm_year}" if year else "")
    if (a.tm_year, a.tm_yday) == (b.tm_year, b.tm_yday):
        return f"del {end}"
    if (a.tm_year, a.tm_mon) == (b.tm_year, b.tm_mon):
        return f"del {a.tm_mday} al {end}"
    start = f"{a.tm_mday} de {MONTHS[a.tm_mon - 1]}" + (f" de {a.tm_year}" if a.tm_year != b.tm_year else "")
    return f"del {start} al {end}"


def size_words(n: int) -> str:
    """«800 KB», «412 MB», «1 GB», «1.5 GB» (of 1000, as disks are sold)."""
    if n >= 1000 * MB:
        return f"{n / (1000 * MB):.1f}".removesuffix(".0") + " GB"
    if n >= MB:
        return f"{round(n / MB)} MB"
    return f"{max(1, round(n / 1000))} KB"

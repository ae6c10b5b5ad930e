"""Where models live: ``--models-dir``, else ``$TRUCO_REFEREE_MODELS``, else a per-user folder."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from models.syserrors import said

ENV_VAR = "TRUCO_REFEREE_MODELS"


def user_data_dir() -> Path:
    """The per-user folder of truco-referee (``$XDG_DATA_HOME/truco-referee``): the scoreboard's
    store, evidence, and the models folder by default.  A relative ``$XDG_DATA_HOME`` is ignored,
    as the XDG spec says (it would move with the folder the command runs in)."""
    data_home = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):
        data_home = str(Path.home() / ".local" / "share")
    return Path(data_home) / "truco-referee"


def default_models_dir() -> Path:
    """The per-user models folder (``$XDG_DATA_HOME/truco-referee/models``)."""
    return user_data_dir() / "models"


def models_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the models directory from an explicit option, the environment, or the default."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return default_models_dir()


def fetch_command(models: Path | None, *words: str) -> str:
    """``truco-referee models fetch`` into ``models``, as the person types it: with
    ``--models-dir`` (quoted for the shell) unless ``models`` is the folder the command takes
    without it."""
    where = ([] if models is None or models == models_dir()
             else ["--models-dir", shell_word(str(models))])
    return " ".join(["truco-referee models fetch", *words, *where])


def shell_word(text: str) -> str:
    """``text`` as one word for the shell, quoted only if it must be; in double quotes where they
    do, since the advice it goes in is itself in single quotes ('… --models-dir "mis modelos"')."""
    quoted = shlex.quote(text)
    if quoted == text or any(c in text for c in '"$`\\!'):
        return quoted
    return f'"{text}"'


NO_ENTRY = "no tengo permiso para entrar"


def _cannot_look(path: Path, why: str) -> str:
    return f"no puedo mirar la carpeta de modelos {path}: {why}; elegí otra con --models-dir"


def models_dir_problem(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """Why the models directory cannot be one (a file, or a link to nothing, is where it goes),
    naming where it came from; None when it can."""
    path = models_dir(explicit)
    try:
        if path.is_dir():  # and one this user may enter and read (not another's, of mode 700)
            return None if os.access(path, os.R_OK | os.X_OK) else _cannot_look(path, NO_ENTRY)
        if not (path.exists() or path.is_symlink()):
            return None
    except OSError as err:  # a folder on the way this user may not enter (another's home)
        return _cannot_look(path, NO_ENTRY if isinstance(err, PermissionError) else said(err))
    what = "un archivo" if path.exists() else "un enlace a algo que no existe"
    if explicit:
        return f"--models-dir {path}: es {what}, no una carpeta"
    if os.environ.get(ENV_VAR):
        return (f"${ENV_VAR} apunta a {what} ({path}), no a una carpeta; cambiá la variable o "
                "elegí otra carpeta con --models-dir")
    return (f"la carpeta de modelos {path} es {what}; movelo o elegí otra carpeta con "
            "--models-dir")

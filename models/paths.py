"""Where models live: ``--models-dir``, else ``$TRUCO_REFEREE_MODELS``, else a per-user folder."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "TRUCO_REFEREE_MODELS"


def user_data_dir() -> Path:
    """The per-user folder of truco-referee (``$XDG_DATA_HOME/truco-referee``): the scoreboard's
    store, evidence, and the models folder by default."""
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
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


def models_dir_problem(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """Why the models directory cannot be one (a file, or a link to nothing, is where it goes),
    naming where it came from; None when it can."""
    path = models_dir(explicit)
    if path.is_dir() or not (path.exists() or path.is_symlink()):
        return None
    what = "un archivo" if path.exists() else "un enlace a algo que no existe"
    if explicit:
        return f"--models-dir {path}: es {what}, no una carpeta"
    if os.environ.get(ENV_VAR):
        return (f"${ENV_VAR} apunta a {what} ({path}), no a una carpeta; cambiá la variable o "
                "elegí otra carpeta con --models-dir")
    return (f"la carpeta de modelos {path} es {what}; movelo o elegí otra carpeta con "
            "--models-dir")

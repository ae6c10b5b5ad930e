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

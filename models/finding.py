"""Where a model is in the models folder: the folder the catalog fetches it into, else one copied
there by hand (any ``vosk-model*-es*`` folder; a Sphinx acoustic model up to two folders down).
One answer for the recognizer finder and 'models check', which judge what they find alike."""

from __future__ import annotations

from pathlib import Path

from models.catalog import ModelSpec
from models.paths import fetch_command
from models.validate import Status, acoustic_dir, check, judge


def _vosk_copy(models_dir: Path) -> Path | None:
    """The first Spanish Vosk folder (``vosk-model*-es*``) in the models folder."""
    if not models_dir.is_dir():
        return None
    return next((child for child in sorted(models_dir.iterdir())
                 if child.name.startswith("vosk-model") and "-es" in child.name
                 and not child.name.endswith(".unpacking") and child.is_dir()), None)


def _sphinx_copy(models_dir: Path) -> Path | None:
    """The first Sphinx acoustic model up to two folders down the models folder."""
    return acoustic_dir(models_dir, depth=2)


# Where a model of each kind copied by hand is looked for (a deck is only in its own folder).
COPIES = {"vosk": _vosk_copy, "sphinx": _sphinx_copy}


def model_folder(spec: ModelSpec, models_dir: Path) -> Path | None:
    """The folder the finder takes ``spec``'s kind of model from: the catalog's, else a copy."""
    target = spec.target(models_dir)
    if target.is_dir():
        return target
    copy = COPIES.get(spec.kind)
    return copy(models_dir) if copy else None


def check_in_use(spec: ModelSpec, models_dir: Path) -> Status:
    """What 'models check' says of ``spec``: ``check`` of its catalog folder, or, when that is not
    there, the judgement of the copy the finder takes instead (damaged: "broken")."""
    folder = model_folder(spec, models_dir)
    if folder is None or folder == spec.target(models_dir):
        return check(spec, models_dir)
    path, problems = judge(spec.kind, folder)
    if problems:
        return Status("broken", f"no lo bajó 'models fetch', y el que se usaría, en {path}, está "
                      f"incompleto o dañado ({'; '.join(problems[:4])}); bajalo con "
                      f"'{fetch_command(models_dir, spec.name)}' o borrá esa carpeta")
    return Status("ok", f"no lo bajó 'models fetch', pero se usa el que está en {path} (copiado a "
                  "mano: tiene los archivos que hacen falta)")

"""Pick the best recognizer model available: Vosk Spanish, then Sphinx Spanish, then the English
fallback inside the pocketsphinx wheel (low accuracy, but needs no download)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.catalog import SPHINX_ES, VOSK_ES
from referee.asr.adapt import find_calibration
from referee.asr.base import Recognizer, RecognizerError
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer, english_model_dir, is_sphinx_model
from referee.asr.vosk import is_vosk_model


@dataclass(frozen=True)
class ModelChoice:
    """Which recognizer to run, on which model folder."""

    kind: str  # "vosk" or "sphinx"
    path: Path
    english: bool = False
    calibration: Path | None = None  # the table's voice calibration (adapted Sphinx means file), if any

    @property
    def label(self) -> str:
        if self.english:
            return "sphinx-en (modo de baja precisión: sin modelo en español)"
        calibrated = " + calibración de voces" if self.calibration else ""
        return f"{self.kind}-es ({self.path}){calibrated}"


def _find_sphinx(root: Path, depth: int = 3) -> Path | None:
    """The first folder under ``root`` (depth-limited) that holds a Sphinx acoustic model."""
    if is_sphinx_model(root):
        return root
    if depth == 0 or not root.is_dir():
        return None
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        found = _find_sphinx(child, depth - 1)
        if found:
            return found
    return None


def _find_vosk(models_dir: Path) -> Path | None:
    preferred = VOSK_ES.target(models_dir)
    if is_vosk_model(preferred):
        return preferred
    if models_dir.is_dir():
        for child in sorted(models_dir.iterdir()):
            if child.name.startswith("vosk-model") and "-es" in child.name and is_vosk_model(child):
                return child
    return None


def classify(path: Path) -> ModelChoice:
    """What kind of model an explicit ``--model`` folder is."""
    if is_vosk_model(path):
        return ModelChoice("vosk", path)
    found = _find_sphinx(path, depth=2)
    if found:
        return ModelChoice("sphinx", found)
    raise RecognizerError("model-unknown", f"{path} no parece un modelo de Vosk ni de Sphinx")


def find_model(models_dir: Path, recognizer: str | None = None) -> ModelChoice:
    """The best model in ``models_dir`` for the requested recognizer (any, "vosk" or "sphinx")."""
    if recognizer in (None, "vosk"):
        vosk_dir = _find_vosk(models_dir)
        if vosk_dir:
            return ModelChoice("vosk", vosk_dir)
        if recognizer == "vosk":
            raise RecognizerError(
                "model-missing",
                f"no está el modelo de Vosk en español en {models_dir}; "
                "bajalo con 'truco-referee models fetch vosk-es'",
            )
    sphinx_root = SPHINX_ES.target(models_dir)
    sphinx_dir = _find_sphinx(sphinx_root) or _find_sphinx(models_dir, depth=2)
    if sphinx_dir:
        return ModelChoice("sphinx", sphinx_dir, calibration=find_calibration(models_dir, sphinx_dir))
    return ModelChoice("sphinx", english_model_dir(), english=True)


def make_recognizer(choice: ModelChoice, phrases: PhraseList | None = None) -> Recognizer:
    """Build the recognizer for a model choice, with grammars from the phrase table."""
    phrases = phrases or PhraseList.from_table()
    if choice.kind == "vosk":
        from referee.asr.vosk import VoskRecognizer

        return VoskRecognizer(phrases, choice.path, name="vosk-es")
    return SphinxRecognizer(phrases, None if choice.english else choice.path, english=choice.english,
                            means=choice.calibration)

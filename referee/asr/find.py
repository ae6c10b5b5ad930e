"""Pick the best recognizer model available: Vosk Spanish, then Sphinx Spanish, then the English
fallback inside the pocketsphinx wheel (low accuracy, but needs no download)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.catalog import SPHINX_ES, VOSK_ES
from models.validate import acoustic_dir, broken_message, judge
from referee.asr.adapt import find_calibration
from referee.asr.base import Recognizer, RecognizerError
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer, english_model_dir


@dataclass(frozen=True)
class ModelChoice:
    """Which recognizer to run, on which model folder."""

    kind: str  # "vosk" or "sphinx"
    path: Path
    english: bool = False
    calibration: Path | None = None  # the table's voice calibration (adapted Sphinx means file), if any
    passed_over: tuple[str, ...] = ()  # why a better model found damaged was not chosen

    @property
    def label(self) -> str:
        skipped = "".join(f"; {why}" for why in self.passed_over)
        if self.english:
            return f"sphinx-en (modo de baja precisión: sin modelo en español){skipped}"
        calibrated = " + calibración de voces" if self.calibration else ""
        return f"{self.kind}-es ({self.path}){calibrated}{skipped}"


def _whole(kind: str, folder: Path) -> Path:
    """The model in ``folder`` if it is whole (``models.validate.judge``, as 'models check' judges
    it: no file missing or empty, none changed size since the fetch); a damaged one is an error
    that says what is wrong and what to fetch again, not a silent fallback."""
    path, problems = judge(kind, folder)
    if problems:
        raise RecognizerError("model-broken", broken_message(kind, path, problems))
    return path


def _looks_vosk(path: Path) -> bool:
    return (path / "am").is_dir() or (path / "conf").is_dir()


def _find_vosk(models_dir: Path) -> Path | None:
    """The Spanish Vosk folder: the catalog's, else any ``vosk-model*-es*`` folder."""
    preferred = VOSK_ES.target(models_dir)
    if preferred.is_dir():
        return preferred
    if models_dir.is_dir():
        for child in sorted(models_dir.iterdir()):
            if (child.name.startswith("vosk-model") and "-es" in child.name
                    and not child.name.endswith(".unpacking") and child.is_dir()):
                return child
    return None


def _find_sphinx(models_dir: Path) -> Path | None:
    """The catalog's Sphinx folder, else the first Sphinx acoustic model in the models folder."""
    target = SPHINX_ES.target(models_dir)
    return target if target.is_dir() else acoustic_dir(models_dir, depth=2)


def classify(path: Path, models_dir: Path | None = None) -> ModelChoice:
    """What kind of model an explicit ``--model`` folder is (checked whole), with the table's
    voice calibration in ``models_dir`` if it was made for that model."""
    if not path.is_dir():
        why = (f"{path} es un archivo, no la carpeta de un modelo" if path.exists()
               else f"no existe la carpeta {path}")
        raise RecognizerError("model-missing", why)
    if _looks_vosk(path):
        return ModelChoice("vosk", _whole("vosk", path))
    found = acoustic_dir(path, depth=2)
    if found:
        whole = _whole("sphinx", found)
        calibration = find_calibration(models_dir, whole) if models_dir else None
        return ModelChoice("sphinx", whole, calibration=calibration)
    raise RecognizerError("model-unknown", f"{path} no parece un modelo de Vosk ni de Sphinx")


def find_model(models_dir: Path, recognizer: str | None = None) -> ModelChoice:
    """The best model in ``models_dir`` for the requested recognizer (any, "vosk" or "sphinx").

    A damaged model asked for by name is an error; found on the way (any recognizer), it is
    passed over for the next one, and the choice says why (``passed_over``): the table keeps its
    voice referee, and the person learns what to fetch again."""
    passed: list[str] = []
    if recognizer in (None, "vosk"):
        vosk_dir = _find_vosk(models_dir)
        if vosk_dir:
            try:
                return ModelChoice("vosk", _whole("vosk", vosk_dir))
            except RecognizerError as err:
                if recognizer == "vosk":
                    raise
                passed.append(err.message)
        elif recognizer == "vosk":
            raise RecognizerError(
                "model-missing",
                f"no está el modelo de Vosk en español en {models_dir}; "
                "bajalo con 'truco-referee models fetch vosk-es'",
            )
    sphinx_dir = _find_sphinx(models_dir)
    if sphinx_dir:
        try:
            path = _whole("sphinx", sphinx_dir)
            return ModelChoice("sphinx", path, calibration=find_calibration(models_dir, path),
                               passed_over=tuple(passed))
        except RecognizerError as err:
            if recognizer == "sphinx":
                raise
            passed.append(err.message)
    return ModelChoice("sphinx", english_model_dir(), english=True, passed_over=tuple(passed))


def make_recognizer(choice: ModelChoice, phrases: PhraseList | None = None) -> Recognizer:
    """Build the recognizer for a model choice, with grammars from the phrase table."""
    phrases = phrases or PhraseList.from_table()
    if choice.kind == "vosk":
        from referee.asr.vosk import VoskRecognizer

        return VoskRecognizer(phrases, choice.path, name="vosk-es")
    return SphinxRecognizer(phrases, None if choice.english else choice.path, english=choice.english,
                            means=choice.calibration)

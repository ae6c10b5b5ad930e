"""Pick the best recognizer model available: Vosk Spanish, then Sphinx Spanish, then the English
fallback inside the pocketsphinx wheel (low accuracy, but needs no download)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.catalog import SPHINX_ES, VOSK_ES
from models.finding import model_folder
from models.paths import fetch_command
from models.validate import acoustic_dir, broken_message, judge
from referee.asr.base import Recognizer, RecognizerError
from referee.asr.calibration_folder import find_calibration
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.asr.sphinx_decoder import english_model_dir


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


def _whole(kind: str, folder: Path, models_dir: Path | None = None) -> Path:
    """The model in ``folder`` if it is whole (``models.validate.judge``, as 'models check' judges
    it: no file missing or empty, none changed size since the fetch); a damaged one is an error
    that says what is wrong and what to fetch again (into ``models_dir``), not a silent fallback."""
    path, problems = judge(kind, folder)
    if problems:
        raise RecognizerError("model-broken", broken_message(kind, path, problems, models_dir))
    return path


def _looks_vosk(path: Path) -> bool:
    return (path / "am").is_dir() or (path / "conf").is_dir()


def classify(path: Path, models_dir: Path | None = None) -> ModelChoice:
    """What kind of model an explicit ``--model`` folder is (checked whole), with the table's
    voice calibration in ``models_dir`` if it was made for that model."""
    if not path.is_dir():
        why = (f"{path} es un archivo, no la carpeta de un modelo" if path.exists()
               else f"no existe la carpeta {path}")
        raise RecognizerError("model-missing", why)
    if _looks_vosk(path):
        return ModelChoice("vosk", _whole("vosk", path, models_dir))
    found = acoustic_dir(path, depth=2)
    if found:
        whole = _whole("sphinx", found, models_dir)
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
        vosk_dir = model_folder(VOSK_ES, models_dir)
        if vosk_dir:
            try:
                return ModelChoice("vosk", _whole("vosk", vosk_dir, models_dir))
            except RecognizerError as err:
                if recognizer == "vosk":
                    raise
                passed.append(err.message)
        elif recognizer == "vosk":
            raise RecognizerError(
                "model-missing",
                f"no está el modelo de Vosk en español en {models_dir}; "
                f"bajalo con '{fetch_command(models_dir, VOSK_ES.name)}'",
            )
    sphinx_dir = model_folder(SPHINX_ES, models_dir)
    if sphinx_dir:
        try:
            path = _whole("sphinx", sphinx_dir, models_dir)
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

"""Which recognizer `serve` listens with: the finder's choice, the next one when it fails to load,
and its start-up line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.paths import models_dir
from referee.startup_lines import Part

if TYPE_CHECKING:
    from referee.asr.base import Recognizer
    from referee.asr.find import ModelChoice


def load_recognizer(args: argparse.Namespace,
                    make: Callable[[ModelChoice], Recognizer] | None = None
                    ) -> tuple[ModelChoice, Recognizer]:
    """The recognizer to listen with (``make``, by default ``find.make_recognizer``) and its model.

    One that fails to load (a model that passes the file checks but the library refuses, a damaged
    calibration) gives way to the next one the finder would choose, unless the person asked for it
    with --recognizer or --model; the choice's label says which one failed and why."""
    from referee.asr.base import RecognizerError
    from referee.asr.find import make_recognizer
    from referee.commands.listen import choose_model

    make = make or make_recognizer
    choice = choose_model(args)
    forced = bool(args.recognizer or args.model)
    while True:
        try:
            return choice, make(choice)
        except RecognizerError as err:
            after = None if forced else _next_choice(choice, models_dir(args.models_dir))
            if after is None:
                raise
            why = err.message if choice.kind != "vosk" else (
                f"{err.message} ('truco-referee models fetch --force vosk-es' lo baja de nuevo)")
            choice = replace(after, passed_over=(*choice.passed_over, why, *after.passed_over))


def _next_choice(choice: ModelChoice, root: Path) -> ModelChoice | None:
    """What the finder would choose after ``choice``: Sphinx in Spanish after Vosk, the same
    Sphinx model without the table's calibration, then the English model; None after that."""
    from referee.asr.base import RecognizerError
    from referee.asr.find import ModelChoice, find_model
    from referee.asr.sphinx_decoder import english_model_dir

    english = ModelChoice("sphinx", english_model_dir(), english=True)
    if choice.kind == "vosk":
        try:
            return find_model(root, "sphinx")
        except RecognizerError as err:  # damaged: passed over, as the finder does
            return replace(english, passed_over=(err.message,))
    if choice.calibration is not None:
        return replace(choice, calibration=None, passed_over=())
    return None if choice.english else english


def recognizer_part(choice: Any, recognizer: Any) -> Part:
    """The recognizer's start-up line: its model, and what would make it hear better."""
    detail = choice.label
    if choice.kind == "sphinx" and not choice.english and not choice.calibration:
        detail += "; 'truco-referee voices calibrate' lo ajusta a las voces de la mesa"
    if choice.kind != "vosk" and not choice.passed_over:  # else the line says what to fetch again
        detail += "; 'truco-referee models fetch' baja el modelo de Vosk en español, más preciso"
    if recognizer.low_accuracy and "baja precisión" not in detail:
        detail += " — modo de baja precisión"
    return Part("reconocedor", True, detail)

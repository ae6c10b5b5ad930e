"""Starting the table camera for `serve`: the deck's reference bank, the camera, and a thread
that feeds it frames and tells the pages how it is doing."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from rich.markup import escape

from referee.startup_lines import Part, said_once, show_part, shown, source_status
from referee.table_camera import Log, TableCamera

CLEAR_AFTER = 10  # frames looked at in a row after one that failed: the pages stop showing it


def run_camera(camera: TableCamera, frames: Iterable[np.ndarray], log: Log,
               show: Callable[[str, str], None] | None = None) -> threading.Thread:
    """Feed frames to the table camera in a daemon thread; trouble is logged, never raised.  A
    frame that fails is skipped (each trouble said once) and the next one is looked at.  ``show``
    (state, message) tells the pages: a frame that failed is trouble until ``CLEAR_AFTER`` frames
    in a row were looked at, a camera that stopped is trouble for good."""
    tell = show or (lambda state, message: None)

    def run() -> None:
        said: set[str] = set()
        looked = CLEAR_AFTER  # frames looked at since the last one that failed
        try:
            for frame in frames:
                try:
                    camera.step(frame)
                except Exception as err:  # noqa: BLE001 - one frame lost, not the camera
                    trouble = str(getattr(err, "message", err))
                    message = f"no pude mirar una imagen ({trouble}); sigo con la siguiente"
                    if trouble not in said:
                        said.add(trouble)
                        log(escape(f"cámara: {message}"))
                    tell("trouble", message)
                    looked = 0
                    continue
                looked += 1
                if looked == CLEAR_AFTER:
                    tell("ok", "vuelvo a mirar las imágenes")
        except Exception as err:  # noqa: BLE001 - the table goes on without the camera
            stopped = f"se detuvo: {getattr(err, 'message', err)}"
            log(escape(f"cámara: {stopped}"))
            tell("trouble", f"{stopped}; se anota sin cámara")

    thread = threading.Thread(target=run, name="camera", daemon=True)
    thread.start()
    return thread


def start_table_camera(args: argparse.Namespace, service: Any, log: Log) -> Any:
    """Open the deck's reference bank and start watching the table; the start-up line for the
    camera, shown on the pages too.  A camera missing at the start, or unplugged later, is looked
    for again and again (``CameraSource``): the game goes on without it meanwhile, and the pages
    show it in trouble until it is back."""
    from models.paths import models_dir
    from referee.vision.camera import CameraSource
    from referee.vision.errors import VisionError
    from referee.vision.recognize import Recognizer as CardRecognizer
    from referee.vision.recognize import RecognizerSettings
    from referee.vision.reference import reference_bank

    show = shown(service, "camera")
    try:
        bank = reference_bank(args.deck, models_dir(args.models_dir))
    except VisionError as err:
        return show_part(show, Part("cámara", False, f"{err.message}; se anota sin cámara"))
    status = source_status(service, "camera", said_once(log, "cámara"))
    source = CameraSource(args.camera, 640, 480, on_status=status)
    trouble = source.open()
    regions = dict(getattr(args, "seat_region", None) or [])
    settings = RecognizerSettings(learn=getattr(args, "learn_deck", False))
    camera = TableCamera(service, CardRecognizer(bank, settings), log, regions)
    if trouble:
        part = Part("cámara", False, f"{trouble}; se anota sin cámara y se la sigue buscando")
    else:
        part = Part("cámara", True, f"cámara {args.camera}: sigue las cartas jugadas y verifica "
                    "el envido y la flor que se muestran")
    show_part(show, part)  # before the camera's own news, which may follow at once
    camera.check_regions()
    run_camera(camera, source, log, show)
    return part

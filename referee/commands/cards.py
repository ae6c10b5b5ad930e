"""Reconoce las cartas del mazo español en una foto o desde una cámara, y calibra
con tu mazo.

  truco-referee cards --image foto.jpg [--json] [--deck CARPETA ...]
  truco-referee cards --camera 0 [--learn-deck] [--frames-dir CARPETA]
  truco-referee cards --calibrate --camera 0 [--name mi-mazo]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from models.decks import deck_dir
from models.paths import models_dir
from referee.commands import values
from referee.commands.serve import page_url
from referee.vision.calibrate import Calibrator
from referee.vision.camera import camera_frames, can_show_windows
from referee.vision.detect import framed
from referee.vision.draw import annotate, label
from referee.vision.errors import VisionError
from referee.vision.live_page import LivePage
from referee.vision.photo import read_photo
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.reference import reference_bank

KEEP_FRAMES = 100  # annotated frames kept on disk where there is no window


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # the usage lines, one a line
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--image", type=Path, metavar="FOTO", help="foto donde buscar cartas")
    source.add_argument("--camera", type=values.at_least_zero, metavar="N",
                        help="número de cámara (0 es la primera)")
    parser.add_argument("--calibrate", action="store_true",
                        help="con --camera: te pide cada carta y guarda tu mazo como referencia")
    parser.add_argument("--name", type=values.deck_name, default="mi-mazo", metavar="NOMBRE",
                        help="nombre del mazo al calibrar (mi-mazo)")
    parser.add_argument("--json", action="store_true",
                        help="salida en JSON (card, figure_of, confidence, named_by, corners, "
                        "guess)")
    parser.add_argument("--deck", type=Path, action="append", metavar="CARPETA",
                        help="carpeta con las caras de un mazo (07-oros.png ...); se puede repetir")
    values.add_models_dir(parser, "carpeta de modelos y mazos")
    parser.add_argument("--min-confidence", type=values.share, metavar="CONF",
                        default=RecognizerSettings.min_confidence,
                        help="confianza del banco de referencia para nombrar una carta, de 0 a 1 "
                             "(0.7); por debajo, una carta se nombra igual si sus señas (pips, "
                             "colores, pinta) coinciden con la del banco")
    parser.add_argument("--learn-deck", action="store_true",
                        help="con --camera: aprende tu mazo de las cartas que nombra mientras mira "
                             "(nombra más cartas de un mazo sin calibrar; se olvida al salir)")
    parser.add_argument("--frames-dir", type=Path, default=Path("cartas-vistas"), metavar="CARPETA",
                        help="sin pantalla: dónde guardar las imágenes con las cartas marcadas "
                             f"(las {KEEP_FRAMES} últimas; por defecto cartas-vistas, en la "
                             "carpeta donde estás)")
    parser.add_argument("--preview-port", type=values.port, default=8090, metavar="PUERTO",
                        help="sin pantalla: la página que muestra la cámara en vivo (8090)")
    parser.add_argument("--preview-host", default="0.0.0.0", metavar="DIRECCIÓN",
                        help="dónde se sirve esa página (toda la red local)")
    parser.add_argument("--frames", type=values.at_least_zero, default=0, metavar="N",
                        help="con --camera: parar después de N imágenes (0: seguir hasta Ctrl-C)")


def _progress(done: int, total: int) -> None:
    """The reference's progress, redrawn on one line on a terminal; to a file or a pipe (a log),
    once, when it is done."""
    if sys.stderr.isatty():
        print(f"\rArmando la referencia del mazo: {done}/{total} cartas", end="", file=sys.stderr)
        if done == total:
            print(file=sys.stderr)
    elif done == total:
        print(f"Armé la referencia del mazo: {total} cartas", file=sys.stderr)


def _recognizer(args: argparse.Namespace) -> Recognizer:
    bank = reference_bank(args.deck, models_dir(args.models_dir), _progress)
    settings = RecognizerSettings(min_confidence=args.min_confidence, learn=args.learn_deck)
    return Recognizer(bank, settings)


def _print(readings: list[Reading], as_json: bool) -> None:
    if as_json:
        print(json.dumps([r.as_json() for r in readings], ensure_ascii=False))
    elif not readings:
        print("No veo ninguna carta.")
    else:
        for r in readings:
            name = r.card.nombre if r.card else "no la veo"
            x, y = r.outline.mean(axis=0)
            print(f"{label(r):>14}  {name:<20} en ({x:.0f}, {y:.0f})")
    sys.stdout.flush()  # a reader gone or a full disk is said here, not ignored at exit


def _image(args: argparse.Namespace) -> int:
    photo = read_photo(args.image)
    frame, corner = framed(photo.image)
    back = -np.array(corner, np.float32)
    readings = [_in_photo(r.moved_by(back), photo.scale) for r in _recognizer(args).read(frame)]
    _print(readings, args.json)
    return 0


def _in_photo(reading: Reading, scale: tuple[float, float]) -> Reading:
    """The reading's outlines in the photo's own pixels, where it was read shrunk by ``scale``."""
    if scale == (1.0, 1.0):
        return reading
    s = np.array(scale, np.float32)
    return replace(reading, corners=reading.corners / s,
                   edges=None if reading.edges is None else reading.edges / s)


def _opened(index: int) -> Iterator[np.ndarray]:
    """Camera ``index``'s frames, the camera opened now: one that is not there is said before
    any page address or card to show."""
    frames = camera_frames(index)
    first = next(frames, None)
    return itertools.chain([] if first is None else [first], frames)


def _camera(args: argparse.Namespace) -> int:
    recognizer = _recognizer(args)
    frames = _opened(args.camera)
    if args.frames:
        frames = itertools.islice(frames, args.frames)
    if can_show_windows():
        preview(recognizer, frames, None)
        return 0
    page = _live_page(args.preview_host, args.preview_port)
    try:
        preview(recognizer, frames, args.frames_dir, page=page)
    finally:
        if page is not None:
            page.close()
    return 0


def _live_page(host: str, port: int) -> LivePage | None:
    """The page that shows the camera where there is no window (None if its port is taken)."""
    try:
        page = LivePage(host, port)
    except OSError as err:
        print(f"No pude abrir la página de la cámara en el puerto {port} ({err.strerror or err}); "
              "elegí otro con --preview-port", file=sys.stderr)
        return None
    print(f"Mirá la cámara en vivo en {page_url(host, page.port)}", file=sys.stderr)
    return page


def preview(recognizer: Recognizer, frames: Iterable[np.ndarray], out_dir: Path | None,
            every: int = 5, page: LivePage | None = None) -> int:
    """Show the frames with the cards drawn in a window, or (no screen) on ``page`` and every
    ``every``-th saved to ``out_dir`` (the newest ``KEEP_FRAMES``); print the cards whenever what
    is seen changes.  Returns how many frames were read."""
    last, n = "", 0
    for n, frame in enumerate(frames, 1):
        if n == 1 and out_dir is not None:  # made once a frame comes: no empty folder otherwise
            out_dir.mkdir(parents=True, exist_ok=True)
            print(f"Sin pantalla: guardo las imágenes marcadas en {out_dir}/", file=sys.stderr)
        readings = recognizer.read(frame)
        seen = " ".join(label(r) for r in readings)
        if seen != last:
            print(seen or "(ninguna carta)", flush=True)  # read as it comes, piped too
            last = seen
        shown = annotate(frame, readings)
        if page is not None:
            page.show(shown)
        if out_dir is None:
            cv2.imshow("truco-referee cards", shown)
            if cv2.waitKey(1) & 0xFF in (27, ord("q")):
                break
        elif n % every == 1 or every == 1:
            cv2.imwrite(str(out_dir / f"cartas-{n:06d}.jpg"), shown)
            _forget_old(out_dir)
    return n


def _forget_old(out_dir: Path) -> None:
    """Keep the newest ``KEEP_FRAMES`` annotated frames: a camera left running fills no disk.
    Newest by when they were written, not by name: an earlier, longer run's frames carry higher
    numbers than this run's."""
    for old in sorted(out_dir.glob("cartas-*.jpg"), key=_written)[:-KEEP_FRAMES]:
        old.unlink(missing_ok=True)


def _written(frame: Path) -> tuple[int, str]:
    try:
        return frame.stat().st_mtime_ns, frame.name
    except FileNotFoundError:  # taken away meanwhile: it goes first, and unlink lets it be
        return 0, frame.name


def _calibrate(args: argparse.Namespace) -> int:
    target = deck_dir(models_dir(args.models_dir), args.name)
    try:
        Calibrator(target).run(_opened(args.camera))
    except OSError as err:  # said before the first card is asked for: its folder is made first
        raise VisionError("deck-write", f"no puedo guardar el mazo en {target}: "
                          f"{values.said(err)}; elegí otra carpeta con --models-dir") from err
    print(f"Listo. La próxima vez 'truco-referee cards' usa este mazo ({target}).")
    return 0


def _option_for(path: str | None, args: argparse.Namespace) -> str | None:
    """The option that chooses the folder ``path`` is in, if one does."""
    folders = {"--frames-dir": args.frames_dir, "--models-dir": models_dir(args.models_dir)}
    return next((option for option, folder in folders.items()
                 if path and Path(path).resolve().is_relative_to(Path(folder).resolve())), None)


def run(args: argparse.Namespace) -> int:
    try:
        if args.calibrate:
            if args.camera is None:
                print("--calibrate necesita --camera N", file=sys.stderr)
                return 2
            return _calibrate(args)
        if args.image is not None:
            if args.learn_deck:
                print("--learn-deck es con --camera: aprende el mazo de lo que mira durante la "
                      "partida, no de una foto", file=sys.stderr)
                return 2
            if args.frames:
                print("--frames es con --camera: una foto se lee una sola vez", file=sys.stderr)
                return 2
            return _image(args)
        return _camera(args)
    except VisionError as err:
        print(f"Cartas: {err.message}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (``| head``): the CLI stops quietly
        raise
    except OSError as err:  # the frames' folder, or the models' one (the deck's reference)
        if err.filename is None:  # no file of ours: the output (``> archivo`` on a full disk)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no retry at exit
            print(f"Cartas: no puedo escribir lo que leí: {values.said(err)}", file=sys.stderr)
            return 1
        option = _option_for(err.filename, args)
        print(f"Cartas: no puedo guardar en {err.filename}: {values.said(err)}"
              + (f"; elegí otra carpeta con {option}" if option else ""), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0

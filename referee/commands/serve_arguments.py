"""The options of `serve`: the page's port and address, the data folder, the game's rules, what
it listens with and the camera; each checked as it is read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from models.paths import user_data_dir
from referee.commands import values
from referee.commands.rules import add_rule_arguments
from referee.phrases import BARS_SAID
from referee.table_audio import KEEP_S as TABLE_AUDIO_S


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_listening_arguments(parser)
    add_camera_arguments(parser)
    parser.add_argument("--port", type=values.port, default=8080, metavar="PUERTO",
                        help="puerto de la página (por defecto 8080)")
    parser.add_argument("--host", type=listen_host, default="0.0.0.0", metavar="DIRECCIÓN",
                        help="dirección donde escuchar (por defecto toda la red local)")
    parser.add_argument("--pin", type=values.pin, metavar="PIN",
                        help="PIN de la mesa, de 4 a 8 cifras (si no, se inventa uno la primera "
                        "vez y se guarda)")
    parser.add_argument("--data-dir", type=data_folder, default=None, metavar="CARPETA",
                        help=f"carpeta de la base de datos (por defecto {user_data_dir()})")
    add_rule_arguments(parser, "reglas de una partida nueva (si difieren de la partida en "
                       "curso, empieza una nueva; las que no des quedan como en ella)")


def listen_host(text: str) -> str:
    """A ``--host``: a name or an address, an IPv6 one with or without the brackets of a URL."""
    host = text.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise argparse.ArgumentTypeError("falta la dirección; sin --host se escucha en toda la "
                                         "red local")
    return host


def data_folder(text: str) -> Path:
    """A ``--data-dir``: an empty one (``--data-dir "$CARPETA"`` with nothing in it) would be the
    folder the command runs in."""
    if not text.strip():
        raise argparse.ArgumentTypeError("falta la carpeta (vacía sería la carpeta donde "
                                         "estás); para la de siempre, no des --data-dir")
    return Path(text)


def demo_arguments(**values: Any) -> argparse.Namespace:
    """The options of ``serve`` with their defaults, some of them set (for ``demo``)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    for name, value in values.items():
        setattr(args, name, value)
    return args


def add_listening_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("escucha")
    group.add_argument("--no-mic", action="store_true",
                       help="no escuchar: llevar los puntos sólo con los botones de la pantalla")
    group.add_argument("--mic", metavar="NOMBRE|NÚMERO", action="append",
                       help="qué micrófono usar (ver 'truco-referee devices'); si no, el de "
                       "siempre. Dos veces = un micrófono por equipo (el primero es de A, el "
                       "segundo de B): decide el que más fuerte oyó")
    group.add_argument("--channels", type=int, default=1, choices=(1, 2),
                       help="2 = un micrófono (canal) por equipo: el canal 1 es A, el 2 es B; "
                       "decide el más fuerte")
    group.add_argument("--recognizer", choices=("vosk", "sphinx"),
                       help="qué reconocedor usar (si no, el mejor que haya)")
    group.add_argument("--model", metavar="CARPETA",
                       help="carpeta de un modelo de Vosk o de un modelo acústico de Sphinx")
    values.add_models_dir(group)
    group.add_argument("--wav", metavar="ARCHIVO",
                       help="hacer sonar una grabación como si fuera el micrófono (en tiempo real)")
    group.add_argument("--exit-when-done", action="store_true",
                       help="con --wav: terminar cuando se acaba la grabación")
    group.add_argument("--unsure-below", type=values.share, default=0.6, metavar="CONF",
                       help="con menos confianza que esto un canto queda dudoso hasta que lo "
                       f"confirmen en la tablet (por defecto 0.6; {BARS_SAID})")
    group.add_argument("--learn", action="store_true",
                       help="aprender las voces de la mesa mientras juegan (Sphinx en español): "
                       "lo oído con seguridad y lo confirmado en la tablet ajustan el modelo")
    group.add_argument("--table-audio", type=values.table_audio_s, default=TABLE_AUDIO_S,
                       metavar="SEGUNDOS",
                       help="cuántos segundos del sonido de la mesa se guardan en la memoria para "
                       "volver a oírlos desde la tablet («¿Qué se dijo?»; por defecto "
                       f"{TABLE_AUDIO_S}; 0 = ninguno); no se escriben en ningún lado")


def add_camera_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cámara")
    group.add_argument("--camera", type=values.at_least_zero, metavar="N",
                       help="cámara sobre la mesa (0 es la primera): verifica el envido mostrado "
                       "y sigue las cartas jugadas")
    group.add_argument("--deck", type=Path, action="append", metavar="CARPETA",
                       help="caras de tu mazo para reconocerlo (si no, el mazo calibrado o bajado)")
    group.add_argument("--learn-deck", action="store_true",
                       help="aprende tu mazo de las cartas que la cámara nombra durante el juego "
                       "(nombra más cartas de un mazo sin calibrar; se olvida al salir)")
    group.add_argument("--seat-region", type=_seat_region, action="append", metavar="ASIENTO=I,A,D,B",
                       help="la parte de la imagen frente a un asiento, en fracciones "
                       "(izquierda, arriba, derecha, abajo), p. ej. A1=0,0.5,0.5,1; repetible "
                       "(si no, A abajo y B arriba, o alrededor de la mesa con 4 o 6)")


def _seat_region(text: str) -> tuple[str, tuple[float, float, float, float]]:
    """A ``--seat-region``: well written, and for a seat some table has (the largest one's)."""
    from engine.settings import SEATS
    from referee.seat_regions import parse_seat_region

    try:
        seat, box = parse_seat_region(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if seat not in SEATS[max(SEATS)]:
        tables = "; ".join(f"{' '.join(seats)} con {n} jugadores" for n, seats in SEATS.items())
        raise argparse.ArgumentTypeError(f"'{text}': no hay asiento {seat} en ninguna mesa; los "
                                         f"asientos son {tables}")
    return seat, box

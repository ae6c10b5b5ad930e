"""Each seat's part of the camera's image of the table, by the number of players, or as the
table gives it.

The camera looks down on the table: with two players A1 sits at the bottom of the image and B1 at
the top; with four, A1 bottom, B1 right, A2 top, B2 left; with six, A1 B1 A2 along the bottom
from left to right and B2 A3 B3 along the top from right to left.  A table laid out otherwise
gives its own boxes (``--seat-region A1=0,0.5,0.5,1``, fractions of the image: left, top, right,
bottom).
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.vision.tracker import SMALLEST_REGION, SeatRegion

_REGIONS: dict[int, tuple[tuple[float, float, float, float], ...]] = {
    2: ((0, .5, 1, 1), (0, 0, 1, .5)),
    4: ((.25, .6, .75, 1), (.6, .25, 1, .75), (.25, 0, .75, .4), (0, .25, .4, .75)),
    6: ((0, .5, .34, 1), (.33, .5, .67, 1), (.66, .5, 1, 1),
        (.66, 0, 1, .5), (.33, 0, .67, .5), (0, 0, .34, .5)),
}


Box = tuple[float, float, float, float]


def default_regions(seats: tuple[str, ...],
                    given: Mapping[str, Box] | None = None) -> list[SeatRegion]:
    """Each seat's part of the image, in table order (see the module docstring); ``given`` boxes
    replace the default ones of their seats."""
    given = given or {}
    boxes = _REGIONS[len(seats)]
    return [SeatRegion(seat, given.get(seat, box)) for seat, box in zip(seats, boxes)]


def parse_seat_region(text: str) -> tuple[str, Box]:
    """``"A1=0,0.5,0.5,1"`` → ("A1", (0.0, 0.5, 0.5, 1.0)); ValueError saying what is wrong."""
    seat, _, numbers = text.partition("=")
    seat = seat.strip().upper()
    parts = numbers.split(",")
    if not seat or len(parts) != 4:
        raise ValueError(f"'{text}': se escribe ASIENTO=izq,arriba,der,abajo "
                         "(p. ej. A1=0,0.5,0.5,1)")
    try:
        box = (float(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]))
    except ValueError:
        raise ValueError(f"'{text}': los cuatro bordes son números entre 0 y 1") from None
    try:
        SeatRegion(seat, box)
    except ValueError:
        raise ValueError(f"'{text}': cada borde va de 0 a 1, la izquierda antes que la derecha y "
                         f"arriba antes que abajo, y la zona mide al menos {SMALLEST_REGION} de la "
                         "imagen de ancho y de alto (tiene que entrar una carta)") from None
    return seat, box

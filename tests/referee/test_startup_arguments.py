"""The camera options of serve, checked as they are read: a camera number OpenCV would crash on and
a seat no table has are usage errors in Spanish, before anything starts."""

from __future__ import annotations

import pytest

from referee import startup
from referee.cli import build_parser
from referee.commands.serve_arguments import demo_arguments


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args(["serve", *argv])
    assert ended.value.code == 2
    return capsys.readouterr().err


def test_a_negative_camera_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # before: taken, and OpenCV asked for camera -1 killed the server (SIGSEGV, rc 139)
    err = _refused(["--camera", "-1"], capsys)
    assert "argumento --camera: tiene que ser 0 o más, no -1" in err


@pytest.mark.parametrize("seat", ["C1", "A4", "B0"])
def test_a_seat_no_table_has_is_a_usage_error(seat: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["--seat-region", f"{seat}=0,0,1,1"], capsys)  # before: taken silently
    assert f"argumento --seat-region: '{seat}=0,0,1,1': no hay asiento {seat} en ninguna mesa" in err
    assert "A1 B1 con 2 jugadores; A1 B1 A2 B2 con 4 jugadores; A1 B1 A2 B2 A3 B3 con 6" in err


def test_a_malformed_seat_region_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["--seat-region", "A1=0,0,1"], capsys)
    assert "se escribe ASIENTO=izq,arriba,der,abajo" in err


@pytest.mark.parametrize("text", ["a1=0,0.5,0.5,1", "B3=0,0,1,0.5"])
def test_the_seats_of_every_table_are_taken(text: str) -> None:
    args = build_parser().parse_args(["serve", "--camera", "0", "--seat-region", text])
    assert args.camera == 0 and args.seat_region[0][0] == text[:2].upper()


def test_seat_regions_without_a_camera_are_said_unused() -> None:
    regions = [("A1", (0.0, 0.0, 1.0, 1.0))]
    [part] = startup.start_camera(demo_arguments(seat_region=regions), None, lambda line: None)
    assert not part.running
    assert part.detail == "sin cámara (--camera N para usar una); sin cámara, --seat-region no se usa"
    [plain] = startup.start_camera(demo_arguments(), None, lambda line: None)
    assert plain.detail == "sin cámara (--camera N para usar una)"

"""What ``truco-referee replay`` says of a line written wrong, of a file that is no log, and of
each hand: what is wrong and how to write it, in the notation's Spanish words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import NewHand
from referee.cli import main
from referee.logline import parse_line
from referee.replay import replay
from tests.referee.test_replay import replay_cli


def refusal(*lines: str) -> str:
    """The reason the last of these lines is refused."""
    result = replay(lines)
    assert [r.line for r in result.rejected] == [len(lines)], result.rejected
    return result.rejected[-1].reason


@pytest.mark.parametrize(("lines", "said"), [
    # before: «no entiendo la línea» for each of these
    (["mano", "A4: truco"], "no hay asiento A4 en una mesa de 2"),
    (["mano", "B0: truco"], "no hay asiento B0 en una mesa de 2"),
    (["set players 6", "mano", "A4 juega 7o"], "no hay asiento A4 en una mesa de 6"),
    (["mano", "A1 truco"], "«A1 truco»: falta «:» después del asiento: se escribe «A1: truco»"),
    (["undo"], "«undo»: un registro no tiene línea de deshacer: para deshacer algo, borrá su línea"),
    (["mano", "deshacer"], "«deshacer»: un registro no tiene línea de deshacer"),
    # before: «se escribe «A1 juega 7o» o «A1 muestra 7o 1o»» alone
    (["mano", "A1 dice truco"], ("«A1 dice truco»: falta «:» después del asiento: se escribe "
                                "«A1: truco»; una carta, «A1 juega 7o» o «A1 muestra 7o 1o»")),
    (["mano", "A1 - envido"], "se escribe «A1: envido»; una carta, «A1 juega 7o»"),
    (["mano", "A1:"], "«A1:»: falta lo que dijo: se escribe «A1: truco»"),  # before: «» no es un canto
    # before: «no conozco la regla 'jugadores'»; then only the English names were listed
    (["set jugadoras 4"], ("«set jugadoras 4»: no hay una regla «jugadoras»: las reglas son "
                          "«jugadores» («players»), «a» o «puntos» («points»), «flor», "
                          "«falta envido» («falta»)")),
    (["set mazo en tercera sí"], "no hay una regla «mazo en tercera»"),
    (["set nada 4"], "«contraflor» («contraflor_points») y «al resto» («resto») (docs/rules.md)"),
    # before: «empate» no es un equipo: se escribe «A» o «B»
    (["mano", "vuelta empate"], ("«vuelta empate»: «empate» no es un equipo ni «parda»: se escribe "
                                "«vuelta A», «vuelta B» o «vuelta parda»")),
    (["mano", "vuelta pardas"], "«pardas» no es un equipo ni «parda»"),
])
def test_a_line_written_wrong_says_what_is_wrong(lines: list[str], said: str) -> None:
    assert said in refusal(*lines)


@pytest.mark.parametrize("line", ["mano nueva", "Mano Nueva", "MANO NUEVA"])
def test_a_deal_is_taken_as_the_tablet_names_it(line: str) -> None:
    # before: ««mano nueva»: «nueva» no es un equipo: se escribe «A» o «B»»
    assert parse_line(line) == parse_line("mano") == NewHand()
    result = replay(["mano", "A1: truco", "B1: quiero", "mano A", line]).to_dict()
    assert result["rejected"] == [] and len(result["hands"]) == 2
    assert result["log"][-1] == "hand"


def test_a_card_after_an_unknown_verb_is_still_taught_as_a_card() -> None:
    assert refusal("mano", "A1 tira 7o").endswith("se escribe «A1 juega 7o» o «A1 muestra 7o 1o»")


def test_a_yes_or_no_rule_in_spanish_is_logged_in_the_log_words() -> None:
    result = replay(["set flor sí", "set mazo_extra si", "set pica-pica no", "mano"]).to_dict()
    assert result["rejected"] == []
    # before: «set flor sí», «set pica-pica no»
    assert result["log"] == ["set flor on", "set mazo_extra on", "set pica_pica off", "hand"]
    assert result["settings"]["flor"] is True and result["settings"]["mazo_extra"] is True


@pytest.mark.parametrize(("line", "logged"), [
    ("set jugadores 4", "set players 4"),
    ("set a 15", "set points 15"),
    ("set puntos 15", "set points 15"),
    ("set falta envido winner", "set falta winner"),
    ("set tantos hand-end", "set envido_credit hand-end"),
    ("set mazo en primera sí", "set mazo_extra on"),
    ("set Mazo-en-primera sí", "set mazo_extra on"),
    ("set partido a chicos sí", "set match on"),
    ("set chicos sí", "set match on"),
    ("set contraflor 4", "set contraflor_points 4"),
    ("set al resto falta", "set resto falta"),
])
def test_a_rule_named_in_spanish_is_logged_by_its_log_name(line: str, logged: str) -> None:
    # before: «no hay una regla «jugadores»: las reglas son «players», …»
    result = replay([line, "mano"]).to_dict()
    assert result["rejected"] == []
    assert logged in result["log"]


def test_a_rule_named_in_spanish_is_refused_for_its_value_as_in_english() -> None:
    assert "players va 2, 4 o 6" in refusal("set jugadores 5")


def test_an_empty_file_name_is_refused_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["replay", ""])
    err = capsys.readouterr().err
    assert ended.value.code == 2 and "es una carpeta" not in err  # before: «no puedo abrir : es una carpeta»
    assert "argumento ARCHIVO: falta el nombre del archivo" in err


@pytest.mark.parametrize("data", [b"hand\n\x1b[2J\x07A1: truco\n", bytes(range(1, 256)) * 2,
                                  b"hand\nA1: truco\x7f\n", b"hand\x0bA1: truco\n"],
                         ids=["escape", "bytes-but-nul", "del", "vertical-tab"])
def test_a_file_with_controls_no_text_has_is_not_replayed(
        data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay_cli(tmp_path, data, capsys)
    assert code == 1 and out == ""  # before: exit 0, the bytes echoed as a rejected line
    assert err.strip() == f"{tmp_path / 'mesa.log'} no parece un registro de texto"


def test_tabs_form_feeds_and_line_ends_are_text(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, b"hand\r\nA1:\ttruco\r\n\x0c\nB1: no quiero\n", capsys)
    assert code == 0 and "rechazada" not in out and "tanteador: A 1 — B 0" in out


def test_a_control_character_of_a_line_is_not_echoed(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A line can hold C1 controls (U+009B starts a terminal's command as ESC [ does)."""
    data = b"hand\nA1: \xc2\x9b2Jtruco\n"
    code, out, _ = replay_cli(tmp_path, data, capsys)
    assert code == 0 and not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out), out
    assert "«A1: \ufffd2Jtruco»" in out
    log = tmp_path / "mesa.log"
    assert main(["replay", str(log), "--json"]) == 0
    text = capsys.readouterr().out
    assert "\x9b" not in text and "\\u009b" in text
    assert json.loads(text)["rejected"][0]["text"] == "A1: \x9b2Jtruco"  # the JSON keeps it


def test_a_file_name_with_controls_is_not_echoed(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "\x1b[2Jnada.log")]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\ufffd[2Jnada.log: no existe" in err


def summary_of(tmp_path: Path, capsys: pytest.CaptureFixture[str], *lines: str) -> list[str]:
    code, out, _ = replay_cli(tmp_path, "\n".join(lines).encode(), capsys)
    assert code == 0 and "rechazada" not in out, out
    return out.splitlines()


def test_the_mazo_extra_point_is_named_as_such(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = summary_of(tmp_path, capsys, "set mazo_extra on", "mano", "A1: me voy al mazo",
                     "mano", "B1: envido", "A1: quiero", "envido B", "A1: me voy al mazo")
    # before: «envido B+1», with no envido called
    assert out[0] == "mano 1 (es mano A1): mazo en primera B+1, truco B+1"
    assert out[1] == "mano 2 (es mano B1): envido B+2, truco B+1"


def test_corrections_are_shown_where_they_were_made(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = summary_of(tmp_path, capsys, "puntos B +3", "mano", "A1: me voy al mazo",
                     "puntos A +10", "puntos B -1", "mano")
    # before: only the hands, which did not add up to the score
    assert out == ["corrección: B +3", "mano 1 (es mano A1): truco B+1", "corrección: A +10",
                   "corrección: B -1", "mano 2 (es mano B1): sin puntos",
                   "tanteador: A 10 — B 3; la partida sigue"]


def test_a_pica_pica_hand_is_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = summary_of(tmp_path, capsys, "set players 6", "set pica_pica on", "puntos A +5", "mano",
                     "mano A A1")
    assert out[1] == "mano 1 (pica-pica): truco A+1"  # before: «(es mano pica-pica)»


def test_the_help_teaches_the_spanish_notation_first(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for spanish, english in [("«A1 juega 7o»", "«A1 plays 7o»"), ("«vuelta B»", "«round B»"),
                             ("«mano»", "«hand»")]:
        assert spanish in text and text.index(spanish) < text.index(english), spanish
    assert "en inglés" in text

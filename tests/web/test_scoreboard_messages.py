"""Refusals of malformed bodies and messages, and of impossible cards, said in Spanish."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from referee.logline import parse_line
from web_scoreboard.message_errors import describe_errors

PIN = "2468"
AUTH = {"X-Table-PIN": PIN}
Post = Callable[..., httpx.Response]
# pydantic's own English, which no refusal may carry (before: «line: Field required»)
ENGLISH = re.compile(r"\b(Input|should|Field|required|Extra|permitted|valid|String|or|greater|less|"
                     r"than|equal|integer|dictionary|object to)\b")


def state(client: TestClient) -> dict[str, Any]:
    return dict(client.get("/api/state").json())


def refusal(response: httpx.Response) -> str:
    """The message of an ``invalid`` refusal (checked to be one)."""
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid", error
    return str(error["message"])


# Every route that takes a body, or a value in its path or query: what it answers, word by word.
@pytest.mark.parametrize(("method", "path", "body", "said"), [
    ("POST", "/api/events", {}, "line: falta (es obligatorio)"),
    ("POST", "/api/events", {"line": 7}, "line: tiene que ser un texto"),
    ("POST", "/api/events", {"line": "hand", "x": 1}, "x: sobra (el mensaje no lleva ese dato)"),
    ("POST", "/api/events", [1], "mensaje: tiene que ser un objeto JSON, entre llaves"),
    ("POST", "/api/events", {"line": "x" * 201},
     "line: el evento puede tener hasta 200 caracteres (tiene 201)"),
    ("PUT", "/api/names", {"A": 1},
     "A: tiene que ser un texto; B: falta (es obligatorio)"),
    ("POST", "/api/settings", {"players": 3}, "players: tiene que ser 2, 4 o 6"),
    ("POST", "/api/settings", {"points": 20}, "points: tiene que ser 15 o 30"),
    ("POST", "/api/settings", {"falta": "nada"},
     "falta: tiene que ser 'leader', 'malas', 'dos-faltas' o 'winner'"),
    ("POST", "/api/settings", {"flor": "quizás"}, "flor: tiene que ser true o false"),
    ("POST", "/api/settings", {"contraflor_points": 0}, "contraflor_points: tiene que ser 1 o más"),
    ("POST", "/api/settings", {"contraflor_points": 31},
     "contraflor_points: tiene que ser 30 o menos"),
    ("POST", "/api/settings", {"contraflor_points": "diez"},
     "contraflor_points: tiene que ser un número entero"),
    ("POST", "/api/settings", {"contraflor_points": 1.5},
     "contraflor_points: tiene que ser un número entero, sin decimales"),
    ("POST", "/api/settings", {"pica": True}, "pica: sobra (el mensaje no lleva ese dato)"),
    ("POST", "/api/games", {"settings": 4}, "settings: tiene que ser un objeto JSON, entre llaves"),
    ("POST", "/api/games", {"settings": {"players": 5}, "names": {"A": "Nos"}},
     "settings.players: tiene que ser 2, 4 o 6; names.B: falta (es obligatorio)"),
    ("PUT", "/api/pin", {}, "pin: falta (es obligatorio)"),
    ("PUT", "/api/pin", {"pin": 1234}, "pin: tiene que ser un texto"),
    ("POST", "/api/undo?seq=-1", None, "seq: tiene que ser 0 o más"),
    ("POST", "/api/flip?seq=uno", None, "seq: tiene que ser un número entero"),
    ("POST", "/api/swap?seq=99999999999999999999", None,
     "seq: tiene que ser 9223372036854775807 o menos"),
    ("POST", "/api/games/la-ultima/open", None, "game_id: tiene que ser un número entero"),
    ("GET", "/api/games/x/log", None, "game_id: tiene que ser un número entero"),
    ("POST", "/api/heard/1.5/confirm", None, "heard_id: tiene que ser un número entero"),
    ("POST", "/api/heard/x/dismiss", None, "heard_id: tiene que ser un número entero"),
    ("POST", "/api/actions", {"action": "event"}, "line: falta (es obligatorio)"),
    ("POST", "/api/actions", {"action": "event", "line": "hand", "pin": "9" * 17},
     "pin: puede tener hasta 16 caracteres"),
    ("POST", "/api/actions", {"action": "event", "line": "hand", "id": [1]},
     "id: tiene que ser un número entero o un texto"),
    ("POST", "/api/actions", {"action": "undo", "seq": -1}, "seq: tiene que ser 0 o más"),
    ("POST", "/api/actions", {"action": "names", "names": {"A": "Nos"}},
     "names.B: falta (es obligatorio)"),
    ("POST", "/api/actions", {"action": "new-game", "settings": {"resto": "todo"}},
     "settings.resto: tiene que ser 'falta+flores' o 'falta'"),
    ("POST", "/api/actions", {"action": "open-game", "game_id": "x"},
     "game_id: tiene que ser un número entero"),
    ("POST", "/api/actions", {"action": "dismiss", "heard_id": 1, "extra": 0},
     "extra: sobra (el mensaje no lleva ese dato)"),
    ("POST", "/api/actions", ["undo"], "mensaje: tiene que ser un objeto JSON, entre llaves"),
])
def test_a_malformed_request_is_refused_in_spanish(client: TestClient, method: str, path: str,
                                                   body: Any, said: str) -> None:
    before = state(client)
    extra = {} if body is None else {"json": body}
    message = refusal(client.request(method, path, headers=AUTH, **extra))
    assert message == f"mensaje inválido — {said}"  # before: «line: Field required», …
    assert not ENGLISH.search(message), message
    assert state(client) == before


@pytest.mark.parametrize(("message", "said"), [
    ({"action": "event"}, "line: falta (es obligatorio)"),
    ({"action": "event", "line": "hand", "colour": "red"},
     "colour: sobra (el mensaje no lleva ese dato)"),
    ({"action": "new-game", "settings": {"players": 3}}, "settings.players: tiene que ser 2, 4 o 6"),
    ({"action": "undo", "seq": "x"}, "seq: tiene que ser un número entero"),
    ({"action": "confirm", "heard_id": 2**63}, "heard_id: tiene que ser 9223372036854775807 o menos"),
    ({"action": "event", "line": "hand", "id": {"n": 1}},
     "id: tiene que ser un número entero o un texto"),
])
def test_a_malformed_command_over_the_socket_is_refused_in_spanish(
        client: TestClient, message: dict[str, Any], said: str) -> None:
    before = state(client)
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"pin": PIN, "id": 5, **message}))
        reply = ws.receive_json()
    assert reply["error"] == {"code": "invalid", "message": f"mensaje inválido — {said}"}
    assert state(client) == before


def test_only_the_first_three_fields_are_named(client: TestClient) -> None:
    body = {"players": 3, "points": 20, "flor": "a", "falta": "b"}
    message = refusal(client.post("/api/settings", json=body, headers=AUTH))
    assert message.count(": tiene que ser") == 3 and "falta:" not in message


# Errors the schemas cannot give today, and the generic text for a type not in the table.
@pytest.mark.parametrize(("error", "said"), [
    ({"type": "too_long", "loc": ("body", "cards"), "msg": "List should have at most 3 items",
      "ctx": {"field_type": "List", "max_length": 3, "actual_length": 4}},
     "cards: puede tener hasta 3 elementos"),
    ({"type": "string_too_short", "loc": ("body", "pin"), "msg": "String should have at least 4",
      "ctx": {"min_length": 4}}, "pin: tiene que tener al menos 4 caracteres"),
    ({"type": "enum", "loc": ("query", "kind"), "msg": "Input should be 'a' or 'b'",
      "ctx": {"expected": "'a' or 'b'"}}, "kind: tiene que ser 'a' o 'b'"),
    ({"type": "url_parsing", "loc": ("body", "link"), "msg": "Input should be a valid URL"},
     "link: tiene un valor que no sirve"),
    ({"type": "greater_than_equal", "loc": ("body", "n"), "msg": "Input should be >= 1"},
     "n: tiene un valor que no sirve"),  # a template whose ctx is missing: the generic text
])
def test_other_errors_are_said_in_spanish_naming_the_field(error: dict[str, Any],
                                                           said: str) -> None:
    refused = describe_errors([error])
    assert (refused.code, refused.status) == ("invalid", 422)
    assert refused.message == f"mensaje inválido — {said}"


def test_a_repeated_card_is_refused_in_spanish(client: TestClient, post: Post) -> None:
    post(client, "hand")
    before = state(client)
    response = post(client, "A1 shows 7o 7o")
    assert response.status_code == 422
    assert response.json()["error"] == {  # before: «repeated card in 7o 7o»
        "code": "line-rejected", "message": "«A1 shows 7o 7o»: la carta 7o está repetida"}
    assert state(client) == before


def test_a_card_that_is_not_one_is_refused_in_spanish(client: TestClient, post: Post) -> None:
    post(client, "hand")
    response = post(client, "A1 plays 7x")
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "«A1 plays 7x»: «7x» no es una carta: se escribe el número y la letra del palo, "
        "p. ej. 7o, 1e, 12b")


# A typed line not in the notation: what to write instead, quoted (the page names the teams of a
# message except inside «»), in the words of the «Evento» box's examples (before: «round: se
# escribe round A, round B o round parda», shown with the teams' names).
@pytest.mark.parametrize(("line", "said"), [
    ("vuelta", "«vuelta»: se escribe «vuelta A», «vuelta B» o «vuelta parda»"),
    ("round", "«round»: se escribe «vuelta A», «vuelta B» o «vuelta parda»"),
    ("puntos A", "«puntos A»: se escribe «puntos A +2» o «puntos B -1»"),
    ("points B dos", "«points B dos»: se escribe «puntos A +2» o «puntos B -1»"),
    ("envido", ("«envido»: se escribe «envido A» o «envido B» (el que lo ganó), o «envido aparte» "
                "(los tantos no se oyeron)")),
    ("mano C", "«mano C»: «C» no es un equipo: se escribe «A» o «B»"),
    ("puntos C +2", "«puntos C +2»: «C» no es un equipo: se escribe «A» o «B»"),
    ("vuelta A B1 B2", ("«vuelta A B1 B2»: después del resultado solo puede ir un asiento, como "
                        "«A1», no «B1 B2»")),
    ("A1 tira 7o", "«A1 tira 7o»: se escribe «A1 juega 7o» o «A1 muestra 7o 1o»"),
    ("set flor", "«set flor»: se escribe «set NOMBRE VALOR», p. ej. «set flor on»"),
])
def test_a_line_typed_wrong_says_in_quotes_how_to_write_it(client: TestClient, post: Post,
                                                          line: str, said: str) -> None:
    post(client, "hand")
    response = post(client, line)
    assert response.status_code == 422
    assert response.json()["error"] == {"code": "line-rejected", "message": said}
    unquoted = re.sub(r"«[^»]*»", "", said)
    assert not re.search(r"\b(round|points|plays|shows|aside|[AB][1-3]?)\b", unquoted), unquoted
    advice = said.split("se escribe", 1)[1] if "se escribe" in said else ""
    for example in re.findall(r"«([^»]*)»", advice):
        if example not in ("A", "B", "set NOMBRE VALOR"):
            assert parse_line(example) is not None, example  # following it is taken


@pytest.mark.parametrize("line", ["round A", "vuelta B", "points A +2", "puntos B -1", "hand B",
                                  "mano A", "envido aside", "envido aparte", "A1 plays 7o",
                                  "A1 juega 7o"])
def test_the_english_notation_is_still_taken_beside_the_spanish(line: str) -> None:
    assert parse_line(line) is not None

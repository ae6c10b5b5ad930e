"""The scoreboard's HTTP API: events in the log notation, corrections, games, heard calls, access."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import unicodedata
import wave
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine import Settings
from referee.commands.serve_terminal import event_line, store_line
from web_scoreboard import Heard, create_app
from web_scoreboard.access import RateLimit
from web_scoreboard.store import Store

PIN = "2468"
AUTH = {"X-Table-PIN": PIN}
Post = Callable[..., httpx.Response]


def state(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/state")
    assert response.status_code == 200
    return dict(response.json())


def test_state_has_score_names_settings_and_hand(client: TestClient) -> None:
    snap = state(client)
    assert snap["score"] == {"A": 0, "B": 0}
    assert snap["winner"] is None
    assert snap["names"] == {"A": "Nosotros", "B": "Ellos"}
    assert snap["settings"]["points"] == 30
    assert "hand" in snap and snap["pin_required"] is True


def test_a_hand_scored_event_by_event(client: TestClient, post: Post) -> None:
    steps = [
        ("hand", {"A": 0, "B": 0}),
        ("A1: envido", {"A": 0, "B": 0}),
        ("B1: quiero", {"A": 0, "B": 0}),
        ("A1: veintiocho", {"A": 0, "B": 0}),
        ("B1: 27", {"A": 2, "B": 0}),
        ("B1: truco", {"A": 2, "B": 0}),
        ("A1: quiero", {"A": 2, "B": 0}),
        ("round B", {"A": 2, "B": 0}),
        ("round B", {"A": 2, "B": 2}),
    ]
    for line, score in steps:
        response = post(client, line)
        assert response.status_code == 200, response.text
        assert response.json()["score"] == score, line
    snap = state(client)
    assert snap["log"][-1] == "round B" and snap["hand"]["over"] is True
    assert snap["hands"][0]["points"]["truco"] == {"A": 0, "B": 2}


def test_an_example_game_gives_its_expected_score(client: TestClient, post: Post,
                                                  example: Callable[..., Any]) -> None:
    lines, expect = example("dos-jugadores.log")
    rejected = []
    for number, line in lines:
        before = state(client)
        response = post(client, line)
        if response.status_code != 200:
            assert response.status_code == 422
            assert response.json()["error"]["message"]
            assert state(client)["log"] == before["log"]
            rejected.append(number)
    snap = state(client)
    assert snap["score"] == expect["score"] and snap["winner"] == expect["winner"]
    assert rejected == expect["rejected"]


def test_a_refused_line_answers_the_reason_and_changes_nothing(client: TestClient,
                                                               post: Post) -> None:
    post(client, "hand")
    before = state(client)
    response = post(client, "A1: turco")
    assert response.status_code == 422
    assert response.json()["error"] == {"code": "line-rejected", "message": "«turco» no es truco"}
    assert state(client)["seq"] == before["seq"]


def test_wrong_or_missing_pin_changes_nothing(client: TestClient, post: Post) -> None:
    before = state(client)
    wrong = post(client, "hand", pin="0000")
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong-pin"
    missing = post(client, "hand", pin=None)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "pin-required"
    assert client.post("/api/undo", headers={"X-Table-PIN": "9999"}).status_code == 403
    assert state(client) == before


def test_malformed_json_changes_nothing(client: TestClient) -> None:
    before = state(client)
    response = client.post("/api/events", content=b'{"line": "hand"',
                           headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed-json"
    assert state(client) == before


def test_unknown_action_changes_nothing(client: TestClient) -> None:
    before = state(client)
    response = client.post("/api/actions", json={"action": "steal-points", "team": "A"},
                           headers=AUTH)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown-action" and "event" in error["message"]
    assert state(client) == before


def test_oversized_message_changes_nothing(client: TestClient) -> None:
    before = state(client)
    response = client.post("/api/events", json={"line": "hand", "pad": "x" * 5000}, headers=AUTH)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too-large"
    assert state(client) == before


def test_invalid_fields_are_named(client: TestClient) -> None:
    before = state(client)
    for body in ({"line": ""}, {"line": "x" * 300}, {"line": "hand", "extra": 1}, {}):
        response = client.post("/api/events", json=body, headers=AUTH)
        assert response.status_code == 422, body
        assert response.json()["error"]["code"] == "invalid"
    assert state(client) == before


@pytest.mark.parametrize(("path", "body", "message"), [
    ("/api/names", {"A": "x" * 25, "B": "Ellos"},
     "A: el nombre puede tener hasta 24 caracteres (tiene 25)"),
    ("/api/names", {"A": "Nosotros", "B": "   "}, "B: el nombre no puede quedar vacío"),
    ("/api/pin", {"pin": "12a"}, "pin: el PIN tiene que tener de 4 a 8 números"),
])
def test_a_refused_name_or_pin_is_explained_in_spanish(client: TestClient, path: str,
                                                       body: dict[str, str], message: str) -> None:
    before = state(client)
    response = client.put(path, json=body, headers=AUTH)
    assert response.status_code == 422
    assert response.json()["error"] == {"code": "invalid", "message": f"mensaje inválido — {message}"}
    assert state(client) == before


@pytest.mark.parametrize(("first", "other", "kept"), [
    ("Nosotros", "nosotros", "nosotros"), ("Nosotros", " NOSOTROS ", "NOSOTROS"),
    ("Los Ñandúes", unicodedata.normalize("NFD", "LOS ÑANDÚES"), "LOS ÑANDÚES")])
def test_two_teams_are_not_given_one_name(client: TestClient, first: str, other: str,
                                          kept: str) -> None:
    """«Nosotros» and «nosotros» (``referee.names.same_name``: in any case or Unicode form) would
    leave the board unable to say in words which team it means: refused, by the names' boxes and
    by a new game alike."""
    names = {"A": first, "B": other}
    before = state(client)
    said = f"los dos equipos no pueden llamarse igual («{first}» y «{kept}»)"
    for response, field in ((client.put("/api/names", json=names, headers=AUTH), "B"),
                            (client.post("/api/games", json={"names": names}, headers=AUTH),
                             "names.B")):
        assert response.status_code == 422
        assert response.json()["error"]["message"].startswith(f"mensaje inválido — {field}: {said}")
    assert state(client) == before
    assert client.put("/api/names", json={"A": first, "B": "Ellos"}, headers=AUTH).status_code == 200


def test_a_name_of_24_characters_is_kept_whole(client: TestClient) -> None:
    names = {"A": "Losmuchachosdelaesquinaa", "B": "  Ellos  "}
    response = client.put("/api/names", json=names, headers=AUTH)
    assert response.json()["names"] == {"A": "Losmuchachosdelaesquinaa", "B": "Ellos"}


def test_a_name_typed_decomposed_is_kept_composed_and_counted_in_letters(client: TestClient) -> None:
    """A team's name typed on a keyboard that writes «í» as «i» plus an accent (Unicode's NFD: a
    Mac's, some Android ones) is kept as the same name typed with «í» whole (NFC), its letters
    counted, not the keyboard's parts; on one line, spaces collapsed."""
    name = "Los Ñandúes del Martínez"  # 24 letters, 27 parts decomposed
    decomposed = unicodedata.normalize("NFD", name)
    assert len(name) == 24 < len(decomposed)
    names = {"A": decomposed, "B": " Ellos \t de\n acá "}
    response = client.put("/api/names", json=names, headers=AUTH)  # before: «tiene 27»
    assert response.status_code == 200, response.text
    assert response.json()["names"] == {"A": name, "B": "Ellos de acá"}
    response = client.post("/api/games", json={"names": {"A": decomposed, "B": "Ellos"}},
                           headers=AUTH)
    assert response.json()["names"]["A"] == name


def test_actions_endpoint_takes_the_same_commands(client: TestClient) -> None:
    response = client.post("/api/actions", json={"action": "event", "line": "hand"}, headers=AUTH)
    assert response.status_code == 200 and response.json()["log"] == ["hand"]
    body = {"action": "undo", "pin": PIN}
    assert client.post("/api/actions", json=body).json()["log"] == []


def test_undo_and_flip_the_last_call(client: TestClient, post: Post) -> None:
    post(client, "hand")
    post(client, "A1: truco")
    flipped = client.post("/api/flip", headers=AUTH)
    assert flipped.status_code == 200
    assert flipped.json()["log"][-1] == "B1: truco"
    assert flipped.json()["hand"]["truco"]["pending"]["by"] == "B"
    assert client.post("/api/undo", headers=AUTH).json()["log"] == ["hand"]
    refused = client.post("/api/flip", headers=AUTH)
    assert refused.status_code == 409 and refused.json()["error"]["message"]
    assert client.post("/api/undo", headers=AUTH).json()["log"] == []
    assert client.post("/api/undo", headers=AUTH).json()["error"]["code"] == "nothing-to-undo"


def test_the_last_call_goes_to_a_partner(client: TestClient, post: Post) -> None:
    client.post("/api/settings", json={"players": 4, "flor": True}, headers=AUTH)
    post(client, "hand")
    assert state(client)["partners"] == []  # no call yet
    seq = post(client, "A1: flor").json()["seq"]
    assert state(client)["partners"] == ["A2"]
    moved = client.post(f"/api/seat?seq={seq}", json={"seat": "A2"}, headers=AUTH)
    assert moved.status_code == 200, moved.text
    assert moved.json()["log"][-1] == "A2: flor" and moved.json()["partners"] == ["A1"]
    again = client.post(f"/api/seat?seq={seq}", json={"seat": "A2"}, headers=AUTH)  # a double tap
    assert again.json()["error"]["code"] == "stale"
    refused = client.post("/api/seat", json={"seat": "B1"}, headers=AUTH)
    assert refused.json()["error"]["code"] == "seat-refused"
    assert "B1 no es compañero de A2" in refused.json()["error"]["message"]
    invalid = client.post("/api/seat", json={"seat": "C1"}, headers=AUTH)
    assert invalid.status_code == 422 and invalid.json()["error"]["code"] == "invalid"
    over_socket = client.post("/api/actions", headers=AUTH, json={"action": "seat", "seat": "A1"})
    assert over_socket.json()["log"][-1] == "A1: flor"
    assert state(client)["log"] == ["hand", "A1: flor"]
    record = client.get(f"/api/games/{state(client)['game_id']}/log").json()["log"]
    assert [(e["action"], e["line"]) for e in record][-4:] == [
        ("undo", "A1: flor"), ("apply", "A2: flor"), ("undo", "A2: flor"), ("apply", "A1: flor")]


@pytest.mark.parametrize("change", ["undo", "flip", "swap"])
def test_a_double_tap_changes_the_last_line_once(client: TestClient, post: Post, change: str) -> None:
    post(client, "hand")
    seq = post(client, "A1: truco").json()["seq"]
    if change != "flip":  # an answer to swap
        seq = post(client, "B1: quiero").json()["seq"]
    first = client.post(f"/api/{change}?seq={seq}", headers=AUTH)
    assert first.status_code == 200
    again = client.post(f"/api/{change}?seq={seq}", headers=AUTH)  # the same screen, tapped twice
    assert again.status_code == 409 and again.json()["error"]["code"] == "stale"
    assert state(client)["log"] == first.json()["log"]
    over_socket = client.post("/api/actions", headers=AUTH, json={"action": change, "seq": seq})
    assert over_socket.json()["error"]["code"] == "stale"
    fresh = client.post(f"/api/{change}?seq={first.json()['seq']}", headers=AUTH)
    assert fresh.status_code in (200, 409) and fresh.json().get("error", {}).get("code") != "stale"


def test_swap_the_last_answer_for_its_opposite(client: TestClient, post: Post) -> None:
    post(client, "hand")
    assert post(client, "A1: truco").json()["swap_to"] is None
    assert post(client, "B1: quiero").json()["swap_to"] == "no quiero"
    swapped = client.post("/api/swap", headers=AUTH)
    assert swapped.status_code == 200
    assert swapped.json()["log"][-2:] == ["A1: truco", "B1: no quiero"]
    assert swapped.json()["score"] == {"A": 1, "B": 0} and swapped.json()["swap_to"] == "quiero"
    body = {"action": "swap", "pin": PIN}
    assert client.post("/api/actions", json=body).json()["log"][-1] == "B1: quiero"
    record = client.get(f"/api/games/{swapped.json()['game_id']}/log").json()["log"]
    assert [(e["action"], e["line"]) for e in record][-4:] == [
        ("undo", "B1: quiero"), ("apply", "B1: no quiero"),
        ("undo", "B1: no quiero"), ("apply", "B1: quiero")]
    assert post(client, "B1: retruco").json()["swap_to"] is None
    refused = client.post("/api/swap", headers=AUTH)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "swap-refused"


def test_the_last_call_becomes_the_longer_call_it_ended(app: FastAPI, client: TestClient,
                                                        post: Post) -> None:
    post(client, "hand")
    # «falta envido» heard surely as «envido»: the «falta» went unheard
    heard = app.state.service.record_heard(Heard("envido", "accepted", line="A1: envido"))
    snap = state(client)
    assert snap["longer_than_last"] == ["real envido", "falta envido"] and snap["swap_to"] is None
    wrong = client.post("/api/swap", json={"to": "vale cuatro"}, headers=AUTH)
    assert wrong.status_code == 409 and "no pudo haber sido «vale cuatro»" in wrong.text
    swapped = client.post("/api/swap", json={"to": "falta envido"}, headers=AUTH).json()
    assert swapped["log"][-2:] == ["hand", "A1: falta envido"]
    assert swapped["longer_than_last"] == []
    row = next(h for h in swapped["heard"] if h["id"] == heard["id"])
    assert row["line"] == "A1: falta envido" and row["extra"]["changed"] == "swap"
    # an answer offers only its opposite: «con flor quiero» is not said to an envido
    assert post(client, "B1: quiero").json()["longer_than_last"] == []
    body = {"action": "swap", "pin": PIN, "to": "con flor quiero"}
    refused = client.post("/api/actions", json=body).json()
    assert refused["error"]["code"] == "swap-refused" and state(client)["log"][-1] == "B1: quiero"


class Calibrating:
    """The referee's calibration as the service sees it: each tap noted, one refused, the new
    state shown on the pages."""

    def __init__(self, service: Any) -> None:
        self.service, self.taps = service, cast(list[tuple[str, int, int | None]], [])

    def act(self, action: str, players: int, index: int | None, kept: int | None = None,
            name: str = "") -> None:
        if action == "skip" and index is None:
            raise ValueError("no se está calibrando: tocá «Calibrar las voces»")
        self.taps.append((action, players, index) + ((kept,) if kept else ())
                         + ((name,) if name else ()))
        self.service.set_calibration({"state": "listening", "prompt": "truco"})

    def voice_sample(self, player: int) -> bytes | None:
        return b"RIFF-jugador-1" if player == 1 else None


def test_the_voices_are_calibrated_from_the_tablet_through_the_referee(app: FastAPI,
                                                                       client: TestClient) -> None:
    assert state(client)["calibration"] is None  # no microphone to calibrate with
    off = client.post("/api/calibration", json={"action": "start"}, headers=AUTH)
    assert off.status_code == 409 and off.json()["error"]["code"] == "calibration-off"
    assert client.get("/api/calibration/voices/1").status_code == 404

    service = app.state.service
    service.calibration = referee = Calibrating(service)
    assert client.post("/api/calibration", json={"action": "start"}).status_code == 401
    seen = state(client)["seq"]
    started = client.post("/api/calibration", json={"action": "start", "players": 3},
                          headers=AUTH)
    assert started.status_code == 200 and referee.taps == [("start", 3, None)]
    assert started.json()["calibration"] == {"state": "listening", "prompt": "truco"}
    # the calibration's state is not a change of the table: a tap on what was shown stands
    assert client.post(f"/api/events?seq={seen}", json={"line": "hand"},
                       headers=AUTH).status_code == 200
    refused = client.post("/api/calibration", json={"action": "skip"}, headers=AUTH)
    assert refused.status_code == 409 and refused.json()["error"] == {
        "code": "calibration-refused",
        "message": "no se está calibrando: tocá «Calibrar las voces»"}
    client.post("/api/calibration", json={"action": "skip", "index": 2}, headers=AUTH)
    assert referee.taps[-1] == ("skip", 1, 2)  # the prompt the page showed
    for body in ({"action": "again"}, {"action": "start", "players": 7},
                 {"action": "skip", "index": 0}, {"action": "remove", "index": 0}):
        assert client.post("/api/calibration", json=body, headers=AUTH).status_code == 422
    client.post("/api/calibration", json={"action": "remove", "index": 2, "kept": 3}, headers=AUTH)
    assert referee.taps[-1] == ("remove", 1, 2, 3)  # a kept player who left, of the 3 listed
    client.post("/api/calibration", json={"action": "rename", "index": 2, "kept": 3,
                                          "name": "Ana"}, headers=AUTH)
    assert referee.taps[-1] == ("rename", 1, 2, 3, "Ana")  # a kept player's name
    long = {"action": "rename", "index": 2, "name": "x" * 201}
    assert client.post("/api/calibration", json=long, headers=AUTH).status_code == 422
    voice = client.get("/api/calibration/voices/1")  # to tell whose voice it is
    assert voice.status_code == 200 and voice.content == b"RIFF-jugador-1"
    assert voice.headers["content-type"] == "audio/wav"
    missing = client.get("/api/calibration/voices/2")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no-such-voice"
    assert service.set_calibration({"state": "listening", "prompt": "truco"}) is None  # unchanged


def test_the_table_says_the_prompts_and_every_page_sees_the_calibration_go(
        app: FastAPI, client: TestClient, shared_dir: Path, tmp_path: Path) -> None:
    from referee.table_calibration import TableCalibration
    from tests.referee.test_table_calibration import Recognizer, wait_for
    from tests.referee.test_table_calibration import table as table_sound
    from tests.referee.test_voices_mic import CorpusMic, prompts_said

    service = app.state.service
    recognizer = Recognizer(shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model")
    service.calibration = calibration = TableCalibration(service.set_calibration, tmp_path,
                                                         recognizer, lambda _: None)
    assert state(client)["calibration"]["state"] == "idle"
    started = client.post("/api/calibration", json={"action": "start"}, headers=AUTH).json()
    assert started["calibration"]["prompt"] == "truco"
    prompts_said(shared_dir)
    table = [*CorpusMic(None), *table_sound(2.0, len(CorpusMic.stream) / 16000)]
    heard = list(calibration.tap(table))
    assert 0 < len(heard) < 20  # the listener heard the table after the last prompt, only
    wait_for(calibration, "done")
    shown = state(client)["calibration"]
    assert shown["state"] == "done" and shown["message"].startswith("Listo: 33 frases")
    assert recognizer.used and recognizer.used[0] is not None and recognizer.used[0].is_file()
    closed = client.post("/api/calibration", json={"action": "close"}, headers=AUTH).json()
    assert closed["calibration"]["state"] == "idle"


def test_the_terminal_shows_the_score_once_a_swap_is_made(app: FastAPI, client: TestClient,
                                                           post: Post) -> None:
    printed: list[tuple[str, str, dict[str, int] | None]] = []
    app.state.service.on_stored = lambda action, line, origin, score: printed.append(
        (action, line, score))
    post(client, "hand")
    post(client, "A1: truco")
    post(client, "B1: quiero")
    client.post("/api/swap", headers=AUTH)
    assert printed[-2:] == [("undo", "B1: quiero", None), ("apply", "B1: no quiero", {"A": 1, "B": 0})]
    assert "A 1 — B 0" in event_line("apply", "B1: no quiero", "page", {"A": 1, "B": 0})
    assert "—" not in event_line("undo", "B1: quiero", "page", None)


@pytest.mark.parametrize(("line", "said"), [
    ("hand", "mano"), ("A1 plays 7o", "A1 juega 7o"), ("round parda", "vuelta parda"),
    ("points A +2", "puntos A +2"), ("envido aside", "envido aparte"), ("B1: no quiero", "B1: no quiero"),
    ("hand B", "mano B"), ("A2 shows 7o 1o", "A2 muestra 7o 1o"), ("no es notación", "no es notación")])
def test_the_terminal_says_each_stored_line_in_the_tables_words(line: str, said: str) -> None:
    """The log keeps «hand», «A1 plays 7o»: the terminal said them so to a Spanish table."""
    assert event_line("apply", line, "page", None).startswith(f"[bold]{said}[/bold]")
    assert event_line("undo", line, "voice", None).startswith(f"[bold]deshecho: {said}[/bold]")


def test_the_terminal_says_in_red_when_the_store_refuses_and_in_green_when_it_takes_again() -> None:
    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard")
    console.print(store_line("trouble", "No se puede guardar: el disco [lleno]."))
    console.print(store_line("ok", "Se puede guardar de nuevo."))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown) == ("No se puede guardar: el disco [lleno].\n"
                                                  "Se puede guardar de nuevo.\n")  # brackets kept
    assert "\x1b[1;31mNo se puede" in shown and "\x1b[32mSe puede" in shown


def test_manual_points_and_a_finished_game(client: TestClient, post: Post) -> None:
    assert post(client, "points A +29").json()["score"] == {"A": 29, "B": 0}
    assert post(client, "points B +3").json()["score"] == {"A": 29, "B": 3}
    snap = post(client, "points A +1").json()
    assert snap["winner"] == "A"
    games = client.get("/api/games").json()["games"]
    assert games[0]["score"] == {"A": 30, "B": 3} and games[0]["winner"] == "A"


def test_past_games_are_listed_a_hundred_at_a_time_newest_first(app: FastAPI,
                                                                 client: TestClient) -> None:
    store = app.state.service.store
    for _ in range(102):  # the game in play is the first of 103
        store.create_game({}, {})
    first = client.get("/api/games").json()
    ids = [g["id"] for g in first["games"]]
    assert len(ids) == 100 and ids == sorted(ids, reverse=True) and first["more"] is True
    rest = client.get(f"/api/games?before={ids[-1]}").json()
    assert [g["id"] for g in rest["games"]] == [3, 2, 1] and rest["more"] is False
    assert rest["current"] == first["current"]  # before: the three oldest could not be reached
    assert client.get("/api/games?before=0").status_code == 422


def test_names_new_game_and_reopening_a_past_game(client: TestClient, post: Post) -> None:
    names = client.put("/api/names", json={"A": "Los de acá", "B": "Visitantes"}, headers=AUTH)
    assert names.json()["names"] == {"A": "Los de acá", "B": "Visitantes"}
    post(client, "points B +5")
    first = state(client)["game_id"]
    fresh = client.post("/api/games", json={"settings": {"points": 15, "flor": True}},
                        headers=AUTH).json()
    assert fresh["game_id"] != first and fresh["score"] == {"A": 0, "B": 0}
    assert fresh["settings"]["points"] == 15 and fresh["settings"]["flor"] is True
    assert fresh["names"] == {"A": "Los de acá", "B": "Visitantes"}
    listed = client.get("/api/games").json()
    assert [g["id"] for g in listed["games"]] == [fresh["game_id"], first]
    reopened = client.post(f"/api/games/{first}/open", headers=AUTH).json()
    assert reopened["game_id"] == first and reopened["score"] == {"A": 0, "B": 5}
    assert reopened["settings"]["points"] == 30
    assert client.post("/api/games/999/open", headers=AUTH).status_code == 404
    record = client.get(f"/api/games/{first}/log").json()["log"]
    assert record == [{"action": "apply", "line": "points B +5", "origin": "page"}]
    assert client.get("/api/games/999/log").status_code == 404


def test_a_past_game_is_deleted_with_its_clips_but_not_the_one_in_play(
        app: FastAPI, client: TestClient, post: Post) -> None:
    service = app.state.service
    post(client, "hand")
    clip = b"RIFF" + bytes(300_000)  # pages of their own
    heard = service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco", clip=clip))
    old = state(client)["game_id"]
    assert client.delete(f"/api/games/{old}").status_code == 401  # the table's PIN
    refused = client.delete(f"/api/games/{old}", headers=AUTH)
    assert refused.status_code == 409 and refused.json()["error"] == {
        "code": "game-in-play", "message": "la partida en curso no se borra: empezá o abrí otra "
        "primero"}
    current = client.post("/api/games", json={}, headers=AUTH).json()["game_id"]
    deleted = client.delete(f"/api/games/{old}", headers=AUTH)
    assert deleted.status_code == 200 and deleted.json() == {"deleted": old, "freed": len(clip)}
    assert service.store._db.execute("PRAGMA freelist_count").fetchone()[0] == 0  # room given back
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [current]
    assert client.get(f"/api/clips/{heard['clip_id']}").status_code == 404
    assert client.get(f"/api/games/{old}/evidence").status_code == 404
    assert client.delete(f"/api/games/{old}", headers=AUTH).status_code == 404
    assert state(client)["game_id"] == current


def test_a_game_downloaded_as_a_table_log_replays_to_its_score(
        client: TestClient, post: Post, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its rules, its lines as they stand after undos and a flip, one call of two said in one
    phrase: `truco-referee replay` gives the score the board shows."""
    from referee.cli import main

    client.put("/api/names", json={"A": "Los de acá", "B": "Visitantes"}, headers=AUTH)
    game = client.post("/api/games", json={"settings": {"players": 4, "flor": True, "points": 15,
                                                        "falta": "malas"}},
                       headers=AUTH).json()["game_id"]
    for line in ["hand", "A1: envido", "B1: quiero", "A1: 31", "B1: 27", "B2: son buenas", "A2: truco",
                 "B2: quiero retruco", "A1: me voy al mazo", "hand", "B1: flor"]:
        assert post(client, line).status_code == 200, line
    client.post("/api/undo", headers=AUTH)  # the flor taken back
    post(client, "A2: truco")
    client.post("/api/flip", headers=AUTH)  # it was B's
    shown = state(client)
    got = client.get(f"/api/games/{game}/replay")
    assert got.status_code == 200 and got.headers["content-type"] == "text/plain; charset=utf-8"
    assert got.headers["content-disposition"] == f'attachment; filename="partida-{game}.txt"'
    text = got.text
    first, second = text.splitlines()[:2]
    assert first.startswith(f"# Partida {game}, empezada el ")  # by the machine's clock
    assert first.endswith(f": Los de acá {shown['score']['A']}, Visitantes {shown['score']['B']}")
    again = f"truco-referee replay partida-{game}.txt"
    assert second == f"# A = Los de acá, B = Visitantes. Para volver a jugarla: {again}"
    rules = [x for x in text.splitlines() if x.startswith("set ")]
    assert rules == ["set players 4", "set points 15", "set flor on", "set falta malas"]
    assert text.splitlines()[2 + len(rules):] == shown["log"]
    assert "B1: flor" not in text and text.endswith("B2: quiero\nB2: retruco\nA1: me voy al mazo\n"
                                                   "hand\nB1: truco\n")  # flipped to B
    saved = tmp_path / f"partida-{game}.txt"
    saved.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(saved), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["rejected"] == [] and replayed["score"] == shown["score"]
    assert replayed["log"] == [*rules, *shown["log"]]
    assert client.get("/api/games/999/replay").status_code == 404


def test_the_table_s_last_sound_is_heard_again_with_the_pin(app: FastAPI, client: TestClient) -> None:
    """What the microphone heard last, from the referee's memory, only for those with the PIN
    (it is the table's talk, not evidence)."""
    from referee.table_audio import TableAudio

    off = client.post("/api/table-audio", json={"seconds": 15}, headers=AUTH)
    assert off.status_code == 409 and off.json()["error"]["code"] == "table-audio-off"
    app.state.service.table_audio = kept = TableAudio(keep_s=60)
    empty = client.post("/api/table-audio", json={"seconds": 5}, headers=AUTH)
    assert empty.status_code == 409 and empty.json()["error"] == {
        "code": "table-audio-empty", "message": "el micrófono todavía no oyó nada"}
    kept.keep(bytes(range(256)) * 125)  # a second of sound
    assert client.post("/api/table-audio", json={"seconds": 15}).status_code == 401
    got = client.post("/api/table-audio", json={"seconds": 15}, headers=AUTH)
    assert got.status_code == 200 and got.content[:4] == b"RIFF"
    with wave.open(io.BytesIO(got.content)) as w:
        assert w.readframes(w.getnframes()) == bytes(range(256)) * 125
    assert got.headers["content-type"] == "audio/wav" and got.headers["cache-control"] == "no-store"
    assert kept.handed(got.headers["x-table-audio"]) is not None  # named, to keep it later
    for seconds in (0, 601, "todo"):
        assert client.post("/api/table-audio", json={"seconds": seconds},
                           headers=AUTH).status_code == 422


def test_a_sound_heard_again_is_kept_with_the_game_and_its_evidence(
        app: FastAPI, client: TestClient) -> None:
    """«Guardar con la partida»: the sound the tablet heard again (not what the table said
    since) among what was heard, with nothing decided from it, and in the game's evidence."""
    import csv
    import zipfile

    from referee import clip_codec
    from referee.table_audio import TableAudio

    told: list[str] = []
    app.state.service.table_audio = kept = TableAudio(keep_s=60, told=told.append)
    kept.keep(bytes(range(256)) * 125)
    got = client.post("/api/table-audio", json={"seconds": 30}, headers=AUTH)
    replay = got.headers["x-table-audio"]
    kept.keep(bytes(32000))  # the table goes on
    assert client.post("/api/table-audio/keep", json={"id": replay}).status_code == 401
    snap = client.post("/api/table-audio/keep", json={"id": replay}, headers=AUTH).json()
    item = snap["heard"][0]
    assert item["status"] == "kept" and item["line"] is None and snap["log"] == []
    assert item["text"].startswith("Sonido de la mesa: 1 s hasta las ")
    clip = client.get(f"/api/clips/{item['clip_id']}")
    assert clip.headers["content-type"] == "audio/flac"  # kept as FLAC, the samples heard
    heard = clip_codec.decode(got.content)
    assert heard is not None and clip_codec.decode(clip.content) == heard
    game = snap["game_id"]
    assert told[-1] == (f"escucha: la tablet guardó con la partida {game} los 1 s de la mesa "
                        "que volvió a oír")
    again = client.post("/api/table-audio/keep", json={"id": replay}, headers=AUTH)
    assert again.status_code == 409 and again.json()["error"]["code"] == "table-audio-gone"
    assert "volvé a escucharlo" in again.json()["error"]["message"]
    assert client.post("/api/table-audio/keep", json={"id": "mesa"},
                       headers=AUTH).status_code == 422
    with zipfile.ZipFile(io.BytesIO(client.get(f"/api/games/{game}/evidence").content)) as zf:
        rows = list(csv.DictReader(io.StringIO(
            zf.read(f"partida-{game}/oido.csv").decode("utf-8-sig"))))
        assert [(r["de"], r["estado"], r["oído"]) for r in rows] == [
            ("mesa", "guardado a mano", item["text"])]
        assert rows[0]["archivo"].endswith(".flac")
        assert zf.read(f"partida-{game}/{rows[0]['archivo']}") == clip.content


def test_the_history_plays_each_line_applied_by_voice_or_camera_and_tallies_the_voice(
        app: FastAPI, client: TestClient, post: Post) -> None:
    """For the history: by the line's place in the log, what it was applied from, while the line
    stands (not a line typed, a call refused, one undone, nor a call heard with no clip); and
    how the voice did."""
    service = app.state.service
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
    post(client, "hand")
    truco = service.record_heard(Heard("¿y si te canto truco?", "accepted", line="A1: truco",
                                       team="A", clip=wav))
    service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco", clip=wav))
    service.record_heard(Heard("quiero", "accepted", line="B1: quiero", team="B"))  # no clip
    post(client, "A1 plays 4c")
    seen = service.record_seen("A1 jugó el 4 de copas", b"\xff\xd8\xff\xe0" + bytes(100),
                               "A1 plays 4c")
    service.record_heard(Heard("retruco", "accepted", line="B1: retruco", team="B", clip=wav))
    assert client.get("/api/heard/history").json()["lines"]["4"]["text"] == "retruco"
    service.undo()  # the retruco taken back: its line no longer stands
    lines = client.get("/api/heard/history").json()["lines"]
    assert state(client)["log"] == ["hand", "A1: truco", "B1: quiero", "A1 plays 4c"]
    assert lines == {
        "1": {"heard_id": truco["id"], "text": "¿y si te canto truco?",
              "clip_id": truco["clip_id"], "seen": False},
        "3": {"heard_id": seen["id"], "text": "A1 jugó el 4 de copas",
              "clip_id": seen["clip_id"], "seen": True}}
    # and how the voice did, the camera's aside: as heard, refused, undone, then by a tap
    assert client.get("/api/heard/history").json()["tally"] == {"alone": 2, "refused": 1,
                                                                "undone": 1}
    waiting = service.record_heard(Heard("retruco", "unsure", line="B1: retruco", team="B"))
    service.record_heard(Heard("envido", "unsure", line="A1: envido", team="A"))
    assert client.get("/api/heard/history").json()["tally"]["waiting"] == 2
    service.confirm_heard(waiting["id"], "confirm")
    service.dismiss_heard(waiting["id"] + 1)
    assert client.get("/api/heard/history").json()["tally"] == {
        "alone": 2, "refused": 1, "undone": 1, "confirmed": 1, "dismissed": 1}


def test_a_game_downloaded_with_its_evidence(app: FastAPI, client: TestClient, post: Post) -> None:
    """Its table log, a row for everything heard or seen, and each clip and picture kept."""
    import csv
    import zipfile

    service = app.state.service
    post(client, "hand")
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
    service.record_heard(Heard("¿Tenés envido?", "accepted", line="A1: envido", team="A", clip=wav,
                               extra={"confidence": 0.93}))
    service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco", clip=wav + b"t"))
    service.record_heard(Heard("kiero", "unsure", line="B1: quiero", team="B"))
    post(client, "A1 plays 4c")
    picture = b"\xff\xd8\xff\xe0" + bytes(100)
    service.record_seen("A1 jugó el 4 de copas", picture, "A1 plays 4c")
    game = state(client)["game_id"]
    got = client.get(f"/api/games/{game}/evidence")
    assert got.status_code == 200 and got.headers["content-type"] == "application/zip"
    assert got.headers["content-disposition"] == f'attachment; filename="partida-{game}-evidencia.zip"'
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        folder = f"partida-{game}"
        assert zf.read(f"{folder}/partida-{game}.txt").decode() == client.get(
            f"/api/games/{game}/replay").text
        rows = list(csv.DictReader(io.StringIO(zf.read(f"{folder}/oido.csv").decode("utf-8-sig"))))
        assert [(r["n"], r["de"], r["equipo"], r["oído"], r["estado"], r["anotado"], r["motivo"],
                 r["confianza"], r["archivo"]) for r in rows] == [
            ("1", "voz", "Nosotros", "¿Tenés envido?", "aplicado", "A1: envido", "", "0.93",
             "evidencia/0001-tenes-envido.wav"),
            ("2", "voz", "", "turco", "rechazado", "", "«turco» no es truco", "",
             "evidencia/0002-turco.wav"),
            ("3", "voz", "Ellos", "kiero", "dudoso", "B1: quiero", "", "", ""),
            ("4", "cámara", "", "A1 jugó el 4 de copas", "aplicado", "A1 plays 4c", "", "",
             "evidencia/0004-a1-jugo-el-4-de-copas.jpg")]
        assert all(re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d", r["fecha y hora"]) for r in rows)
        assert zf.read(f"{folder}/evidencia/0001-tenes-envido.wav") == wav
        assert zf.read(f"{folder}/evidencia/0004-a1-jugo-el-4-de-copas.jpg") == picture
        # the same rows as a page to open in any browser, each file played or shown in its row
        page = zf.read(f"{folder}/index.html").decode()
        sources = re.findall(r'(?:src|href)="([^"]+)"', page)
        assert sources == [
            f"partida-{game}.txt", "evidencia/0001-tenes-envido.wav",
            "evidencia/0001-tenes-envido.wav", "evidencia/0002-turco.wav",
            "evidencia/0002-turco.wav", "evidencia/0004-a1-jugo-el-4-de-copas.jpg",
            "evidencia/0004-a1-jugo-el-4-de-copas.jpg"]
        assert all(f"{folder}/{name}" in zf.namelist() for name in sources)
        assert '<audio controls preload="none" src="evidencia/0002-turco.wav">' in page
        assert "<td>«turco» no es truco</td>" in page and "<td>¿Tenés envido?</td>" in page
        assert "<script" not in page and "http" not in page  # nothing from outside
    assert client.get("/api/games/999/evidence").status_code == 404


def test_the_calls_of_one_phrase_keep_its_sound_once(app: FastAPI, client: TestClient,
                                                     post: Post) -> None:
    """«Turco, truco»: the look-alike refused and the call applied share the phrase's clip, kept
    once in the store and once in the evidence, both rows naming that file."""
    import csv
    import zipfile

    service = app.state.service
    post(client, "hand")
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(64)
    service.record_heard(Heard("turco truco", "rejected", reason="«turco» no es truco", clip=wav))
    service.record_heard(Heard("turco truco", "accepted", line="A1: truco", team="A", clip=wav))
    first, second = state(client)["heard"][1], state(client)["heard"][0]
    assert first["clip_id"] == second["clip_id"]
    assert service.store._db.execute("SELECT count(*) FROM clips").fetchone()[0] == 1
    assert client.get(f"/api/clips/{second['clip_id']}").content == wav
    got = client.get(f"/api/games/{state(client)['game_id']}/evidence")
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        [folder] = {name.split("/")[0] for name in zf.namelist()}
        rows = list(csv.DictReader(io.StringIO(zf.read(f"{folder}/oido.csv").decode("utf-8-sig"))))
        assert [r["archivo"] for r in rows] == ["evidencia/0001-turco-truco.wav"] * 2
        assert [n for n in zf.namelist() if "/evidencia/" in n] == [
            f"{folder}/evidencia/0001-turco-truco.wav"]


def test_a_long_evening_s_evidence_spills_to_disk_and_a_full_disk_is_said(
        app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clips beyond what the zip keeps in memory go to a file on disk and download whole; a disk
    that will not hold them is a refusal in words."""
    import random
    import zipfile

    from referee import clip_codec
    from web_scoreboard import past_games

    service = app.state.service
    monkeypatch.setattr(past_games, "EVIDENCE_IN_MEMORY", 64 << 10)
    rng = random.Random(3)  # sound as deflate would not shrink it
    clips = [rng.randbytes(40_000) for _ in range(5)]
    for n, clip in enumerate(clips):
        service.record_heard(Heard(f"turco {n}", "rejected", reason="no es truco", clip=clip))
    spilled: list[bool] = []
    made = service.game_evidence

    def watched(game_id: int) -> Any:
        out = made(game_id)
        spilled.append(out._rolled)  # on disk: more than the 64 kB held in memory
        return out

    monkeypatch.setattr(service, "game_evidence", watched)
    game = state(client)["game_id"]
    got = client.get(f"/api/games/{game}/evidence")
    assert got.status_code == 200 and spilled == [True]
    assert int(got.headers["content-length"]) == len(got.content) > 200_000
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        kept = sorted(n for n in zf.namelist() if "/evidencia/" in n)
        assert [clip_codec.decode(zf.read(n)) for n in kept] == [(c, 16_000) for c in clips]

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device", "/tmp/tmpzip")

    monkeypatch.setattr(past_games, "evidence_zip", full)
    refused = client.get(f"/api/games/{game}/evidence")
    assert refused.status_code == 507 and refused.json()["error"] == {
        "code": "evidence-failed",
        "message": "no pude armar el zip con los audios y las fotos: no queda lugar en el disco"}


def test_settings_start_a_new_game_and_bad_settings_are_refused(client: TestClient) -> None:
    snap = client.post("/api/settings", json={"players": 4, "falta": "malas"}, headers=AUTH)
    assert snap.json()["seats"] == ["A1", "B1", "A2", "B2"]
    assert snap.json()["settings"]["falta"] == "malas"
    before = state(client)
    bad = client.post("/api/settings", json={"players": 6, "pica_pica": True, "points": 20},
                      headers=AUTH)
    assert bad.status_code == 422
    assert state(client) == before


def test_heard_items_accepted_unsure_and_rejected(app: FastAPI, client: TestClient,
                                                  post: Post) -> None:
    service = app.state.service
    post(client, "hand")
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
    accepted = service.record_heard(Heard("truco", "accepted", line="A1: truco", team="A",
                                          clip=wav))
    assert accepted["status"] == "accepted" and accepted["clip_id"]
    assert state(client)["log"][-1] == "A1: truco"
    lookalike = service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco"))
    unsure = service.record_heard(Heard("kiero", "unsure", line="B1: quiero", team="B"))
    illegal = service.record_heard(Heard("vale cuatro", "accepted", line="B1: vale cuatro"))
    assert illegal["status"] == "rejected" and illegal["reason"]
    heard = state(client)["heard"]
    assert client.get("/api/heard").json()["heard"] == heard
    assert [h["id"] for h in heard] == [illegal["id"], unsure["id"], lookalike["id"],
                                        accepted["id"]]
    clip = client.get(f"/api/clips/{accepted['clip_id']}")
    assert clip.status_code == 200 and clip.content == wav
    assert clip.headers["content-type"] == "audio/wav"
    assert client.get("/api/clips/nope").status_code == 404
    assert client.post(f"/api/heard/{unsure['id']}/confirm").status_code == 401
    confirmed = client.post(f"/api/heard/{unsure['id']}/confirm", headers=AUTH).json()
    assert confirmed["log"][-1] == "B1: quiero"
    assert confirmed["heard"][1]["status"] == "accepted"
    again = client.post(f"/api/heard/{unsure['id']}/confirm", headers=AUTH)
    assert again.status_code == 409 and state(client)["log"][-1] == "B1: quiero"


def test_dismissing_an_unsure_call(app: FastAPI, client: TestClient) -> None:
    unsure = app.state.service.record_heard(Heard("truco?", "unsure", line="A1: truco"))
    snap = client.post(f"/api/heard/{unsure['id']}/dismiss", headers=AUTH).json()
    assert snap["heard"][0]["status"] == "rejected" and snap["log"] == []


def test_a_call_set_aside_by_hand_offers_no_longer_call(
        app: FastAPI, client: TestClient, post: Post) -> None:
    post(client, "hand")
    unsure = app.state.service.record_heard(Heard(
        "envido", "unsure", line="A1: envido", extra={"words": "envido", "call": "envido"}))
    assert state(client)["heard"][0]["instead"] == ["real envido", "falta envido"]
    snap = client.post(f"/api/heard/{unsure['id']}/dismiss", headers=AUTH).json()
    assert "instead" not in snap["heard"][0]
    again = client.post(f"/api/heard/{unsure['id']}/confirm", json={"instead": "falta envido"},
                        headers=AUTH)
    assert again.status_code == 409 and state(client)["log"] == ["hand"]


def test_a_doubtful_call_is_confirmed_as_the_longer_call_it_ended(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.asr.base import Word
    from referee.utterance import Utterance
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    # «falta envido» with «falta» heard as no word: the listener holds the «envido» at 0.3
    referee(Utterance("envido", (Word("envido", 0.3, 0.5, 0.9),), 0.5, 0.9, 1.0, 0.3, None, False))
    envido = state(client)["heard"][0]
    assert envido["status"] == "unsure" and envido["instead"] == ["real envido", "falta envido"]
    wrong = client.post(f"/api/heard/{envido['id']}/confirm", json={"instead": "retruco"},
                        headers=AUTH)
    assert wrong.status_code == 422 and "«envido» no puede haber sido «retruco»" in wrong.text
    assert state(client)["log"] == ["hand"]
    snap = client.post(f"/api/heard/{envido['id']}/confirm", json={"instead": "falta envido"},
                       headers=AUTH).json()
    assert snap["log"][-1] == "A1: falta envido"
    assert snap["heard"][0]["status"] == "accepted" and "instead" not in snap["heard"][0]
    assert snap["heard"][0]["reason"] == "confirmado a mano: era «falta envido»"
    # a doubtful «quiero» to a truco may have been a «no quiero»; «con flor quiero» is refused
    for line in ("B1: no quiero", "A1: truco"):
        assert post(client, line).status_code == 200, line
    referee(Utterance("quiero", (Word("quiero", 0.4, 3.0, 3.3),), 3.0, 3.3, 3.4, 0.4, "B", False))
    quiero = state(client)["heard"][0]
    assert quiero["instead"] == ["no quiero"]
    snap = client.post("/api/actions", json={"action": "confirm", "heard_id": quiero["id"],
                                             "instead": "no quiero", "pin": PIN}).json()
    assert snap["log"][-1] == "B1: no quiero"


def test_a_look_alike_that_ends_a_call_is_taken_for_it_with_one_tap(
        app: FastAPI, client: TestClient, post: Post) -> None:
    """«me voy al mazo» with «me voy al» heard as a number: the look-alike «mazo» is refused, and
    the tablet offers «me voy al mazo» beside it while the rules take it; «turco» offers nothing
    (no call ends with it); a refused «cuatro» offers «vale cuatro»."""
    from referee.asr.base import Word
    from referee.utterance import Utterance
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)

    def say(text: str, at: float) -> dict[str, Any]:
        words = tuple(Word(w, at + k * 0.3, at + k * 0.3 + 0.3, 0.9)
                      for k, w in enumerate(text.split()))
        referee(Utterance(text, words, at, words[-1].end, words[-1].end + 0.1, 0.9, None, False))
        return cast(dict[str, Any], state(client)["heard"][0])

    post(client, "hand")
    turco = say("turco", 1.0)
    assert turco["status"] == "rejected" and turco["instead"] == []
    mazo = say("uno mazo", 2.0)
    assert mazo["status"] == "rejected" and mazo["instead"] == ["me voy al mazo"]
    assert state(client)["log"] == ["hand"]
    plain = client.post(f"/api/heard/{mazo['id']}/confirm", headers=AUTH)
    assert plain.status_code == 409 and state(client)["log"] == ["hand"]  # refused as heard
    wrong = client.post(f"/api/heard/{turco['id']}/confirm", json={"instead": "truco"},
                        headers=AUTH)
    assert wrong.status_code == 422 and state(client)["log"] == ["hand"]
    snap = client.post(f"/api/heard/{mazo['id']}/confirm", json={"instead": "me voy al mazo"},
                       headers=AUTH).json()
    assert snap["log"][-1] == "A1: me voy al mazo"
    taken = next(h for h in snap["heard"] if h["id"] == mazo["id"])
    assert taken["status"] == "accepted" and "instead" not in taken
    assert taken["reason"] == "confirmado a mano: era «me voy al mazo»"
    # a number the rules refuse during a retruco may have been the end of a «vale cuatro»
    for line in ("hand", "A1: truco", "B1: retruco"):
        assert post(client, line).status_code == 200, line
    cuatro = say("cuatro", 4.0)
    assert cuatro["status"] == "rejected" and cuatro["instead"] == ["vale cuatro"]
    snap = client.post(f"/api/heard/{cuatro['id']}/confirm", json={"instead": "vale cuatro"},
                       headers=AUTH).json()
    assert snap["log"][-1] == "A1: vale cuatro"


def test_a_call_applied_early_is_taken_back_when_the_phrase_does_not_confirm_it(
        app: FastAPI, client: TestClient, post: Post) -> None:
    service = app.state.service
    post(client, "hand")
    first = service.record_heard(Heard("envido", "accepted", line="A1: envido", team="A",
                                       extra={"confidence": 0.8}))
    assert state(client)["log"][-1] == "A1: envido"
    assert not service.revise_heard(first["id"], 0.7, 0.6)  # confirmed by the whole phrase
    assert state(client)["heard"][0]["extra"]["confidence"] == 0.7
    assert service.revise_heard(first["id"], 0.3, 0.6)
    snap = state(client)
    assert snap["log"] == ["hand"] and snap["heard"][0]["status"] == "unsure"
    assert "dudoso" in snap["heard"][0]["reason"] and snap["heard"][0]["extra"]["confidence"] == 0.3
    assert not service.revise_heard(first["id"], 0.2, 0.6)  # only an applied call
    confirmed = client.post(f"/api/heard/{first['id']}/confirm", headers=AUTH).json()
    assert confirmed["log"][-1] == "A1: envido"
    # Once something else was applied after it, it stays (the tablet can still undo it).
    quiero = service.record_heard(Heard("quiero", "accepted", line="B1: quiero", team="B"))
    post(client, "points A +1")
    assert not service.revise_heard(quiero["id"], 0.1, 0.6)
    assert state(client)["log"][-2:] == ["B1: quiero", "points A +1"]


def test_each_call_of_a_phrase_is_judged_on_its_own_words(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.asr.base import Word
    from referee.utterance import Utterance
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    post(client, "A1: envido")
    # a phrase is not held to its weaker word: "real" 0.5 and "envido" 0.9 make 0.7
    referee(Utterance("real envido", (Word("real", 0.5, 0.2, 0.5), Word("envido", 0.9, 0.5, 0.9)),
                      0.2, 0.9, 1.0, 0.5, "B", False))
    snap = state(client)
    assert snap["log"][-1] == "B1: real envido" and snap["heard"][0]["extra"]["confidence"] == 0.7
    post(client, "A1: no quiero")
    post(client, "A1: truco")
    # a sure "quiero" is applied even if the "retruco" said with it is doubtful
    referee(Utterance("quiero retruco", (Word("quiero", 0.9, 2.2, 2.5),
                                         Word("retruco", 0.3, 2.5, 2.9)), 2.2, 2.9, 3.0, 0.3, "B",
                      False))
    snap = state(client)
    assert snap["log"][-1] == "B1: quiero"
    assert [(h["status"], h["line"], h["extra"]["confidence"]) for h in snap["heard"][:2]] == [
        ("unsure", "B1: retruco", 0.3), ("accepted", "B1: quiero", 0.9)]


def test_rate_limit_per_client(make_app: Callable[..., FastAPI], post: Post) -> None:
    app = make_app(rate_limit=RateLimit(per_second=0.01, burst=3))
    with TestClient(app) as client:
        codes = [post(client, f"points A +{n}").status_code for n in (1, 2, 3)]
        before = state(client)
        limited = post(client, "points A +4")
        assert codes == [200, 200, 200]
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate-limited"
        assert state(client) == before


def test_pin_is_shown_to_the_host_only_and_can_change(app: FastAPI) -> None:
    with TestClient(app, client=("127.0.0.1", 5000)) as host:
        assert host.get("/api/pin").json() == {"pin": PIN}
        assert host.put("/api/pin", json={"pin": "12"}, headers=AUTH).status_code == 422
        assert host.put("/api/pin", json={"pin": "13579"}, headers=AUTH).status_code == 200
        assert host.post("/api/pin/check", headers={"X-Table-PIN": "13579"}).status_code == 200
        assert host.post("/api/pin/check", headers=AUTH).status_code == 403
    with TestClient(app, client=("192.168.1.20", 5000)) as guest:
        assert guest.get("/api/pin").status_code == 403
        assert guest.get("/api/state").status_code == 200


def test_the_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Anotador de truco" in page.text
    for asset in ("style.css", "tally.js", "words.js", "hand.js", "heard.js", "history.js", "render.js",
                  "calibration.js", "chime.js", "awake.js", "sources.js", "page.js", "connection.js",
                  "controls.js", "games.js", "settings.js", "app.js"):
        assert client.get(f"/static/{asset}").status_code == 200
    assert "http://" not in page.text and "https://" not in page.text


def test_settings_given_to_create_app_rule_the_first_game(
        make_app: Callable[..., FastAPI]) -> None:
    app = make_app(Settings(players=4, points=15))
    with TestClient(app) as client:
        snap = state(client)
        assert snap["seats"] == ["A1", "B1", "A2", "B2"] and snap["target"] == 15


def test_a_raw_listener_clip_is_kept_and_served_as_flac(app: FastAPI, client: TestClient) -> None:
    """Lossless, and a half or less of a WAV's size for a voice over a room's noise."""
    import numpy as np

    from referee import clip_codec

    rng = np.random.default_rng(5)
    t = np.arange(32_000) / 16_000  # 2 s: a voice's tone and a quiet room's noise, as heard
    sound = 3000 * np.sin(2 * np.pi * 220 * t) * (t > 0.5) + rng.normal(0, 30, len(t))
    samples = np.round(sound).astype("<i2").tobytes()  # 16-bit mono, as the listener keeps them
    item = app.state.service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco",
                                                clip=samples))
    response = client.get(f"/api/clips/{item['clip_id']}")
    assert response.headers["content-type"] == "audio/flac"
    assert response.headers["content-disposition"] == f'inline; filename="{item["clip_id"]}.flac"'
    assert clip_codec.decode(response.content) == (samples, 16_000)
    assert len(response.content) < len(samples) / 2
    wav = b"RIFF" + bytes(40)  # a WAV given is kept as it is
    given = app.state.service.record_heard(Heard("turco", "rejected", clip=wav, reason="no"))
    assert client.get(f"/api/clips/{given['clip_id']}").content == wav


def test_what_the_camera_saw_is_shown_with_its_picture(app: FastAPI, client: TestClient,
                                                       post: Post) -> None:
    for line in ("hand", "A1 plays 4c"):  # the camera submits its own line first
        assert post(client, line).status_code == 200
    picture = b"\xff\xd8\xff\xe0" + bytes(100)  # a JPEG's start
    item = app.state.service.record_seen("A1 jugó el 4 de copas", picture, "A1 plays 4c")
    [shown] = state(client)["heard"]
    assert shown == item and shown["status"] == "accepted"
    assert shown["extra"] == {"seen": True, "applied": ["A1 plays 4c"], "applied_at": 1}
    response = client.get(f"/api/clips/{item['clip_id']}")
    assert response.content == picture and response.headers["content-type"] == "image/jpeg"
    assert response.headers["content-disposition"].endswith('.jpg"')
    assert state(client)["log"] == ["hand", "A1 plays 4c"]  # nothing applied twice
    assert client.post("/api/undo", headers=AUTH).status_code == 200
    [shown] = state(client)["heard"]
    assert shown["status"] == "undone"  # not «anotado» once the table took the play back


def test_a_show_the_camera_leaves_to_the_table_is_shown_as_not_taken(
        app: FastAPI, client: TestClient, post: Post) -> None:
    for line in ("hand", "A1: envido", "B1: quiero", "A1: 28", "B1: son buenas"):
        assert post(client, line).status_code == 200
    picture = b"\xff\xd8\xff\xe0" + bytes(100)
    why = "no la veo: hay 4 carta(s) a la vista, se muestran dos o tres; que lo diga la mesa"
    item = app.state.service.record_seen("A1 muestra sus cartas", picture, doubt=why)
    [shown] = state(client)["heard"]
    assert shown == item and (shown["status"], shown["reason"]) == ("rejected", why)
    assert shown["extra"] == {"seen": True} and shown["line"] is None
    assert client.get(f"/api/clips/{item['clip_id']}").content == picture
    assert len(state(client)["log"]) == 5  # the game is left as it was


def test_a_heard_item_with_an_unknown_status_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid heard status 'maybe'"):
        Heard("truco", "maybe")  # type: ignore[arg-type]


class FailingStore(Store):
    """A store whose disk fills up when told to."""

    full = False

    def append(self, *args: Any, **kwargs: Any) -> None:
        if self.full:
            raise sqlite3.OperationalError("database or disk is full")
        super().append(*args, **kwargs)


def test_a_change_the_disk_refuses_is_not_applied(tmp_path: Path, post: Post) -> None:
    store = FailingStore(tmp_path / "db.sqlite3")
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        post(client, "hand")
        post(client, "A1: truco")
        before = state(client)
        store.full = True
        for response in (post(client, "B1: quiero"), client.post("/api/undo", headers=AUTH),
                         client.post("/api/flip", headers=AUTH)):
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "store-failed"
            assert the_table(state(client)) == the_table(before)
        assert state(client)["store"]["state"] == "trouble"  # and every page says so
        store.full = False
        assert post(client, "B1: quiero").json()["log"] == ["hand", "A1: truco", "B1: quiero"]
        assert state(client)["store"] == {"state": "ok", "message": ""}


def the_table(snap: dict[str, Any]) -> dict[str, Any]:
    """A snapshot but for its number and whether the store writes (a refusal shows both)."""
    return {key: value for key, value in snap.items() if key not in ("seq", "store")}


def test_the_service_interprets_a_transcript_without_applying_it(app: FastAPI,
                                                                 client: TestClient,
                                                                 post: Post) -> None:
    post(client, "hand")
    before = state(client)
    items = app.state.service.interpret("truco", "A")
    assert any(getattr(item, "accepted", False) for item in items)
    assert state(client) == before


def test_guessing_the_pin_is_slowed_down(client: TestClient, post: Post) -> None:
    before = state(client)
    codes = [post(client, "hand", pin=f"{n:04d}").status_code for n in range(5)]
    assert codes == [403] * 5
    locked = post(client, "hand")  # even the right PIN waits now
    assert locked.status_code == 429 and locked.json()["error"]["code"] == "pin-locked"
    assert state(client) == before


def test_a_call_heard_after_the_hand_ended_deals_the_next_hand(app: FastAPI, client: TestClient,
                                                                post: Post) -> None:
    for line in ("hand", "A1: truco", "B1: quiero", "round A", "round A"):
        post(client, line)
    service = app.state.service
    before = state(client)["log"]
    refused = service.record_heard(Heard("quiero", "accepted", line="A1: quiero"))
    assert refused["status"] == "rejected" and refused["reason"]
    assert state(client)["log"] == before  # nothing was dealt for a call that cannot stand
    heard = service.record_heard(Heard("truco", "accepted", line="B1: truco", team="B"))
    assert heard["status"] == "accepted"
    assert state(client)["log"] == [*before, "hand", "B1: truco"]


def test_a_flor_needs_a_surer_hearing_than_other_calls(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.asr.base import Word
    from referee.utterance import Utterance
    from referee.voice import VoiceReferee

    client.post("/api/games", json={"settings": {"flor": True}}, headers=AUTH)
    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")

    def say(words: str, conf: float, at: float, early: bool = False) -> Utterance:
        utt = Utterance(words, tuple(Word(w, conf, at, at + 0.3) for w in words.split()),
                        at, at + 0.3, at + 0.4, conf, "A", early)
        referee(utt)
        return utt

    # 0.8 applies a truco, but a flor (chatter's favourite, three points) waits for a tap
    say("flor", 0.8, 0.5)
    snap = state(client)
    assert snap["log"] == ["hand"]
    assert (snap["heard"][0]["status"], snap["heard"][0]["line"]) == ("unsure", "A1: flor")
    say("truco", 0.8, 1.0)
    assert state(client)["log"] == ["hand", "A1: truco"]
    client.post("/api/undo", headers=AUTH)
    say("flor", 0.95, 1.5)
    assert state(client)["log"] == ["hand", "A1: flor"]
    # handed over early, a flor the whole phrase heard at 0.8 is taken back
    client.post("/api/undo", headers=AUTH)
    early = say("flor", 0.7, 2.5, early=True)
    assert state(client)["log"] == ["hand", "A1: flor"]
    referee.revise([(early, Utterance("flor", (Word("flor", 0.8, 2.5, 2.8),), 2.5, 2.8, 3.0, 0.8,
                                      "A", False))])
    snap = state(client)
    assert snap["log"] == ["hand"] and snap["heard"][0]["status"] == "unsure"


def early(text: str, start: float, conf: float, team: str = "A") -> Any:
    """A call handed over early (from a partial result), or its revision by the whole phrase."""
    from referee.asr.base import Word
    from referee.utterance import Utterance

    return Utterance(text, (Word(text, conf, start, start + 0.4),), start, start + 0.4,
                     start + 0.6, conf, team, True)


def test_a_call_refused_because_of_an_early_call_taken_back_is_applied(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    # chatter heard early as «envido», then a real «truco», refused while the envido stands
    envido, truco = early("envido", 0.2, 0.8), early("truco", 0.8, 0.8)
    referee(envido)
    referee(truco)
    snap = state(client)
    assert snap["log"][-1] == "A1: envido" and snap["heard"][0]["status"] == "rejected"
    # the whole phrase: no envido there (taken back), the truco sure (applied now)
    referee.revise([(envido, early("envido", 0.2, 0.0))])
    assert state(client)["log"][-1] == "hand"
    referee.revise([(truco, early("truco", 0.8, 0.95))])
    snap = state(client)
    assert snap["log"][-1] == "A1: truco"
    row = snap["heard"][0]
    assert (row["status"], row["line"]) == ("accepted", "A1: truco")
    assert "retirarse" in row["reason"] and row["extra"]["confidence"] == 0.95


def test_a_refused_call_is_not_judged_again_after_a_call_said_later(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    # «quiero» with nothing to answer, then «truco»: the quiero said first does not answer it
    quiero, truco = early("quiero", 0.2, 0.8, "B"), early("truco", 0.8, 0.8, "A")
    referee(quiero)
    referee(truco)
    referee.revise([(quiero, early("quiero", 0.2, 0.95, "B"))])
    referee.revise([(truco, early("truco", 0.8, 0.95, "A"))])
    snap = state(client)
    assert snap["log"][-1] == "A1: truco"
    assert [h["status"] for h in snap["heard"][:2]] == ["accepted", "rejected"]


def test_the_scoreboard_takes_back_a_quiero_the_whole_phrase_heard_as_no_quiero(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.asr.base import Result, Word
    from referee.audio import AudioChunk
    from referee.listener import Listener
    from referee.voice import VoiceReferee

    class MissedNo:
        """Partial results hear «quiero»; the whole phrase hears «no quiero»."""

        name, low_accuracy, sample_rate = "missed-no", False, 16000

        def __init__(self) -> None:
            self.t = 0.0

        def feed(self, pcm: bytes) -> list[Result]:
            self.t += len(pcm) / 2 / 16000
            if 1.2 <= self.t < 1.6:
                return [Result("quiero", (Word("quiero", 0.8, 0.5, 0.9),), False, 0.5, 0.9,
                               self.t)]
            if abs(self.t - 2.0) < 0.05:
                words = (Word("no", 0.9, 0.2, 0.46), Word("quiero", 0.9, 0.48, 0.92))
                return [Result("no quiero", words, True, 0.2, 0.92, self.t)]
            return []

        def flush(self) -> list[Result]:
            return []

        def reset(self) -> None:
            self.t = 0.0

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    post(client, "A1: truco")
    listener = Listener(MissedNo(), referee, on_revisions=referee.revise)
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    snap = state(client)
    assert snap["log"][-1] == "B1: no quiero"
    assert [(h["status"], h["line"]) for h in snap["heard"][:2]] == [
        ("accepted", "B1: no quiero"), ("unsure", "B1: quiero")]


def test_the_voice_referee_takes_back_every_early_call_of_a_phrase_it_is_not_sure_of(
        app: FastAPI, client: TestClient, post: Post) -> None:
    from referee.asr.scripted import ScriptedRecognizer
    from referee.audio import AudioChunk
    from referee.listener import Listener
    from referee.voice import VoiceReferee

    referee = VoiceReferee(app.state.service, lambda _: None)
    post(client, "hand")
    post(client, "A1: truco")
    listener = Listener(ScriptedRecognizer([(2.0, 2.8, "quiero retruco", 0.5)]), referee,
                        channel_teams=(), on_revisions=referee.revise)
    for i in range(60):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    snap = state(client)
    assert snap["log"] == ["hand", "A1: truco"]
    assert {(h["status"], h["line"]) for h in snap["heard"][:2]} == {
        ("unsure", "B1: quiero"), ("unsure", "B1: retruco")}


@contextmanager
def scoreboard_at(path: Path, settings: Settings | None = None) -> Iterator[TestClient]:
    """A scoreboard on the store at ``path``; opened again, it is the same one after a restart."""
    store = Store(path)
    try:
        with TestClient(create_app(settings or Settings(), store, pin=PIN)) as client:
            yield client
    finally:
        store.close()


def stored_rows(client: TestClient) -> list[tuple[str, str]]:
    record = client.get(f"/api/games/{state(client)['game_id']}/log").json()["log"]
    return [(e["action"], e["line"]) for e in record]


def test_undo_takes_back_a_line_of_two_calls_whole_after_a_restart_too(tmp_path: Path,
                                                                      post: Post) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    with scoreboard_at(path) as client:
        for line in ("hand", "A1: truco", "B1: quiero retruco"):
            assert post(client, line).status_code == 200
        undone = client.post("/api/undo", headers=AUTH).json()
        assert undone["log"] == ["hand", "A1: truco"]
        assert undone["hand"]["truco"]["pending"]["call"] == "truco"  # the truco not accepted
        assert stored_rows(client)[-2:] == [("undo", "B1: retruco"), ("undo", "B1: quiero")]
        post(client, "B1: quiero retruco")
        before = state(client)
    with scoreboard_at(path) as client:
        assert state(client)["log"] == before["log"]
        assert client.post("/api/undo", headers=AUTH).json()["log"] == ["hand", "A1: truco"]
    with scoreboard_at(path) as client:
        assert state(client)["log"] == ["hand", "A1: truco"]


def test_flip_and_swap_change_a_line_of_two_calls_whole(tmp_path: Path, post: Post) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    with scoreboard_at(path, Settings(flor=True)) as client:
        post(client, "hand")
        post(client, "A1: envido flor")
        flipped = client.post("/api/flip", headers=AUTH).json()
        assert flipped["log"] == ["hand", "B1: envido", "B1: flor"]
        assert stored_rows(client)[-4:] == [("undo", "A1: flor"), ("undo", "A1: envido"),
                                            ("apply", "B1: envido"), ("apply", "B1: flor")]
        assert client.post("/api/undo", headers=AUTH).json()["log"] == ["hand"]
        post(client, "A1: truco")
        post(client, "B1: flor quiero")
        swapped = client.post("/api/swap", headers=AUTH).json()
        assert swapped["log"][-2:] == ["B1: flor", "B1: no quiero"]
    with scoreboard_at(path) as client:
        assert client.post("/api/undo", headers=AUTH).json()["log"] == ["hand", "A1: truco"]


def test_the_swap_is_offered_only_when_the_rules_take_the_opposite_answer(
        make_app: Callable[..., FastAPI], post: Post) -> None:
    with TestClient(make_app(Settings(flor=True))) as client:
        post(client, "hand")
        post(client, "A1: flor")
        snap = post(client, "B1: con flor me achico").json()
        assert snap["swap_to"] is None
        refused = client.post("/api/swap", headers=AUTH)
        assert refused.status_code == 409 and state(client)["log"] == snap["log"]
        client.post("/api/undo", headers=AUTH)
        post(client, "B1: contraflor")
        assert post(client, "A1: con flor quiero").json()["swap_to"] == "con flor me achico"


def test_a_heard_call_taken_back_by_an_undo_is_shown_undone(tmp_path: Path, post: Post) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    with scoreboard_at(path) as client:
        service = cast(FastAPI, client.app).state.service
        post(client, "hand")
        truco = service.record_heard(Heard("truco", "accepted", line="A1: truco", team="A"))
        quiero = service.record_heard(Heard("kiero", "unsure", line="B1: quiero", team="B"))
        client.post(f"/api/heard/{quiero['id']}/confirm", headers=AUTH)
        post(client, "points A +1")
        client.post("/api/undo", headers=AUTH)  # a manual line: no heard call taken back
        assert [h["status"] for h in state(client)["heard"]] == ["accepted", "accepted"]
        heard = client.post("/api/undo", headers=AUTH).json()["heard"]
        assert [(h["id"], h["status"], h["reason"]) for h in heard] == [
            (quiero["id"], "undone", "deshecho a mano"), (truco["id"], "accepted", None)]
        again = client.post(f"/api/heard/{quiero['id']}/confirm", headers=AUTH)
        assert again.status_code == 409 and state(client)["log"] == ["hand", "A1: truco"]
        before = state(client)["heard"]
    with scoreboard_at(path) as client:
        assert state(client)["heard"] == before
        heard = client.post("/api/undo", headers=AUTH).json()["heard"]
        assert [h["status"] for h in heard] == ["undone", "undone"]


def test_a_store_made_before_lines_were_kept_whole_opens_and_undoes(tmp_path: Path) -> None:
    from web_scoreboard.store import SCHEMA
    path = tmp_path / "scoreboard.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(SCHEMA.replace(",\n    joined INTEGER NOT NULL DEFAULT 0", ""))
    old.execute("INSERT INTO games (created_at, updated_at, settings, names) VALUES (0, 0, ?, ?)",
                (json.dumps(Settings().to_dict()), json.dumps({"A": "Nosotros", "B": "Ellos"})))
    old.executemany("INSERT INTO events (game_id, action, line, origin, at) VALUES (1, ?, ?, ?, 0)",
                    [("apply", "hand", "page"), ("apply", "A1: truco", "page")])
    old.execute("INSERT INTO meta (key, value) VALUES ('current_game', '1')")
    old.commit()
    old.close()
    with scoreboard_at(path) as client:
        assert state(client)["log"] == ["hand", "A1: truco"]
        assert client.post("/api/undo", headers=AUTH).json()["log"] == ["hand"]


@pytest.mark.parametrize("line", ["round A", "points A +1"])
def test_two_tablets_tapping_the_same_result_at_once_score_it_once(
        client: TestClient, post: Callable[..., httpx.Response], line: str) -> None:
    post(client, "hand")
    seq = client.get("/api/state", headers=AUTH).json()["seq"]
    first = client.post(f"/api/events?seq={seq}", json={"line": line}, headers=AUTH)
    second = client.post(f"/api/events?seq={seq}", json={"line": line}, headers=AUTH)
    assert first.status_code == 200
    assert second.status_code == 409 and second.json()["error"]["code"] == "stale"
    assert client.get("/api/state", headers=AUTH).json()["log"] == ["hand", line]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"action": "event", "line": line, "pin": PIN, "seq": seq})
        assert ws.receive_json()["error"]["code"] == "stale"


def test_a_page_without_the_pin_can_ask_whether_the_server_is_there(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        seq = ws.receive_json()["seq"]
        ws.send_json({"action": "ping", "id": 4})
        assert ws.receive_json() == {"ok": True, "id": 4, "seq": seq}

"""An undo tapped on the tablet between the parts of a phrase (after an early call, before the
whole phrase's verdict on it): what the table took back by hand stays taken back."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from referee.voice import VoiceReferee
from tests.web.test_heard_phrases import part
from web_scoreboard import TableService


@pytest.fixture
def service(app: FastAPI) -> TableService:
    service: TableService = app.state.service
    service.start()
    return service


def test_a_line_taken_back_by_hand_is_not_put_back_by_a_call_its_phrase_refused(
        service: TableService) -> None:
    for line in ("hand", "A1: truco"):
        service.submit_line(line)
    referee = VoiceReferee(service, lambda _: None)
    truco = part("truco", 0.0, 0.8)
    referee(truco)  # refused: the truco is called already
    assert service.snapshot()["heard"][0]["status"] == "rejected"
    service.undo()  # the table says there was no truco
    referee.revise([(truco, part("truco", 0.0, 0.95))])
    # before: judged again and applied («anotado al retirarse lo que lo impedía»), the A1: truco
    # the table had just taken back put back
    assert list(service.table.lines) == ["hand"]
    assert service.snapshot()["heard"][0]["status"] == "rejected"


def test_a_call_its_phrase_refused_is_judged_again_once_a_call_of_the_phrase_is_undone(
        service: TableService) -> None:
    service.submit_line("hand")
    referee = VoiceReferee(service, lambda _: None)
    envido, truco = part("envido", 0.0, 0.8), part("truco", 1.0, 0.8)
    referee(envido)
    referee(truco)  # refused: B has to answer the envido
    assert list(service.table.lines) == ["hand", "A1: envido"]
    service.undo()  # the table says there was no envido
    referee.revise([(envido, part("envido", 0.0, 0.95)), (truco, part("truco", 1.0, 0.95))])
    assert list(service.table.lines) == ["hand", "A1: truco"]

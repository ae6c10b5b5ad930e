"""Heard phrases at the scoreboard: doubtful calls and what waits behind them, early calls taken
back (with the hand they dealt) and refused calls judged again."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from engine import Settings
from referee.asr.base import Word
from referee.phrases import confidence_needed, parse
from referee.utterance import Utterance
from referee.voice import VoiceReferee
from web_scoreboard import ActionError, TableService


@pytest.fixture
def service(app: FastAPI) -> TableService:
    service: TableService = app.state.service
    service.start()
    return service


def hear(service: TableService, text: str, *confidences: float) -> list[dict[str, Any]]:
    """Hear a phrase at the end of it, with each item's confidence given in order (1.0 after)."""
    spans = {(h.start, h.end): c for h, c in zip(parse(text), confidences, strict=False)}
    return service.hear(text, confidence=lambda start, end: spans.get((start, end), 1.0),
                        needed=lambda call: confidence_needed(call, 0.6))


def said(text: str, *confidences: float, early: bool = False) -> Utterance:
    """An utterance of one word per call, each word with its confidence."""
    words = tuple(Word(w, c, 0.5 * k, 0.5 * k + 0.4)
                  for k, (w, c) in enumerate(zip(text.split(), confidences, strict=True)))
    return Utterance(text, words, 0.0, words[-1].end, words[-1].end + 0.1, min(confidences),
                     None, early)


def lines(service: TableService) -> list[str]:
    return list(service.table.lines)


@pytest.mark.parametrize("text", ["envido real envido", "envido envido"])
def test_calls_after_a_doubtful_one_wait_for_it_and_confirmed_in_order_score_the_phrase(
        service: TableService, text: str) -> None:
    service.submit_line("hand")
    first, second = hear(service, text, 0.5, 0.9)
    assert lines(service) == ["hand"]
    assert (first["status"], first["line"]) == ("unsure", "A1: envido")
    assert second["status"] == "unsure" and second["line"].startswith("B1: ")
    assert second["reason"] == "dudoso: depende de «envido», dudoso"
    with pytest.raises(ActionError, match="primero confirmá o descartá «envido»"):
        service.confirm_heard(second["id"])
    service.confirm_heard(first["id"])
    service.confirm_heard(second["id"])
    hear(service, "no quiero", 0.9)
    assert lines(service)[1:] == ["A1: envido", second["line"], "A1: no quiero"]
    assert service.snapshot()["score"] == {"A": 0, "B": 2}


def test_a_truco_said_after_a_number_confirmed_by_tap_waits_for_the_tantos_as_heard_sure(
        service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero"):
        service.submit_line(line)
    number, truco = hear(service, "veintiocho truco", 0.5, 0.5)
    assert truco["reason"] == "dudoso: depende de «veintiocho», dudoso"
    service.confirm_heard(number["id"])
    # heard sure, «veintiocho truco» declares and refuses the truco: it does not set the envido
    # aside, which only the first call of a phrase can do
    with pytest.raises(ActionError, match="faltan los tantos"):
        service.confirm_heard(truco["id"])
    assert lines(service)[3:] == ["A1: 28"]


def test_a_call_waiting_for_a_dismissed_one_is_read_on_its_own(service: TableService) -> None:
    service.submit_line("hand")
    first, second = hear(service, "envido envido", 0.5, 0.9)
    service.dismiss_heard(first["id"])
    service.confirm_heard(second["id"])
    assert lines(service) == ["hand", "A1: envido"]
    assert service.snapshot()["heard"][0]["line"] == "A1: envido"


@pytest.mark.parametrize("decide, reason", [
    ("dismiss_heard", "dudoso: «envido» se descartó, se lee solo; tocá para confirmar"),
    ("confirm_heard", "dudoso: «envido» ya se confirmó; tocá para confirmar"),
])
def test_calls_that_waited_for_a_doubtful_one_say_it_was_decided(
        service: TableService, decide: str, reason: str) -> None:
    service.submit_line("hand")
    first, second, third = hear(service, "envido real envido falta envido", 0.5, 0.9, 0.9)
    getattr(service, decide)(first["id"])
    shown = {h["id"]: h for h in service.snapshot()["heard"]}
    assert (shown[second["id"]]["status"], shown[second["id"]]["reason"]) == ("unsure", reason)
    assert service.store.heard_item(second["id"]).reason == reason  # also after a restart
    # the next one still waits for the «real envido», still doubtful
    assert shown[third["id"]]["reason"] == "dudoso: depende de «real envido», dudoso"
    service.confirm_heard(second["id"])
    assert lines(service)[-1].endswith(": real envido")


def test_a_number_heard_while_one_before_it_is_doubtful_waits_and_takes_the_next_seat(
        service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero"):
        service.submit_line(line)
    [treinta] = hear(service, "treinta", 0.5)
    [veintiocho] = hear(service, "veintiocho", 0.9)
    assert lines(service)[-1] == "B1: quiero"
    assert (veintiocho["status"], veintiocho["line"]) == ("unsure", "B1: 28")
    assert veintiocho["reason"] == "dudoso: depende de «treinta», dudoso"
    service.confirm_heard(treinta["id"])
    service.confirm_heard(veintiocho["id"])
    assert lines(service)[-2:] == ["A1: 30", "B1: 28"]
    assert service.snapshot()["score"] == {"A": 2, "B": 0}


def test_an_early_call_taken_back_takes_back_the_hand_it_dealt(service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "A1: truco",
                 "B1: no quiero"):
        service.submit_line(line)
    before = lines(service)
    referee = VoiceReferee(service, lambda _: None)
    early = said("truco", 0.8, early=True)
    referee(early)
    assert lines(service) == [*before, "hand", "B1: truco"]
    referee.revise([(early, said("truco", 0.2))])
    assert lines(service) == before
    service.submit_line("A1 shows 7o 6o")  # the hand it was said after can still be closed


@pytest.mark.parametrize("parts", [False, True])
@pytest.mark.parametrize("decide, then", [
    ("dismiss_heard", ["hand", "A1: truco"]),
    # the truco said after A1's envido is refused: it waits for B's answer
    ("confirm_heard", ["hand", "A1: envido"]),
])
def test_a_call_refused_for_an_early_call_of_its_phrase_taken_back_waits_for_it(
        service: TableService, parts: bool, decide: str, then: list[str]) -> None:
    service.submit_line("hand")
    referee = VoiceReferee(service, lambda _: None)
    if parts:  # «envido», then «truco», in two early utterances of the phrase
        early = [part("envido", 0.0, 0.8), part("truco", 1.0, 0.8)]
        final = [part("envido", 0.0, 0.2), part("truco", 1.0, 0.95)]
    else:
        early, final = [said("envido truco", 0.8, 0.8, early=True)], [
            said("envido truco", 0.2, 0.95)]
    for utt in early:
        referee(utt)
    assert lines(service) == ["hand", "A1: envido"]  # the truco refused while the envido stands
    referee.revise(list(zip(early, final)))
    # before: the truco was judged again and applied, and the envido, if it was said, could
    # then only be confirmed after it
    assert lines(service) == ["hand"]
    truco, envido = service.snapshot()["heard"][:2]
    assert (envido["status"], envido["line"]) == ("unsure", "A1: envido")
    assert (truco["status"], truco["reason"]) == ("unsure", "dudoso: depende de «envido», dudoso")
    getattr(service, decide)(envido["id"])
    if decide == "confirm_heard":
        with pytest.raises(ActionError, match="tiene que contestar el envido"):
            service.confirm_heard(truco["id"])
    else:
        service.confirm_heard(truco["id"])
    assert lines(service) == then


def part(text: str, start: float, conf: float, early: bool = True) -> Utterance:
    """One utterance of phrase 1, one word per call, 0.5 s a word from ``start``."""
    words = tuple(Word(w, conf, start + 0.5 * k, start + 0.5 * k + 0.4)
                  for k, w in enumerate(text.split()))
    return Utterance(text, words, start, words[-1].end, words[-1].end + 0.1, conf, None, early,
                     phrase=1)


def test_a_call_of_a_later_early_utterance_waits_for_a_doubtful_one_before_it(
        service: TableService) -> None:
    service.submit_line("hand")
    referee = VoiceReferee(service, lambda _: None)
    envido, raised = part("envido", 0.0, 0.8), part("real envido", 1.0, 0.8)
    referee(envido)
    referee(raised)
    assert lines(service) == ["hand", "A1: envido", "B1: real envido"]
    referee.revise([(envido, part("envido", 0.0, 0.3)), (raised, part("real envido", 1.0, 0.9))])
    # before: the envido could not be taken back once the real envido was applied after it
    assert lines(service) == ["hand"]
    second, first = service.snapshot()["heard"][:2]
    assert (first["status"], first["line"]) == ("unsure", "A1: envido")
    assert (second["status"], second["reason"]) == ("unsure", "dudoso: depende de «envido», dudoso")
    with pytest.raises(ActionError, match="primero confirmá o descartá «envido»"):
        service.confirm_heard(second["id"])
    service.confirm_heard(first["id"])
    service.confirm_heard(second["id"])
    assert lines(service) == ["hand", "A1: envido", "B1: real envido"]


def test_what_the_end_of_the_phrase_hands_over_waits_for_an_early_call_taken_back(
        make_app: Any) -> None:
    service: TableService = make_app(Settings(flor=True)).state.service
    service.start()
    service.submit_line("hand")
    referee = VoiceReferee(service, lambda _: None)
    envido = part("envido", 0.0, 0.8)
    referee(envido)
    referee.revise([(envido, part("envido", 0.0, 0.3))])
    referee(part("flor", 1.0, 0.95, early=False))  # a flor never goes early
    # before: A1: flor applied, read without the envido; after A1's envido it is B's
    assert lines(service) == ["hand"]
    flor = service.snapshot()["heard"][0]
    assert (flor["status"], flor["reason"]) == ("unsure", "dudoso: depende de «envido», dudoso")


def test_a_call_the_doubtful_one_before_it_cannot_change_is_applied(
        service: TableService) -> None:
    for line in ("hand", "A1: truco", "B1: retruco"):
        service.submit_line(line)
    quiero, raised = hear(service, "quiero vale cuatro", 0.5, 0.9)
    # before: the vale cuatro waited for the «quiero»; it is A1's with it or without it
    assert (quiero["status"], raised["status"]) == ("unsure", "accepted")
    assert lines(service)[-1] == "A1: vale cuatro"


def test_an_early_call_taken_back_leaves_applied_the_later_ones_it_cannot_change(
        service: TableService) -> None:
    for line in ("hand", "A1: truco", "B1: retruco"):
        service.submit_line(line)
    referee = VoiceReferee(service, lambda _: None)
    quiero, raised = part("quiero", 0.0, 0.8), part("vale cuatro", 1.0, 0.8)
    referee(quiero)
    referee(raised)
    assert lines(service)[-2:] == ["A1: quiero", "A1: vale cuatro"]
    referee.revise([(quiero, part("quiero", 0.0, 0.3)), (raised, part("vale cuatro", 1.0, 0.9))])
    # before: both were taken back, the vale cuatro waiting for the «quiero»
    assert lines(service)[-2:] == ["B1: retruco", "A1: vale cuatro"]
    second, first = service.snapshot()["heard"][:2]
    assert (first["status"], first["line"]) == ("unsure", "A1: quiero")
    assert (second["status"], second["line"]) == ("accepted", "A1: vale cuatro")
    service.submit_line("B1: no quiero")
    assert service.snapshot()["score"] == {"A": 3, "B": 0}


@pytest.mark.parametrize("text, before", [
    ("quiero vale cuatro", ("hand", "A1: truco", "B1: retruco")),
    ("quiero retruco", ("hand", "A1: truco")),
])
def test_a_doubtful_quiero_the_call_after_it_leaves_behind_says_why_it_cannot_be_confirmed(
        service: TableService, text: str, before: tuple[str, ...]) -> None:
    for line in before:
        service.submit_line(line)
    quiero, raised = hear(service, text, 0.5, 0.9)
    assert (quiero["status"], raised["status"]) == ("unsure", "accepted")
    raised_words = text.removeprefix("quiero ")
    # before: only the rules' «contesta B, no A», and the row still asked for a tap
    with pytest.raises(ActionError, match=f"ya no se puede confirmar: después se anotó "
                                          f"«{raised_words}»"):
        service.confirm_heard(quiero["id"])
    row = service.store.heard_item(quiero["id"])
    assert row.status == "unsure" and row.reason.startswith(
        f"dudoso: ya no se puede confirmar: después se anotó «{raised_words}» (")
    assert service.snapshot()["heard"][1]["reason"] == row.reason
    assert lines(service)[-1].endswith(raised_words)
    service.dismiss_heard(quiero["id"])


def test_a_truco_heard_over_numbers_not_heard_sets_the_envido_aside_and_the_tablet_settles_it(
        service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero", "A1: 27"):
        service.submit_line(line)
    [truco] = hear(service, "truco", 0.9)
    assert truco["status"] == "accepted"
    assert lines(service)[-2:] == ["envido aside", "A1: truco"]
    hear(service, "quiero", 0.9)
    service.submit_line("envido B")  # the «Envido» button
    assert service.snapshot()["score"] == {"A": 0, "B": 2}


def test_in_pica_pica_a_truco_heard_sets_aside_its_duel_s_envido_and_its_button_settles_it(
        service: TableService) -> None:
    for line in ("set players 6", "set pica_pica on", "points A +5", "hand", "A1: envido",
                 "B2: quiero", "B1: envido", "A3: quiero", "A2: envido", "B3: quiero"):
        service.submit_line(line)  # every duel awaits its numbers
    [truco] = service.hear("truco", "B")  # B's microphone: B1, in the duel B1–A3
    assert truco["status"] == "accepted"
    assert lines(service)[-2:] == ["envido aside B1", "B1: truco"]
    duels = service.snapshot()["duels"]
    assert [d["envido"]["status"] for d in duels] == ["accepted", "aside", "accepted"]
    service.submit_line("envido A B1")  # the button of the duel B1–A3
    assert service.snapshot()["score"] == {"A": 7, "B": 0}
    for line in ("A1: 30", "B2: son buenas"):  # the duel A1–B2 still takes its numbers
        service.submit_line(line)
    assert service.snapshot()["score"] == {"A": 9, "B": 0}


def test_an_early_truco_taken_back_takes_back_the_envido_it_set_aside(
        service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero", "A1: 27"):
        service.submit_line(line)
    before = lines(service)
    referee = VoiceReferee(service, lambda _: None)
    early = said("truco", 0.8, early=True)
    referee(early)
    assert lines(service) == [*before, "envido aside", "A1: truco"]
    referee.revise([(early, said("truco", 0.2))])
    assert lines(service) == before
    service.submit_line("B1: 31")  # the numbers are awaited again
    assert service.snapshot()["score"] == {"A": 0, "B": 2}


def shown(service: TableService, heard_id: int) -> tuple[str, str | None, bool]:
    """A heard item as the strip shows it and as the store keeps it: (status, line, changed)."""
    item = next(h for h in service.snapshot()["heard"] if h["id"] == heard_id)
    stored = service.store.heard_item(heard_id)
    assert stored is not None and (stored.status, stored.line) == (item["status"], item["line"])
    return item["status"], item["line"], item["extra"].get("changed")


def test_a_heard_call_given_to_another_seat_or_swapped_by_hand_shows_as_it_stands(
        service: TableService) -> None:
    service.submit_line("hand")
    (truco,) = hear(service, "truco")
    assert shown(service, truco["id"]) == ("accepted", "A1: truco", None)
    service.flip_last()
    assert shown(service, truco["id"]) == ("accepted", "B1: truco", "flip")
    (answer,) = hear(service, "quiero")
    service.swap_answer()
    assert lines(service)[-1] == "A1: no quiero"
    assert shown(service, answer["id"]) == ("accepted", "A1: no quiero", "swap")
    assert shown(service, truco["id"]) == ("accepted", "B1: truco", "flip")  # not the last line
    service.undo()
    assert shown(service, answer["id"])[0] == "undone"


def test_a_heard_flor_given_to_a_partner_shows_the_partner(service: TableService) -> None:
    service.new_game({"players": 4, "flor": True})
    service.submit_line("hand")
    (flor,) = hear(service, "flor", 0.95)
    assert shown(service, flor["id"]) == ("accepted", "A1: flor", None)
    service.give_last_to("A2")
    assert shown(service, flor["id"]) == ("accepted", "A2: flor", "seat")


def test_a_seat_the_referee_guessed_is_offered_to_fix_until_a_tap_fixes_it(
        service: TableService) -> None:
    service.new_game({"players": 6, "pica_pica": True})
    service.submit_line("points A +5")
    service.submit_line("hand")
    (truco,) = hear(service, "truco")  # either team, in any of three duels
    assert truco["extra"]["guess"] == ["team", "seat"]
    assert service.snapshot()["guess"] == ["team", "seat"]
    service.flip_last()
    assert lines(service)[-1] == "B2: truco"  # the rival of its duel
    assert service.snapshot()["guess"] == []  # the table said who it was
    (answer,) = hear(service, "quiero")  # only A1 has a truco to answer
    assert answer["line"] == "A1: quiero" and service.snapshot()["guess"] == []
    for line in ["B1: envido", "A3: quiero", "A2: envido", "B3: quiero"]:
        service.submit_line(line)
    (truco,) = service.hear("truco", "A")  # A3's or A2's, each in a duel awaiting its numbers
    assert (truco["line"], truco["extra"]["guess"]) == ("A2: truco", ["seat"])
    assert lines(service)[-2:] == ["envido aside A2", "A2: truco"]
    assert service.snapshot()["guess"] == ["seat"]
    service.give_last_to("A3")
    assert lines(service)[-3:] == ["B3: quiero", "envido aside A3", "A3: truco"]
    assert service.snapshot()["guess"] == []
    service.submit_line("points A +1")
    assert service.snapshot()["guess"] == []  # the last line is no heard call


def test_a_heard_call_moved_into_a_duel_awaiting_its_numbers_shows_where_it_went(
        service: TableService) -> None:
    service.new_game({"players": 6, "pica_pica": True})
    for line in ["points A +5", "hand", "A1: envido", "B2: quiero", "B1: envido", "A3: quiero"]:
        service.submit_line(line)
    (truco,) = service.hear("truco", "B")  # the free duel A2–B3 takes it; B1–A3's could have
    assert (truco["line"], truco["extra"]["guess"]) == ("B3: truco", ["seat"])
    service.give_last_to("B1")
    assert lines(service)[-2:] == ["envido aside B1", "B1: truco"]
    row = next(h for h in service.snapshot()["heard"] if h["id"] == truco["id"])
    assert row["line"] == "B1: truco" and row["extra"]["dealt"] == ["envido aside B1"]
    service.give_last_to("B3")  # back to the free duel: the set-aside goes with it
    assert lines(service)[-2:] == ["A3: quiero", "B3: truco"]
    assert shown(service, truco["id"]) == ("accepted", "B3: truco", "seat")
    service.undo()
    assert shown(service, truco["id"])[0] == "undone" and lines(service)[-1] == "A3: quiero"


def test_the_recognizer_is_told_what_the_table_expects_now(service: TableService) -> None:
    """``serve`` gives its recognizer ``service.expected``: what the game takes at that moment."""
    assert {"truco", "envido", "me voy al mazo"} <= service.expected()
    assert "quiero" not in service.expected()
    hear(service, "truco")
    assert {"quiero", "no quiero", "retruco", "envido"} <= service.expected()
    assert "truco" not in service.expected()

"""The phrase table: exact calls count anywhere in a sentence, look-alikes never do."""

from __future__ import annotations

import pytest

from engine import Call
from referee.phrases import (
    CALL_PHRASES,
    DECOYS,
    NUMBER_WORDS,
    confidence_needed,
    decoy_reason,
    grammar_phrases,
    longer_calls,
    normalize,
    parse,
    vocabulary,
)


def labels(text: str) -> list[str]:
    return [h.label for h in parse(text) if h.kind != "decoy"]


@pytest.mark.parametrize("text, expected", [
    ("truco", ["truco"]),
    ("retruco", ["retruco"]),
    ("vale cuatro", ["vale cuatro"]),
    ("quiero", ["quiero"]),
    ("no quiero", ["no quiero"]),
    ("envido", ["envido"]),
    ("real envido", ["real envido"]),
    ("falta envido", ["falta envido"]),
    ("envido envido", ["envido", "envido"]),
    ("flor", ["flor"]),
    ("contraflor", ["contraflor"]),
    ("contra flor al resto", ["contraflor al resto"]),
    ("con flor quiero", ["con flor quiero"]),
    ("con flor me achico", ["con flor me achico"]),
    ("son buenas", ["son buenas"]),
    ("me voy al mazo", ["me voy al mazo"]),
    ("quiero retruco", ["quiero", "retruco"]),
    ("quiero vale cuatro", ["quiero", "vale cuatro"]),
    ("¿tenés envido?", ["envido"]),
    ("¿Y si te canto TRUCO?", ["truco"]),
    ("no, no quiero, andá", ["no quiero"]),
    ("bueno, te digo truco", ["truco"]),
    ("y bueno, me voy al mazo", ["me voy al mazo"]),
    ("treinta y tres son mejores", ["puntos"]),
])
def test_calls_are_found_in_any_sentence(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize("text", [
    "turco", "bueno", "vale", "embudo", "tenés puntos", "¿tienes puntos vos?", "quieto", "cuero",
    "envidia", "retrato", "trucha", "floro", "mazo", "vale, vale", "vale la pena esperar",
    "qué turco este", "qué embudo de jugada", "bueno, bueno, tranquilo", "pasame el mate",
    "¿alguien quiere más café?", "la próxima la gano yo", "no sé, no sé",
])
def test_lookalikes_and_chatter_carry_no_call(text: str) -> None:
    assert labels(text) == []


@pytest.mark.parametrize("word, call", [("turco", Call.TRUCO), ("embudo", Call.ENVIDO),
                                        ("bueno", Call.QUIERO), ("vale", Call.VALE_CUATRO),
                                        ("querés", Call.QUIERO), ("quiere", Call.QUIERO)])
def test_a_lookalike_is_heard_as_itself_with_the_call_it_resembles(word: str, call: Call) -> None:
    [heard] = parse(word)
    assert heard.kind == "decoy" and heard.call is call
    assert decoy_reason(heard) == f"«{word}» no es {call.value}"


@pytest.mark.parametrize("text, call, words", [
    ("no te la quiero", Call.QUIERO, "no te la quiero"),
    ("no, no lo quiero", Call.QUIERO, "no lo quiero"),
    ("ni en pedo quiero", Call.QUIERO, "ni en pedo quiero"),
    ("yo no me voy al mazo", Call.MAZO, "no me voy al mazo"),
    ("nunca me voy al mazo, yo", Call.MAZO, "nunca me voy al mazo"),
])
def test_a_quiero_or_a_mazo_said_after_a_no_is_no_call(text: str, call: Call, words: str) -> None:
    # before: «no te la quiero» was read «quiero», the answer the player did not give
    [heard] = parse(text)
    assert (heard.kind, heard.call, heard.text) == ("decoy", call, words)
    assert decoy_reason(heard) == f"«{words}» no es {call.value}"


@pytest.mark.parametrize("text, expected", [
    ("no quiero", ["no quiero"]),
    ("no quiero, me voy al mazo", ["no quiero", "me voy al mazo"]),  # the «no» is the call's
    ("quiero no quiero", ["quiero", "no quiero"]),
    ("¿no tenés envido?", ["envido"]),  # a question still counts: only quiero and mazo undone
    ("no sé qué hacer, la verdad, quiero", ["quiero"]),  # the «no» too far back
    ("no, quiero retruco", ["no quiero", "retruco"]),
])
def test_a_no_undoes_only_the_call_it_is_said_right_before(text: str,
                                                           expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("vale 4", ["vale cuatro"]), ("quiero vale 4", ["quiero", "vale cuatro"]),
])
def test_vale_cuatro_written_with_a_digit_is_the_call(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize("text, points", [
    ("veinte y ocho", 28), ("veinte y uno", 21), ("veinte y nueve", 29),
])
def test_a_twenty_written_in_three_words_is_one_number(text: str, points: int) -> None:
    assert [(h.kind, h.points) for h in parse(text)] == [("points", points)]


@pytest.mark.parametrize("text, points", [
    ("cero", 0), ("siete", 7), ("veinte", 20), ("veintiuno", 21), ("veintidós", 22),
    ("veintisiete", 27), ("treinta", 30), ("treinta y tres", 33), ("tengo veintiocho", 28),
    ("treinta y ocho", 38), ("28", 28), ("veintiséis", 26),
])
def test_envido_numbers_in_words(text: str, points: int) -> None:
    [heard] = [h for h in parse(text) if h.kind == "points"]
    assert heard.points == points


@pytest.mark.parametrize("text, points", [("39", 39), ("40", 40), ("99", 99)])
def test_a_number_typed_past_any_envido_is_read_for_the_engine_to_refuse(text: str,
                                                                          points: int) -> None:
    assert [(h.kind, h.points) for h in parse(text)] == [("points", points)]


@pytest.mark.parametrize("text", ["-1", "−28", "tengo -3"])
def test_a_number_with_a_minus_is_no_number_of_tantos(text: str) -> None:
    assert [h for h in parse(text) if h.kind == "points"] == []


def test_every_number_from_0_to_38_has_words() -> None:
    assert sorted(set(NUMBER_WORDS.values())) == list(range(39))


def test_one_table_feeds_the_grammar() -> None:
    phrases = grammar_phrases()
    for phrase in list(CALL_PHRASES) + list(DECOYS) + list(NUMBER_WORDS):
        assert phrase in phrases
    words = set(vocabulary())
    assert {"truco", "envido", "veintidós", "turco", "embudo", "achico"} <= words
    for phrase in phrases:  # every phrase of the grammar parses to something
        assert parse(phrase), phrase


def test_normalize_drops_accents_case_and_punctuation() -> None:
    assert normalize("¡VEINTIDÓS, Tenés!") == "veintidos tenes"


@pytest.mark.parametrize("label,needed", [
    ("truco", 0.6), ("quiero", 0.6), ("envido", 0.6), ("puntos", 0.9), ("flor", 0.9),
    # the answers keep the table's threshold: an answer taken for its opposite is the worst mistake
    ("no quiero", 0.6), ("con flor quiero", 0.6), ("con flor me achico", 0.6),
    ("vale cuatro", 0.4), ("real envido", 0.4), ("falta envido", 0.4), ("son buenas", 0.4),
    ("me voy al mazo", 0.4), ("contraflor al resto", 0.4),
])
def test_each_call_needs_its_own_confidence(label: str, needed: float) -> None:
    assert confidence_needed(label, 0.6) == pytest.approx(needed)
    assert confidence_needed(label, 0.9) >= 0.6  # a stricter table is stricter for every call
    assert confidence_needed(label, 0.0) == 0.0  # an early call: the whole phrase decides later


@pytest.mark.parametrize("words, longer", [
    ("envido", ("real envido", "falta envido")),
    ("Quiero", ("no quiero", "con flor quiero")),
    ("flor", ("contraflor",)),  # «contra flor», by its name
    ("truco", ()),  # «retruco» is one word: no word of it was lost
    ("falta envido", ()),
    ("", ()),
])
def test_a_call_may_be_the_end_of_the_longer_calls_that_end_with_its_words(
        words: str, longer: tuple[str, ...]) -> None:
    assert longer_calls(words) == longer

"""The table: log lines and heard words reach the engine through one interpretation."""

from __future__ import annotations

import pytest

from engine import Settings
from referee.envido_aside import ASIDE_REASON
from referee.phrases import CALL_PHRASES, NUMBER_WORDS, parse
from referee.table import LineRejected, Table


def table_with(*lines: str, settings: Settings | None = None) -> Table:
    table = Table(settings)
    for line in lines:
        table.apply_line(line)
    return table


def test_spoken_lines_apply_calls_and_numbers() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero", "A1: tengo veintiocho", "B1: son buenas")
    assert table.snapshot()["score"] == {"A": 2, "B": 0}
    assert table.lines[-2:] == ["A1: 28", "B1: son buenas"]


def test_a_refused_line_changes_nothing() -> None:
    table = table_with("hand", "A1: truco")
    before = table.snapshot()
    for line in ["A1: retruco", "B1: turco", "B1: hola", "B1 plays 9x", "round C", "A3: truco"]:
        with pytest.raises(LineRejected):
            table.apply_line(line)
        assert table.snapshot() == before


def test_a_line_with_two_calls_is_whole_or_nothing() -> None:
    table = table_with("hand", "A1: truco", "B1: quiero retruco")
    assert table.snapshot()["hand"]["truco"]["pending"]["call"] == "retruco"
    table = table_with("hand")
    before = table.snapshot()
    with pytest.raises(LineRejected, match="nada cantado"):
        table.apply_line("B1: quiero retruco")
    assert table.snapshot() == before


def test_lines_rebuild_the_same_table() -> None:
    table = table_with("set flor on", "hand", "A1: flor", "B1: contraflor", "A1: con flor quiero",
                       "A1: 33", "B1: son buenas", "A1 plays 7e", "B1 plays 1e", "round A", "round A", "hand")
    again = table_with(*table.lines)
    assert again.snapshot() == table.snapshot()


def test_heard_answers_are_attributed_to_the_challenged_team() -> None:
    table = table_with("hand", "A1: truco")
    [item] = table.hear("quiero")
    assert item.accepted and item.seat == "B1" and not item.ambiguous


def test_heard_raise_goes_to_the_team_holding_the_quiero() -> None:
    table = table_with("hand", "A1: truco", "B1: quiero")
    [item] = table.hear("retruco")
    assert item.accepted and item.seat == "B1"


def test_heard_declarations_follow_the_fixed_order() -> None:
    table = table_with("set players 4", "hand", "A1: envido", "B2: quiero")
    seats = [table.hear(words)[0].seat for words in ("veintiséis", "veintiocho", "treinta")]
    assert seats == ["A1", "B1", "A2"]


def test_a_first_call_either_team_could_make_is_marked_ambiguous() -> None:
    table = table_with("hand")
    [item] = table.hear("¿tenés envido?")
    assert item.accepted and item.seat == "A1" and item.ambiguous


def test_a_team_hint_picks_the_team() -> None:
    table = table_with("hand")
    [item] = table.hear("truco", team="B")
    assert item.seat == "B1"


def test_lookalikes_are_heard_and_rejected_with_a_reason() -> None:
    table = table_with("hand", "A1: truco")
    items = table.hear("bueno, bueno")
    assert [i.reason for i in items] == ["«bueno» no es quiero"] * 2
    assert table.snapshot()["hand"]["truco"]["pending"] is not None


def test_a_call_heard_after_the_hand_ended_deals_the_next_hand() -> None:
    table = table_with("hand", "A1: truco", "B1: no quiero")
    [item] = table.hear("envido")
    assert item.accepted and table.snapshot()["hand"]["number"] == 2


def test_a_call_refused_after_the_hand_ended_deals_nothing() -> None:
    table = table_with("hand", "A1: truco", "B1: no quiero")
    [item] = table.hear("quiero")
    assert not item.accepted
    assert table.lines == ["hand", "A1: truco", "B1: no quiero"]
    assert table.swap_answer() == "B1: quiero"  # the misheard answer can still be turned


def test_impossible_envido_numbers_are_refused() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero")
    [item] = table.hear("diez")
    assert not item.accepted and "no es un envido posible" in item.reason


def test_a_number_past_any_envido_is_refused_whole() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero")
    [item] = table.hear("treinta y nueve")
    assert (item.heard.points, item.accepted) == (39, False)
    assert "no es un envido posible" in item.reason
    assert table.lines[-1] == "B1: quiero"


def test_interpret_does_not_change_the_game() -> None:
    table = table_with("hand", "A1: truco")
    before = table.snapshot()
    items = table.interpret("quiero retruco")
    assert [i.line for i in items] == ["B1: quiero", "B1: retruco"]
    assert table.snapshot() == before


def test_preview_reads_a_call_after_the_hand_ended_as_hear_would_and_changes_nothing() -> None:
    table = table_with("hand", "A1: truco", "B1: no quiero")
    before = table.snapshot()
    assert [i.line for i in table.interpret("truco")] == [None]  # no hand in play
    assert [i.line for i in table.preview("truco")] == ["B1: truco"]  # in the next hand
    assert table.snapshot() == before
    assert [i.line for i in table.hear("truco")] == ["B1: truco"]


def test_flip_last_gives_the_call_to_the_other_team() -> None:
    table = table_with("hand")
    table.hear("truco")                    # guessed A1 (mano)
    assert table.flip_last() == "B1: truco"
    assert table.snapshot()["hand"]["truco"]["pending"]["by"] == "B"


def test_the_last_answer_turns_into_its_opposite_said_by_the_same_seat() -> None:
    table = table_with("hand", "A1: truco", "B1: quiero")
    assert table.opposite_answer() == "no quiero"
    assert table.swap_answer() == "B1: no quiero"
    assert table.snapshot()["score"] == {"A": 1, "B": 0}  # the truco not wanted: one point
    assert table.swap_answer() == "B1: quiero"
    assert table.lines[-1] == "B1: quiero" and table.snapshot()["score"] == {"A": 0, "B": 0}


def test_only_an_answer_can_be_swapped() -> None:
    table = table_with("hand", "A1: truco")
    assert table.opposite_answer() is None
    with pytest.raises(LineRejected, match="no fue un «quiero»"):
        table.swap_answer()
    assert table.lines == ["hand", "A1: truco"]


def test_undo_takes_back_the_last_event() -> None:
    table = table_with("hand", "A1: truco", "B1: no quiero")
    assert table.undo() == "B1: no quiero"
    assert table.snapshot()["score"] == {"A": 0, "B": 0}


def test_undo_line_takes_back_a_line_of_two_calls_whole() -> None:
    table = table_with("hand", "A1: truco", "B1: quiero retruco")
    assert table.joined == [False, False, False, True]
    assert table.undo_line() == ["B1: quiero", "B1: retruco"]
    assert table.lines == ["hand", "A1: truco"]
    assert table.snapshot()["hand"]["truco"]["pending"]["call"] == "truco"  # not accepted
    assert table.undo_line() == ["A1: truco"]


def test_a_table_rebuilt_event_by_event_takes_its_lines_back_whole_once_regrouped() -> None:
    table = table_with("hand", "A1: truco", "B1: quiero retruco")
    again = table_with(*table.lines)
    again.regroup(table.joined)
    assert again.undo_line() == ["B1: quiero", "B1: retruco"]


def test_flip_gives_every_call_of_the_last_line_to_the_other_team() -> None:
    table = table_with("hand", "A1: envido flor", settings=Settings(flor=True))
    assert table.flip_last() == "B1: envido flor"
    assert table.lines == ["hand", "B1: envido", "B1: flor"]
    assert table.undo_line() == ["B1: envido", "B1: flor"]
    table = table_with("hand", "A1: envido", "B1: no quiero truco")
    with pytest.raises(LineRejected, match="«no quiero truco»"):
        table.flip_last()  # A cannot turn down its own envido: nothing moves
    assert table.lines == ["hand", "A1: envido", "B1: no quiero", "B1: truco"]
    assert table.undo_line() == ["B1: no quiero", "B1: truco"]


def test_an_answer_swapped_in_a_line_of_two_calls_stays_in_its_line() -> None:
    table = table_with("hand", "A1: truco", "B1: flor quiero", settings=Settings(flor=True))
    assert table.swap_answer() == "B1: no quiero"
    assert table.lines[-2:] == ["B1: flor", "B1: no quiero"]
    assert table.undo_line() == ["B1: flor", "B1: no quiero"]


def test_the_opposite_answer_is_offered_only_when_the_rules_take_it() -> None:
    table = table_with("hand", "A1: flor", "B1: con flor me achico", settings=Settings(flor=True))
    before = table.snapshot()
    assert table.opposite_answer() is None  # «con flor quiero» answers a contraflor, not a flor
    assert table.snapshot() == before
    table = table_with("hand", "A1: flor", "B1: contraflor", "A1: con flor quiero",
                       settings=Settings(flor=True))
    assert table.opposite_answer() == "con flor me achico"
    assert table.swap_answer() == "A1: con flor me achico"


def test_a_truco_heard_while_the_numbers_are_awaited_sets_the_envido_aside_first() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero", "A1: 27")
    items = table.hear("truco")
    assert [i.line for i in items] == ["A1: truco"]
    assert table.lines[-2:] == ["envido aside", "A1: truco"]
    assert table.snapshot()["hand"]["envido"]["status"] == "aside"
    table.apply_line("envido B")
    assert table.snapshot()["score"] == {"A": 0, "B": 2}


@pytest.mark.parametrize("text", ["treinta y uno", "son buenas", "quiero", "turco"])
def test_what_the_numbers_still_take_or_nothing_takes_does_not_set_the_envido_aside(
        text: str) -> None:
    table = table_with("hand", "A1: envido", "B1: quiero", "A1: 27")
    before = table.lines
    table.hear(text)
    assert "envido aside" not in table.lines
    assert table.lines[:len(before)] == before


@pytest.mark.parametrize(("text", "lines"), [
    ("truco treinta y tres", ["envido aside", "A1: truco"]),  # the number after it is refused
    ("treinta y tres truco", ["A1: 33"]),  # the truco after it is refused: tantos first
    ("quiero truco", ["envido aside", "A1: truco"]),  # «quiero» is refused either way
])
def test_the_first_call_taken_either_way_decides_whether_the_envido_is_set_aside(
        text: str, lines: list[str]) -> None:
    # as the phrase reads handed over in parts: its first calls go early, on their own
    table = table_with("hand", "A1: envido", "B1: quiero")
    before = len(table.lines)
    assert [i.line for i in table.preview(text) if i.accepted] == [
        line for line in lines if line != "envido aside"]
    table.hear(text)
    assert table.lines[before:] == lines


def test_preview_reads_a_truco_over_the_numbers_awaited_as_hear_would_and_changes_nothing() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero")
    before = table.snapshot()
    assert [(i.accepted, i.line) for i in table.preview("truco")] == [(True, "A1: truco")]
    assert table.snapshot() == before
    assert table.sets_aside("A1 plays 4c") and not table.sets_aside("A1: 30")
    assert not table.sets_aside("B1 plays 4c")  # not its turn, numbers or not


PICA_PICA = Settings(players=6, pica_pica=True)
# duels A1–B2, B1–A3 and A2–B3, each with its envido accepted and its numbers awaited
THREE_DUELS_DECLARING = ("points A +5", "hand", "A1: envido", "B2: quiero", "B1: envido",
                         "A3: quiero", "A2: envido", "B3: quiero")


def envidos(table: Table) -> list[str]:
    return [duel["envido"]["status"] for duel in table.snapshot()["duels"]]


def test_in_pica_pica_a_call_heard_sets_aside_the_envido_of_its_own_duel_only() -> None:
    table = table_with(*THREE_DUELS_DECLARING, settings=PICA_PICA)
    before = table.lines
    assert [i.line for i in table.preview("truco", "B")] == ["B1: truco"]
    assert table.lines == before
    items = table.hear("truco", "B")  # B's microphone: B1 first, in the duel B1–A3
    assert [(i.line, i.reason) for i in items] == [("B1: truco", ASIDE_REASON)]
    assert table.lines[-2:] == ["envido aside B1", "B1: truco"]
    assert envidos(table) == ["accepted", "aside", "accepted"]  # the others await their numbers
    table.apply_line("A1: 27")
    assert envidos(table)[0] == "accepted"


def test_in_pica_pica_a_quiero_sets_aside_the_envido_of_the_duel_whose_truco_it_answers() -> None:
    table = table_with("points A +5", "hand", "A1: truco", "B2: envido", "A1: quiero",
                       "B1: envido", "A3: quiero", settings=PICA_PICA)
    items = table.hear("quiero", "B")  # B1 has nothing to answer; B2 answers A1's truco
    assert [i.line for i in items] == ["B2: quiero"]
    assert table.lines[-2:] == ["envido aside B2", "B2: quiero"]
    assert envidos(table) == ["aside", "accepted", "none"]


def test_in_pica_pica_a_line_sets_aside_its_seat_s_duel_and_the_tablet_settles_that_one() -> None:
    table = table_with(*THREE_DUELS_DECLARING[:6], settings=PICA_PICA)
    assert table.sets_aside("A3: truco") == "envido aside A3"
    assert table.sets_aside("B2: truco") == "envido aside B2"
    assert not table.sets_aside("A3: 30")  # the numbers still take a number
    table.apply_line("envido aside A3")
    table.apply_line("A3: truco")
    assert envidos(table) == ["accepted", "aside", "none"]
    replayed = table_with(*table.lines, settings=PICA_PICA)
    assert replayed.snapshot() == table.snapshot()
    table.apply_line("envido B B1")  # the button of the duel B1–A3
    assert envidos(table) == ["accepted", "decided", "none"]
    assert table.snapshot()["score"] == {"A": 5, "B": 2}
    assert table.undo_line() == ["envido B B1"]
    assert table.undo_line() == ["A3: truco"] and table.undo_line() == ["envido aside A3"]
    assert envidos(table) == ["accepted", "accepted", "none"]


def test_an_envido_set_aside_is_written_in_the_log_and_replayed() -> None:
    table = table_with("hand", "A1: envido", "B1: quiero", "envido aparte", "A1: truco",
                       "B1: no quiero", "hand", "envido A")
    assert "envido aside" in table.lines
    assert table.snapshot()["score"] == {"A": 3, "B": 0}


def test_the_last_call_goes_to_a_partner_with_one_tap() -> None:
    table = table_with("hand", settings=Settings(players=4, flor=True))
    assert table.partners_of_last() == []  # the last line is no call
    assert [i.line for i in table.hear("flor")] == ["A1: flor"]  # the seat whose turn it is
    assert table.partners_of_last() == ["A2"]
    assert table.give_last_to("A2") == "A2: flor"
    assert table.lines == ["hand", "A2: flor"]
    assert table.snapshot()["hand"]["flor"]["sung"] == ["A2"]
    assert table.partners_of_last() == ["A1"]
    table.apply_line("A1: flor")  # then the first seat sings its own: both flores stand
    assert table.snapshot()["hand"]["flor"]["sung"] == ["A2", "A1"]


def test_a_partner_is_given_only_what_the_rules_let_that_seat_say() -> None:
    table = table_with("hand", "A1: truco", settings=Settings(players=4, flor=True))
    for seat, reason in [("B1", "no es compañero"), ("A1", "no es compañero"), ("A3", "no es compañero")]:
        with pytest.raises(LineRejected, match=reason):
            table.give_last_to(seat)
    table = table_with("hand", "A1: flor", "A2: flor", settings=Settings(players=4, flor=True))
    with pytest.raises(LineRejected, match="A1 no puede haber dicho «flor» ahora"):
        table.give_last_to("A1")  # A1 already sang it
    assert table.lines == ["hand", "A1: flor", "A2: flor"]
    assert table_with("hand", "A1: truco").partners_of_last() == []  # two players
    assert table_with("hand", "A1: envido", "B1: quiero", "A1: 27", settings=Settings(players=4)).partners_of_last() == []


def test_in_pica_pica_a_call_given_to_a_partner_moves_to_that_partners_duel() -> None:
    table = table_with("points A +5", "hand", "A1: truco", settings=Settings(players=6, pica_pica=True))
    assert table.partners_of_last() == ["A2", "A3"]
    assert table.give_last_to("A3") == "A3: truco"
    pending = {tuple(d["seats"]): d["truco"]["pending"] for d in table.snapshot()["duels"]}
    assert pending[("B1", "A3")]["seat"] == "A3" and pending[("A1", "B2")] is None


FOUR_WITH_FLOR = Settings(players=4, flor=True)


@pytest.mark.parametrize(("settings", "lines", "words", "team", "line", "guess"), [
    (None, ["hand"], "truco", None, "A1: truco", ("team",)),  # either team could
    (None, ["hand", "A1: truco"], "quiero", None, "B1: quiero", ()),  # only B answers
    (Settings(players=4), ["hand"], "truco", "A", "A1: truco", ()),  # A1's or A2's, the same bet
    (FOUR_WITH_FLOR, ["hand"], "flor", "A", "A1: flor", ("seat",)),  # a flor is the seat's own
    (FOUR_WITH_FLOR, ["hand"], "flor", None, "A1: flor", ("team", "seat")),
    (FOUR_WITH_FLOR, ["hand", "A1: flor", "A2: flor"], "contraflor", "B", "B1: contraflor",
     ("seat",)),
    (PICA_PICA, ["points A +5", "hand"], "truco", "A", "A1: truco", ("seat",)),  # three duels
    (PICA_PICA, ["points A +5", "hand", "A1: truco", "B1: truco", "A2: truco"], "quiero", "B",
     "B2: quiero", ("seat",)),  # three trucos to answer, one per duel
    (PICA_PICA, ["points A +5", "hand", "A1: truco"], "quiero", None, "B2: quiero", ()),  # one
    # every duel declaring: the numbers of whichever a truco belongs to were missed
    (PICA_PICA, list(THREE_DUELS_DECLARING), "truco", "B", "B1: truco", ("seat",)),
    (PICA_PICA, list(THREE_DUELS_DECLARING), "veintisiete", "A", "A1: 27", ("seat",)),
    # a free duel takes it, yet a declaring one could have, its numbers missed
    (PICA_PICA, list(THREE_DUELS_DECLARING[:6]), "truco", "B", "B3: truco", ("seat",)),
])
def test_a_seat_guessed_is_marked_with_what_of_it_is_in_doubt(
        settings: Settings | None, lines: list[str], words: str, team: str | None, line: str,
        guess: tuple[str, ...]) -> None:
    table = table_with(*lines, settings=settings)
    hint = "A" if team == "A" else "B" if team == "B" else None
    [read] = table.preview(words, hint)
    [heard] = table.hear(words, hint)
    assert (read.line, read.guess) == (heard.line, heard.guess) == (line, guess)
    assert heard.ambiguous == bool(guess)


def test_in_pica_pica_a_call_flipped_stays_in_its_duel() -> None:
    table = table_with("points A +5", "hand", "A1: truco", settings=PICA_PICA)
    assert table.flip_last() == "B2: truco"  # A1's rival in the duel A1–B2, not B1
    assert table.flip_last() == "A1: truco"


def test_in_pica_pica_a_call_given_to_a_duel_awaiting_its_numbers_sets_that_one_aside() -> None:
    table = table_with(*THREE_DUELS_DECLARING, settings=PICA_PICA)
    [item] = table.hear("truco", "B")
    assert item.guess == ("seat",) and table.lines[-2:] == ["envido aside B1", "B1: truco"]
    assert table.give_last_to("B3") == "B3: truco"
    assert table.lines[-3:] == ["B3: quiero", "envido aside B3", "B3: truco"]
    assert envidos(table) == ["accepted", "accepted", "aside"]  # B1–A3 awaits its numbers again
    assert table.flip_last() == "A2: truco"  # the same duel, set aside by its other seat
    assert table.lines[-3:] == ["B3: quiero", "envido aside A2", "A2: truco"]
    table = table_with(*THREE_DUELS_DECLARING[:6], settings=PICA_PICA)
    assert [i.line for i in table.hear("truco", "B")] == ["B3: truco"]  # the free duel's
    assert table.give_last_to("B1") == "B1: truco"
    assert table.lines[-2:] == ["envido aside B1", "B1: truco"]
    assert envidos(table) == ["accepted", "aside", "none"]
    assert table.give_last_to("B3") == "B3: truco"  # back: the set-aside goes with it
    assert table.lines[-2:] == ["A3: quiero", "B3: truco"]
    assert envidos(table) == ["accepted", "accepted", "none"]


def test_the_table_expects_what_the_rules_would_take_now() -> None:
    """What the recognizer listens for most: at the deal the opening calls; after a truco its
    answers; while the tantos are said the envido values and a truco that goes on without them;
    after the last hand ends, the next hand's opening calls (the first one deals it)."""
    table = Table()
    assert table.expected() >= {"truco", "envido", "falta envido", "me voy al mazo"}
    assert not table.expected() & {"quiero", "no quiero", "retruco", "puntos:27"}
    table.apply_line("hand")
    table.apply_line("A1: truco")
    assert table.expected() >= {"quiero", "no quiero", "retruco", "envido"}
    assert "truco" not in table.expected()
    table.apply_line("B1: no quiero")
    assert table.expected() >= {"truco", "envido"} and "quiero" not in table.expected()
    declaring = Table()
    for line in ("hand", "A1: envido", "B1: quiero"):
        declaring.apply_line(line)
    numbers = {k for k in declaring.expected() if k.startswith("puntos:")}
    assert numbers == {f"puntos:{n}" for n in [*range(8), *range(20, 34)]}
    assert "truco" in declaring.expected() and "quiero" not in declaring.expected()


@pytest.mark.parametrize("lines", [
    ("hand", "A1: truco", "B1: no quiero"),  # the hand over: read in the next one
    ("hand", "A1: envido", "B1: quiero"),  # the numbers awaited: a truco sets them aside
    ("set flor on", "hand", "A1: flor", "B1: contraflor"),
    ("set players 6", "set pica_pica on", "points A +5", "hand", "A1: envido", "B2: quiero",
     "B1: envido", "A3: quiero", "A2: envido", "B3: quiero"),
])
def test_what_the_table_expects_is_what_it_would_take_phrase_by_phrase(
        lines: tuple[str, ...]) -> None:
    """Read once for every phrase (a deal or a set-aside applied once), as ``preview`` reads each."""
    table = table_with(*lines)
    one_by_one = {item.key for phrase in (*CALL_PHRASES, *NUMBER_WORDS)
                  for item, meant in zip(parse(phrase), table.preview(phrase)) if meant.accepted}
    assert table.expected() == one_by_one and table.lines == list(lines)

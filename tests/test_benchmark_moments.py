"""The speech benchmark's "in game" figures rest on these moments of a hand: check that the
engine allows there what a Truco player expects."""

from __future__ import annotations

from benchmarks.game_states import legal_labels, moments_for
from benchmarks.speech_corpus import Item
from benchmarks.speech_scoring import Outcome, score


def test_at_the_start_of_a_hand_nobody_can_answer_or_declare() -> None:
    legal = legal_labels("empieza la mano")
    assert {"truco", "envido", "flor", "me voy al mazo"} <= legal
    assert not {"quiero", "no quiero", "son buenas", "retruco"} & legal
    assert not any(x.startswith("puntos") for x in legal)


def test_while_the_tantos_are_said_only_possible_envido_values_count() -> None:
    numbers = {int(x.split(":")[1]) for x in legal_labels("diciendo los tantos")}
    assert numbers == set(range(8)) | set(range(20, 34))


def test_a_call_is_scored_where_it_is_legal_and_has_most_company() -> None:
    assert moments_for(["vale cuatro"]) == ["retruco cantado"]
    assert moments_for(["quiero", "retruco"]) == ["truco cantado"]
    assert moments_for(["son buenas"]) == ["contestando los tantos"]
    assert moments_for(["quiero"])[0] == "truco cantado"


def test_a_table_without_flor_never_applies_a_flor() -> None:
    for moment in ("empieza la mano", "envido cantado"):
        assert "flor" in legal_labels(moment)
        assert legal_labels(moment, flor=False) == legal_labels(moment) - {"flor"}


def test_early_calls_taken_back_are_counted_at_each_threshold() -> None:
    item = Item("f.wav", "flor", "flor", "call", "voz")
    # a flor and a truco applied at once; the whole phrase gave them 0.7 and 0.65
    outcome = Outcome(item, [("flor", 0.7, 0.2, 0, 0)], 1.0, 0.1, [("flor", 0.7), ("truco", 0.65)])
    sure = score([outcome], 0.6)
    assert sure.early_back == [1, 2] and dict(sure.early_back_calls) == {"flor": 1, "truco": 0}
    assert score([outcome], 0.0, bars=({}, frozenset())).early_back == [0, 2]


def test_a_call_of_several_words_is_scored_at_its_lower_bar() -> None:
    item = Item("v.wav", "vale cuatro", "vale cuatro", "call", "voz")
    outcome = Outcome(item, [("vale cuatro", 0.45, 0.2, 0, 0)], 1.0, 0.1, [("vale cuatro", 0.45)])
    own = score([outcome], 0.6)
    assert own.per_call["vale cuatro"] == [1, 1] and own.early_back == [0, 1]
    same = score([outcome], 0.6, bars=({}, frozenset()))  # --same-bar
    assert same.per_call["vale cuatro"] == [0, 1] and same.early_back == [1, 1]


def test_a_call_after_a_doubtful_one_in_its_phrase_is_not_counted_as_applied() -> None:
    item = Item("x.wav", "envido real envido", "envido+real envido", "call", "v")
    heard = [("envido", 0.5, 0.2, 0, 0), ("real envido", 0.9, 0.2, 0, 0), ("quiero", 0.9, 0.3, 1, 1)]
    assert Outcome(item, heard, 1.0, 0.1).got(0.6) == ["quiero"]


def test_a_call_left_dudoso_as_said_or_as_its_end_is_right_with_one_tap() -> None:
    def one_tap(said: str, heard: list[tuple[str, float]], refused: tuple[str, ...] = (),
                ) -> list[int]:
        item = Item("x.wav", said, said, "call", "v")
        return score([Outcome(item, [(label, conf, 0.2, 0, 0) for label, conf in heard], 1.0,
                              0.1, refused=refused)], 0.6).one_tap

    assert one_tap("falta envido", [("envido", 0.3)]) == [1, 1]  # «Era «falta envido»»
    # applied last, it offers «⇄ Era «falta envido»»; not once another call was applied after it
    assert one_tap("falta envido", [("envido", 0.9)]) == [1, 1]
    assert one_tap("falta envido", [("envido", 0.9), ("truco", 0.9)]) == [0, 1]
    assert one_tap("no quiero", [("quiero", 0.4)]) == [1, 1]
    assert one_tap("no quiero", [("quiero", 0.9)]) == [1, 1]  # «⇄ Era «no quiero»»
    assert one_tap("truco", [("retruco", 0.4)]) == [0, 1]  # another call, not a longer one
    assert one_tap("truco", [("truco", 0.4)]) == [1, 1] == one_tap("truco", [("truco", 0.9)])
    # the look-alike «mazo» offers «Era «me voy al mazo»», a refused number «cuatro» «Era «vale
    # cuatro»»; «turco» offers nothing
    assert one_tap("me voy al mazo", [("puntos:1", 0.9)], ("uno", "mazo")) == [1, 1]
    assert one_tap("vale cuatro", [("flor", 0.3), ("puntos:4", 0.9)], ("cuatro",)) == [1, 1]
    assert one_tap("truco", [], ("turco",)) == [0, 1]


def test_a_doubtful_number_holds_no_call_back() -> None:
    item = Item("x.wav", "¿tenés envido?", "envido", "chatter_call", "v")
    heard = [("puntos:0", 0.3, 0.2, 0, 0), ("envido", 0.9, 0.2, 0, 0)]
    assert Outcome(item, heard, 1.0, 0.1).got(0.6) == ["envido"]


def test_strictly_a_call_waits_behind_a_doubtful_one_heard_in_another_utterance_of_its_phrase(
) -> None:
    item = Item("q.wav", "quiero retruco", "quiero+retruco", "call", "v")
    # «quiero» handed over early, doubtful in the whole phrase; «retruco» in the next utterance
    heard = [("quiero", 0.55, 0.2, 0, 7), ("retruco", 0.9, 0.3, 1, 7)]
    outcome = Outcome(item, heard, 1.0, 0.1)
    assert outcome.got(0.6) == ["retruco"] and outcome.got(0.6, strict=True) == []
    assert score([outcome], 0.6).strict == [0, 2]
    # an early call the whole phrase heard as other words has no phrase: it holds nothing back
    other = Outcome(item, [("quiero", 0.0, 0.2, 0, None), ("retruco", 0.9, 0.3, 1, 7)], 1.0, 0.1)
    assert other.got(0.6, strict=True) == ["retruco"]


def test_who_said_it_is_counted_over_the_files_with_a_call_or_a_number() -> None:
    call = Item("t.wav", "truco", "truco", "call", "v")
    number = Item("n.wav", "veintisiete", "puntos:27", "points", "v")
    chatter = Item("c.wav", "che", "", "chatter", "v")
    heard = [("truco", 0.9, 0.2, 0, 0)]
    outcomes = [Outcome(call, heard, 1.0, 0.1, teams=(1, 2)),
                Outcome(number, [("puntos:27", 0.95, 0.2, 0, 0)], 1.0, 0.1, teams=(1, 1)),
                Outcome(chatter, heard, 1.0, 0.1, teams=(0, 1))]  # nobody's call to give
    assert score(outcomes, 0.6).teams == [2, 3]


def test_an_answer_is_taken_for_its_opposite_only_if_the_opposite_comes_first() -> None:
    # the table applies the first answer; one after it has no call to answer and is refused
    item = Item("n.wav", "no quiero", "no quiero", "call", "v")
    first = Outcome(item, [("quiero", 0.9, 0.2, 0, 0), ("no quiero", 0.9, 0.3, 1, 1)], 1.0, 0.1)
    after = Outcome(item, [("no quiero", 0.9, 0.2, 0, 0), ("quiero", 0.9, 0.3, 1, 1)], 1.0, 0.1)
    assert score([first], 0.6).opposite["no quiero"] == [1, 1]
    assert score([after], 0.6).opposite["no quiero"] == [0, 1]

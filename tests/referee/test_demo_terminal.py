"""The demo's terminal reads as a game being refereed: hands, calls written down, the score when
it changes; a call taken back by the end of its phrase is shown once, as doubtful."""

from __future__ import annotations

import io

from rich.console import Console

from referee.demo import HOLD_S, DemoTerminal, as_refusal
from referee.startup import Part


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _terminal(wait_s: float = 60) -> tuple[DemoTerminal, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    console = Console(file=out, highlight=False, soft_wrap=True, width=200, color_system=None)
    return DemoTerminal(console, wait_s, clock=clock, every_s=None), out, clock


def test_a_call_taken_back_by_its_phrase_is_shown_once_as_doubtful() -> None:
    terminal, out, clock = _terminal()
    terminal.stored("apply", "hand", "voice", None)
    terminal.stored("apply", "A1: real envido", "voice", {"A": 0, "B": 0})
    clock.now += 1
    terminal.stored("undo", "A1: real envido", "voice", None)
    terminal.stored("undo", "hand", "voice", {"A": 0, "B": 0})
    terminal.log("   1.15s [yellow]↶ A1: real envido — dudoso: la frase entera no lo confirmó "
                 "(conf 0.00)[/yellow]")
    terminal.stored("apply", "hand", "voice", None)
    terminal.stored("apply", "A1: envido", "voice", {"A": 0, "B": 0})
    terminal.log("   1.38s [red]✗ «diez envido»[/red] — A1: 10: no hay tantos para decir ahora")
    clock.now += HOLD_S
    terminal.show_due()
    assert out.getvalue().splitlines() == [
        "— mano 1 —",  # the deal was taken back with the call: the call is still of this hand
        "   1.15s ? A1: real envido — dudoso: la frase entera no lo confirmó (conf 0.00)",
        "          ✓ A1: envido",
        "   1.38s ✗ «diez envido» — No vale el «10» de A1: no hay tantos para decir ahora",
    ]
    assert "deshecho" not in out.getvalue()


def test_a_deal_taken_back_twice_heads_its_hand_once_and_the_next_hand_counts_on() -> None:
    terminal, out, clock = _terminal()
    for call in ("B1: real envido", "B1: truco"):
        terminal.stored("apply", "hand", "voice", None)
        terminal.stored("apply", call, "voice", {"A": 0, "B": 0})
        terminal.stored("undo", call, "voice", None)
        terminal.stored("undo", "hand", "voice", {"A": 0, "B": 0})
        terminal.log(f"   2.00s [yellow]↶ {call} — dudoso: la frase entera no lo confirmó[/yellow]")
    terminal.stored("apply", "hand", "voice", None)
    terminal.stored("apply", "B1: mazo", "voice", {"A": 1, "B": 0})
    terminal.stored("apply", "hand", "voice", None)
    clock.now += HOLD_S
    terminal.show_due()
    assert out.getvalue().splitlines() == [
        "— mano 1 —",
        "   2.00s ? B1: real envido — dudoso: la frase entera no lo confirmó",
        "   2.00s ? B1: truco — dudoso: la frase entera no lo confirmó",
        "          ✓ B1: mazo   → A 1 — B 0",
        "— mano 2 —",
    ]


def test_refusals_of_the_rules_read_as_on_the_tablet() -> None:
    assert as_refusal("   3.10s [red]✗ «quiero»[/red] — B1: quiero: no hay nada cantado  "
                      "(conf 0.90)") == ("   3.10s [red]✗ «quiero»[/red] — No vale el «quiero» "
                                         "de B1: no hay nada cantado  (conf 0.90)")
    assert as_refusal("— dudoso: después se anotó «truco» (antes: A1: 10: ya pasó el envido)"
                      ) == ("— dudoso: después se anotó «truco» (antes: No vale el «10» de A1: "
                            "ya pasó el envido)")
    said = "   1.15s ? A1: real envido — dudoso: la frase entera no lo confirmó (conf 0.00)"
    assert as_refusal(said) == said


def test_a_call_waits_before_it_is_shown_and_the_score_shows_when_it_changes() -> None:
    terminal, out, clock = _terminal()
    terminal.stored("apply", "B1: quiero", "voice", {"A": 0, "B": 0})
    terminal.show_due()
    assert out.getvalue() == ""  # its phrase may still take it back
    clock.now += 1
    terminal.stored("apply", "B1: 31", "voice", {"A": 0, "B": 2})
    clock.now += HOLD_S - 0.5
    terminal.show_due()
    assert out.getvalue().splitlines() == ["          ✓ B1: quiero"]
    terminal.stored("apply", "A1: truco", "page", {"A": 0, "B": 2})
    terminal.close()  # serving ended: everything still waiting is shown
    assert out.getvalue().splitlines()[1:] == ["          ✓ B1: 31   → A 0 — B 2",
                                               "          ✓ A1: truco  (tablet)"]


def test_an_undo_of_a_call_already_shown_is_shown() -> None:
    terminal, out, clock = _terminal()
    terminal.stored("apply", "A1: truco", "voice", {"A": 0, "B": 0})
    clock.now += HOLD_S
    terminal.show_due()
    terminal.stored("undo", "A1: truco", "page", {"A": 0, "B": 0})
    terminal.close()
    assert out.getvalue().splitlines() == ["          ✓ A1: truco",
                                           "          ↶ deshecho: A1: truco  (tablet)"]


def test_the_camera_is_left_out_of_the_start_up_lines_and_the_wait_is_said() -> None:
    terminal, out, _ = _terminal(wait_s=60)
    terminal.parts([Part("audio", True, "la grabación partida.wav (49 s)"),
                    Part("cámara", False, "sin cámara (--camera N para usar una)")])
    assert out.getvalue().splitlines() == ["  ✓ audio:        la grabación partida.wav (49 s)"]
    terminal.ready("http://192.0.2.2:18700/")
    printed = out.getvalue()
    assert "Esperando que abras la página http://192.0.2.2:18700/" in printed
    assert "empieza sola en 60 s" in printed and "queda guardada" not in printed


def test_unattended_it_says_the_game_starts_at_once() -> None:
    terminal, out, _ = _terminal(wait_s=0)
    terminal.ready("http://127.0.0.1:18700/")
    assert "La partida empieza ya" in out.getvalue() and "Esperando" not in out.getvalue()


def test_with_no_recording_heard_it_does_not_say_it_waits() -> None:
    terminal, out, _ = _terminal(wait_s=60)
    terminal.parts([Part("reconocedor", False, "no hay modelo; se anota con los botones")])
    terminal.ready("http://127.0.0.1:18700/")
    assert "Esperando" not in out.getvalue() and "Ctrl+C para terminar" in out.getvalue()


def test_an_undo_of_a_deal_already_shown_reads_as_the_table_says_it() -> None:
    """The log's «hand» is the table's «mano», with its header's number (dealt again, it is the
    same hand), and «A1 plays 7o» is «A1 juega 7o»."""
    terminal, out, clock = _terminal()
    terminal.stored("apply", "hand", "voice", None)
    terminal.stored("apply", "A1 plays 7o", "camera", {"A": 0, "B": 0})
    terminal.stored("apply", "B1: mazo", "voice", {"A": 1, "B": 0})
    terminal.stored("apply", "hand", "voice", None)
    clock.now += HOLD_S
    terminal.show_due()
    terminal.stored("undo", "hand", "page", {"A": 1, "B": 0})
    terminal.stored("apply", "hand", "voice", None)
    terminal.close()
    assert out.getvalue().splitlines() == [
        "— mano 1 —",
        "          ✓ A1 juega 7o  (cámara)",  # before: «✓ A1 plays 7o»
        "          ✓ B1: mazo   → A 1 — B 0",
        "— mano 2 —",
        "          ↶ deshecho: mano 2  (tablet)",  # before: «↶ deshecho: hand»
        "— mano 2 —",  # before: «— mano 3 —», a hand that never was
    ]

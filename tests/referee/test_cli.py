"""The ``truco-referee`` command line speaks Spanish: help, usage and argparse's own errors, for the
top level and every subcommand; ``models`` takes its options before or after the action."""

from __future__ import annotations

import json
import wave
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from referee.asr.base import Result, Word
from referee.cli import COMMANDS, main
from referee.commands import listen
from referee.evidence import EvidenceStore

ENGLISH = ("usage:", "options:", "show this help message", "positional arguments",
           "the following arguments are required", "invalid choice", "error: argument ",
           "unrecognized arguments")
HELPS = [[name] for name in COMMANDS] + [["models", action] for action in ("fetch", "list", "check")]


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out + captured.err


def test_top_level_help_is_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(["--help"], capsys)
    assert code == 0
    assert "uso: truco-referee" in text and "opciones:" in text and "muestra esta ayuda" in text
    assert "arrancar el árbitro y el tanteador" in text  # the subcommands, in Spanish
    assert not [word for word in ENGLISH if word in text]


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_every_subcommand_help_is_spanish_and_says_what_it_does(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out([*argv, "--help"], capsys)
    assert code == 0 and text.startswith("uso: ")
    assert not [word for word in ENGLISH if word in text]
    description = text.split("\n\n")[1]
    assert len(description) > 30 and not description.startswith(("argumentos", "opciones"))


@pytest.mark.parametrize("argv, said", [
    (["replay"], "faltan estos argumentos: ARCHIVO"),
    (["listen", "--channels", "3"], "opción inválida: 3"),
    (["replay", "a.log", "--bogus"], "no entiendo estos argumentos: --bogus"),
    (["nada"], "opción inválida: 'nada'"),
])
def test_usage_errors_are_spanish(argv: list[str], said: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(argv, capsys)
    assert code == 2 and said in text and "uso: truco-referee" in text
    assert not [word for word in ENGLISH if word in text]


def test_models_dir_goes_before_or_after_the_action(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    after, before = tmp_path / "despues", tmp_path / "antes"
    assert main(["models", "list", "--models-dir", str(after)]) == 0
    assert f"Carpeta de modelos: {after}" in capsys.readouterr().out
    assert main(["models", "--models-dir", str(before), "check"]) == 0
    assert main(["models", "--models-dir", str(before), "list"]) == 0
    assert f"Carpeta de modelos: {before}" in capsys.readouterr().out


def test_an_unknown_model_name_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(["models", "fetch", "bogus"], capsys)
    assert code == 2 and "'bogus'" in text and "vosk-es, sphinx-es, mazo-naipes-libres" in text
    assert "[]" not in text


class SaysTruco:
    """A recognizer that hears «truco», surely, once the WAV is over."""

    name, low_accuracy, sample_rate = "falso", False, 16000

    def feed(self, pcm: bytes) -> list[Result]:
        return []

    def flush(self) -> list[Result]:
        word = Word("truco", 0.95, 0.2, 0.5)
        return [Result("truco", (word,), final=True, start=0.2, end=0.5, stream_time=1.0)]

    def reset(self) -> None:
        pass


@pytest.fixture()
def recognizers(monkeypatch: pytest.MonkeyPatch) -> list[SaysTruco]:
    """``listen`` with a recognizer that needs no model; the list holds each one made."""
    made: list[SaysTruco] = []

    def make(choice: object) -> SaysTruco:
        made.append(SaysTruco())
        return made[-1]

    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", make)
    return made


def _wav(path: Path, channels: int = 1, rate: int = 16000) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(2 * channels * rate))
    return path


def _listen(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any], str]:
    """``listen --json``'s exit code, its JSON lines and what it said on standard error."""
    code = main(["listen", "--json", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_listen_says_a_wav_at_0_hz_is_damaged(tmp_path: Path, recognizers: list[SaysTruco],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _wav(tmp_path / "cero.wav")
    path.write_bytes(path.read_bytes()[:24] + bytes(8) + path.read_bytes()[32:])
    code, _, err = _listen(["--wav", str(path), "--no-evidence"], capsys)  # before: ZeroDivisionError
    assert code == 2 and f"{path} dice que su audio va a 0 Hz: está dañado" in err


@pytest.mark.parametrize("given, blocker", [("afile", "afile"), ("afile/sub", "afile"),
                                            ("carpeta", "carpeta/clips")])
def test_listen_refuses_an_evidence_folder_that_is_a_file_before_listening(
        tmp_path: Path, given: str, blocker: str, recognizers: list[SaysTruco],
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "carpeta").mkdir()
    for name in ("afile", "carpeta/clips"):
        (tmp_path / name).write_text("no soy una carpeta")
    argv = ["--wav", str(_wav(tmp_path / "x.wav")), "--evidence", str(tmp_path / given)]
    code, lines, err = _listen(argv, capsys)  # before: NotADirectoryError ('afile/clips')
    assert code == 2 and str(tmp_path / blocker) in err and "es un archivo, no una carpeta" in err
    assert recognizers == [] and lines == []


@pytest.mark.parametrize("evidence", ["--no-evidence", "--evidence"])
def test_listen_json_always_has_the_evidence_key(tmp_path: Path, evidence: str,
                                                 recognizers: list[SaysTruco],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "evidencia"
    argv = ["--wav", str(_wav(tmp_path / "x.wav")), evidence]
    code, lines, _ = _listen([*argv, str(folder)] if evidence == "--evidence" else argv, capsys)
    assert code == 0 and [line["call"] for line in lines] == ["truco"]
    if evidence == "--no-evidence":
        assert lines[0]["evidence"] is None  # before: no "evidence" key at all
    else:
        assert [e.id for e in EvidenceStore(folder).all()] == [lines[0]["evidence"]]


def test_listen_json_gives_the_team_of_the_seat_with_one_microphone(
        tmp_path: Path, recognizers: list[SaysTruco], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--wav", str(_wav(tmp_path / "x.wav")), "--no-evidence"]
    code, lines, _ = _listen(argv, capsys)
    assert code == 0 and lines[0]["seat"]
    assert lines[0]["team"] == lines[0]["seat"][0]  # before: null next to "seat": "A1"


def test_listen_refuses_a_mono_wav_with_two_channels(tmp_path: Path, recognizers: list[SaysTruco],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = _wav(tmp_path / "mono.wav")
    code, lines, err = _listen(["--wav", str(path), "--channels", "2", "--no-evidence"], capsys)
    assert code == 2 and lines == [] and recognizers == []  # before: ran, every team null
    assert f"{path} tiene un solo canal y --channels 2 necesita dos" in err
    stereo = _wav(tmp_path / "stereo.wav", channels=2)
    code, lines, _ = _listen(["--wav", str(stereo), "--channels", "2", "--no-evidence"], capsys)
    assert code == 0 and len(lines) == 1


def test_listen_tells_the_recognizer_what_its_table_expects(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A recognizer that can listen for what the table expects (Sphinx's ``expecting``) is asked
    by ``listen`` at each phrase: here, before and after its «truco»."""
    asked: list[frozenset[str]] = []

    class Expecting(SaysTruco):
        expecting: Any = None

        def flush(self) -> list[Result]:
            asked.append(self.expecting())
            return super().flush()

    made: list[Expecting] = []
    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", lambda choice: made.append(Expecting()) or made[-1])
    code, lines, _ = _listen(["--wav", str(_wav(tmp_path / "a.wav")), "--no-evidence"], capsys)
    assert code == 0 and [line["call"] for line in lines] == ["truco"]
    assert {"truco", "envido"} <= asked[0] and "quiero" not in asked[0]
    assert made[0].expecting is not None and "quiero" in made[0].expecting()


def _help(argv: list[str], capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> str:
    """A command's help on one line per option (wide enough that argparse wraps nothing)."""
    monkeypatch.setenv("COLUMNS", "1000")
    code, text = _out([*argv, "--help"], capsys)
    assert code == 0
    return text


def test_serve_help_explains_every_falta_and_the_flor_default(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    text = _help(["serve"], capsys, monkeypatch)
    # before: «…; dos-faltas; winner = …» and «se juega con flor (o --no-flor)»
    assert ("dos-faltas = en malas, lo que le falta al que va ganando para entrar en buenas, y "
            "en buenas, para ganar;") in text
    assert "--no-flor (por defecto, sin flor)" in text
    assert "las que no des quedan como en ella" in text  # a rule not given: as the game in play


@pytest.mark.parametrize("action, said", [("check", "dónde están los modelos"),
                                          ("list", "dónde están los modelos"),
                                          ("fetch", "dónde guardar los modelos")])
def test_models_dir_help_says_whether_the_action_saves_there(
        action: str, said: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = _help(["models", action], capsys, monkeypatch)
    assert f"--models-dir CARPETA  {said} (si no, $TRUCO_REFEREE_MODELS" in text
    assert ("guardar" in text) == (action == "fetch")  # before: «dónde guardar» for all three


@pytest.mark.parametrize("argv", [["models", "list", "--model", "m2"],
                                  ["voices", "calibrate", "--model", "m2"]], ids=" ".join)
def test_an_option_is_taken_only_as_written(argv: list[str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, text = _out(argv, capsys)  # before: «--model m2» was taken for «--models-dir m2»
    assert code == 2 and "no entiendo estos argumentos: --model m2" in text
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["serve"], ["listen"], ["demo"], ["voices"], ["cards"],
                                     ["models", "list"]], ids=" ".join)
def test_every_models_dir_help_shows_the_folder_used_without_it(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUCO_REFEREE_MODELS", str(tmp_path / "variable"))
    text = " ".join(_help(command, capsys, monkeypatch).split())  # help lines wrapped anywhere
    assert f"(si no, $TRUCO_REFEREE_MODELS o la carpeta del usuario; ahora: {tmp_path / 'variable'})" in text


@pytest.mark.parametrize("action", ["list", "check", "fetch"])
def test_models_dir_help_shows_the_folder_used_without_it(
        action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUCO_REFEREE_MODELS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    text = _help(["models", action], capsys, monkeypatch)
    assert f"la carpeta del usuario; ahora: {tmp_path / 'truco-referee' / 'models'})" in text
    monkeypatch.setenv("TRUCO_REFEREE_MODELS", str(tmp_path / "variable"))
    text = _help(["models", action], capsys, monkeypatch)
    assert f"ahora: {tmp_path / 'variable'})" in text

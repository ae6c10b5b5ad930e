"""`voices` at a table's hands: a folder of WAVs with several broken files names them all at
once, a calibration stopped half-way says what is left (and keeps the players who had finished),
names typed in another Unicode form pick the same player, and prompts that do not sound like what
they should say are told."""

from __future__ import annotations

import shutil
import wave
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from referee import mic_choice
from referee.asr import kept_recordings
from referee.asr.adapt import accumulate
from referee.asr.alignment import Aligner, spoken
from referee.asr.calibration_folder import calibration_dir
from referee.asr.ptm_model import PtmModel
from referee.audio import AudioChunk, AudioError
from referee.calibration_prompts import PROMPTS, unfitted
from referee.cli import INTERRUPTED, main
from referee.commands.voices_wav import from_wav_dir
from referee.table_calibration import TableCalibration
from referee.wav import read_pcm
from tests.referee.test_table_calibration import Recognizer, wait_for
from tests.referee.test_voices_command import CtrlCMic, keep_players, sphinx_model
from tests.referee.test_voices_mic import SILENT, CorpusMic, prompts_said


def _recording(path: Path, seconds: float = 0.5) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\1\0" * int(seconds * 16000))


def test_every_broken_wav_of_a_folder_is_named_at_once(tmp_path: Path) -> None:
    for name in ("truco.wav", "envido.wav", "quiero.wav"):
        _recording(tmp_path / name)
    (tmp_path / "flor.wav").write_bytes(b"")  # before: only this one named, then the next...
    (tmp_path / "retruco.wav").write_bytes(b"hola")
    with pytest.raises(AudioError) as err:
        from_wav_dir(tmp_path)
    assert err.value.code == "wav-broken"
    said = err.value.message
    assert "hay 2 .wav que no puedo leer" in said and "flor.wav" in said and "retruco.wav" in said
    assert "sacalos de la carpeta" in said
    (tmp_path / "retruco.wav").unlink()
    with pytest.raises(AudioError, match="hay un .wav que no puedo leer: .*flor.wav.*sacalo de"):
        from_wav_dir(tmp_path)


def test_a_calibration_stopped_half_way_says_what_is_left_and_that_the_next_starts_over(
        shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    keep_players(models, ["Ana", "Beto"])
    (calibration_dir(models) / "means").write_bytes(b"")  # the table's calibration, kept
    monkeypatch.setattr(mic_choice, "MicSource", CtrlCMic)
    assert main(["voices", "calibrate", "--models-dir", str(models)]) == INTERRUPTED
    err = capsys.readouterr().err  # before: «no guardé nada.», nothing of what is left
    assert "no guardé nada de lo grabado ahora: sigue la calibración de antes, de 2 jugadores" in err
    assert "empieza de nuevo, desde la primera frase del primer jugador" in err
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]
    shutil.rmtree(calibration_dir(models))
    assert main(["voices", "calibrate", "--models-dir", str(models)]) == INTERRUPTED
    assert "no guardé nada de lo grabado ahora: no hay calibración" in capsys.readouterr().err


def test_phrases_that_do_not_sound_like_their_text_are_counted_and_told(
        model: Path, rows: list[dict[str, str]], shared_dir: Path) -> None:
    said = {r["text"]: read_pcm(shared_dir / "speech" / r["file"]) for r in rows
            if (r["speed"], r["pitch"]) == ("normal", "low")}
    utterances = [(said[t], t) for t in ("truco", "retruco", "envido")]
    utterances.append((said["me voy al mazo"], "treinta y tres"))  # a WAV named after another
    ptm = PtmModel.load(model)
    aligner = Aligner(model, [w for _, t in utterances for w in spoken(t).split()])
    stats = accumulate(ptm, aligner, utterances)
    assert (stats.said, stats.aligned) == (4, 3)  # before: not counted, nothing to tell
    assert (stats + stats).aligned == 6
    assert unfitted(stats.said, stats.aligned) == (
        "Ojo: de 4 frases, 1 no sonaba a lo que tenía que decir (ruido, otra palabra), y no la usé.")
    # most of them left out: the prompts and what was said are out of step
    assert "calibrá de nuevo; una calibración así puede oír peor que ninguna" in unfitted(4, 1)
    assert unfitted(4, 4) == ""


def test_the_tablet_says_what_a_fit_left_out(tmp_path: Path) -> None:
    keep_players(tmp_path, ["Ana", "Beto"])

    def fit(models_dir: Path, model_dir: Path, voices: Any, names: Any) -> tuple[Path, Any]:
        return models_dir / "means", SimpleNamespace(frames=900.0, said=3, aligned=1)

    shown: list[dict[str, Any]] = []
    calibration = TableCalibration(shown.append, tmp_path, Recognizer(tmp_path, tmp_path / "means"),
                                   lambda _: None, fit=fit)
    calibration.act("remove", index=1)  # refitted on Beto's
    state = wait_for(calibration, "done", "failed", seconds=10)
    assert state["state"] == "done" and "Ya escucho con la calibración." in state["message"]
    assert "de 3 frases, 2 no sonaban a lo que tenían que decir" in state["message"]  # before: not said


class SecondPlayerStopsMic(CorpusMic):
    """The first player says every prompt; the second says a few and presses Ctrl-C."""

    def __iter__(self) -> Iterator[AudioChunk]:
        yield from super().__iter__()
        for chunk in super().__iter__():
            if chunk.t > 8.0:
                raise KeyboardInterrupt
            yield chunk


def test_ctrl_c_in_a_later_players_turn_keeps_the_players_who_had_finished(
        shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    prompts_said(shared_dir)
    monkeypatch.setattr(mic_choice, "MicSource", SecondPlayerStopsMic)
    argv = ["voices", "calibrate", "--players", "3", "--name", "Ana", "--name", "Beto"]
    assert main([*argv, "--models-dir", str(models)]) == INTERRUPTED
    out = capsys.readouterr().out  # before: «no guardé nada de lo grabado ahora», Ana's lost too
    assert "Ctrl-C en el turno de Beto: guardo sólo las voces de los que terminaron (Ana)" in out
    assert ("Guardé las voces de Ana, que dijeron todas sus frases; la de Beto no (lo que grabó "
            "hasta el Ctrl-C no lo guardé), ni la de Jugador 3: 'voices calibrate --add "
            "--players 2' las suma.") in out
    assert (calibration_dir(models) / "means").is_file()  # saved as a finished calibration is
    kept, names = kept_recordings.saved_players(models)
    assert names == ["Ana"]
    assert [text for _, text in kept[0]] == [t for t in PROMPTS if t != SILENT]

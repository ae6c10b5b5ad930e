"""The voices calibrated from the tablet while the referee listens: each prompt's phrase is cut
from the table's stream, the listener hears none of it and goes on after it with its clock
unbroken, and the calibration is fitted, kept and handed to the recognizer.  The stream is a
corpus voice saying the prompts (``test_voices_mic``), between stretches of the table."""

from __future__ import annotations

import io
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.speech_corpus import through_line
from referee.asr.calibration_folder import find_calibration
from referee.audio import AudioChunk, to_chunk
from referee.calibration_prompts import PROMPTS
from referee.device_status import NARROW_CALIBRATION
from referee.table_calibration import TableCalibration
from tests.referee.test_voices_mic import SILENT, CorpusMic, prompts_said


class Recognizer:
    """The running recognizer, as far as a calibration sees it."""

    def __init__(self, model_dir: Path, means: Path | None = None) -> None:
        self.model_dir = model_dir
        self.calibrated = means is not None  # with the calibration it started with
        self.used: list[Path | None] = []

    def use_means(self, path: Path | None) -> None:
        self.used.append(path)


def table(seconds: float, start: float) -> list[AudioChunk]:
    """The table's own sound (quiet), in chunks of 0.1 s from ``start``."""
    return [to_chunk(np.zeros((1600, 1)), start + k / 10) for k in range(int(seconds * 10))]


def wait_for(calibration: TableCalibration, *states: str, seconds: float = 120.0) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while calibration.state()["state"] not in states:
        assert time.monotonic() < end, calibration.state()
        time.sleep(0.05)
    return calibration.state()


@pytest.mark.parametrize("line", ["full", "narrow"])
def test_the_prompts_said_at_the_table_calibrate_and_the_listener_hears_around_them(
        shared_dir: Path, tmp_path: Path, line: str) -> None:
    prompts_said(shared_dir)
    if line == "narrow":  # a Bluetooth headset's microphone (referee.band)
        CorpusMic.stream = through_line(CorpusMic.stream)
    said = [chunk for chunk in CorpusMic(None)]
    shown: list[dict[str, Any]] = []
    recognizer = Recognizer(shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model")
    calibration = TableCalibration(shown.append, tmp_path, recognizer, lambda _: None)
    before, after = table(2.0, 0.0), table(2.0, 2.0 + said[-1].t + said[-1].duration)

    def stream() -> Iterator[AudioChunk]:
        yield from before
        calibration.act("start", 1)  # tapped on the tablet
        yield from (AudioChunk(c.pcm, 2.0 + c.t, c.levels) for c in said)
        yield from after

    heard = list(calibration.tap(stream()))
    state = wait_for(calibration, "done", "failed")
    assert state["state"] == "done", state
    assert state["missed"] == 1 and "Ya escucho con la calibración" in state["message"]
    assert (NARROW_CALIBRATION in state["message"]) == (line == "narrow")  # calibrate again elsewhere

    # the listener heard the table before and after, none of the prompts (the last one ends
    # after a pause of the table), its clock unbroken
    assert heard[:len(before)] == before and heard[-1].pcm == after[-1].pcm
    assert len(before) + len(after) - 5 <= len(heard) < len(before) + len(after)
    assert [c.t for c in heard] == pytest.approx([k / 10 for k in range(len(heard))])
    # each prompt was shown in turn, and what became of the last one said
    prompts = [s["prompt"] for s in shown if s["state"] == "listening"]
    assert list(dict.fromkeys(prompts)) == list(PROMPTS)
    assert any(s["last"] == f"«{SILENT}»: no te oí; sigo" for s in shown)
    assert any(s["last"] == "te oí «treinta y tres»" for s in shown)
    # kept as the table's calibration, with its recordings, and handed to the recognizer
    assert recognizer.used == [find_calibration(tmp_path, recognizer.model_dir)]
    assert len(list((tmp_path / "voice-calibration").rglob("*.wav"))) == len(PROMPTS) - 1


def fake_fit(models_dir: Path, model_dir: Path, voices: Any, names: Any = ()) -> tuple[Path, Any]:
    class Stats:
        frames = 100 * sum(len(v) for v in voices)
        said = aligned = sum(len(v) for v in voices)  # every phrase fitted
    fake_fit.voices = [list(v) for v in voices]  # type: ignore[attr-defined]
    return models_dir / "means", Stats()


def keeping_fit(models_dir: Path, model_dir: Path, voices: Any, names: Any) -> tuple[Path, Any]:
    """``fake_fit`` that keeps the recordings and names, as ``calibrate_prompts`` does."""
    from referee.asr import kept_recordings

    kept_recordings.save_prompts(models_dir, voices, names)
    return fake_fit(models_dir, model_dir, voices)


def spoken(calibration: TableCalibration, prompts: int) -> None:
    """The prompts shown said, one after another, each a loud burst then a pause."""
    rng = np.random.default_rng(1)
    voice = 0.3 * rng.standard_normal((1600 * 6, 1))
    for k in range(prompts):
        for part in (voice, np.zeros((1600 * 8, 1))):
            for i in range(0, len(part), 1600):
                calibration.hears(to_chunk(part[i:i + 1600], 0.0))


def test_each_player_in_turn_and_the_taps_each_state_takes(tmp_path: Path) -> None:
    shown: list[dict[str, Any]] = []
    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(shown.append, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco", "quiero"), fit=fake_fit)
    assert shown[-1]["state"] == "idle"
    with pytest.raises(ValueError, match="Calibrar las voces"):
        calibration.act("skip")
    calibration.act("start", 2)
    assert shown[-1] | {"last": ""} == {"state": "listening", "player": 1, "name": "",
                                        "players": 2, "index": 1, "total": 2, "prompt": "truco",
                                        "last": "",
                                        "heard": 0, "missed": 0, "message": "",
                                        "calibrated": False, "kept": 0, "names": [],
                                        "adding": False}
    with pytest.raises(ValueError, match="Saltear"):
        calibration.act("start", 2)
    calibration.act("skip", index=1)
    assert shown[-1]["prompt"] == "quiero" and shown[-1]["last"] == "«truco»: lo salteaste; sigo"
    with pytest.raises(ValueError, match="ahora va «quiero»"):  # tapped on «truco», heard since
        calibration.act("skip", index=1)
    spoken(calibration, 1)
    assert shown[-1] | {"last": ""} == {"state": "ready", "player": 2, "name": "", "players": 2,
                                        "index": 3,
                                        "total": 2, "prompt": "", "last": "", "heard": 1,
                                        "missed": 1, "message": "",
                                        "calibrated": False, "kept": 0, "names": [],
                                        "adding": False}
    assert calibration.hears(to_chunk(np.zeros((1600, 1)), 0.0))  # the listener waits too
    calibration.act("next")
    assert shown[-1]["player"] == 2 and shown[-1]["prompt"] == "truco"
    spoken(calibration, 2)
    state = wait_for(calibration, "done")
    assert [[text for _, text in v] for v in fake_fit.voices] == [["quiero"], ["truco", "quiero"]]  # type: ignore[attr-defined]
    assert state["message"].startswith("Listo: 3 frases") and recognizer.used == [tmp_path / "means"]
    assert not calibration.hears(to_chunk(np.zeros((1600, 1)), 0.0))  # the listener hears again
    calibration.act("close")
    assert shown[-1]["state"] == "idle"


def test_a_cancelled_calibration_keeps_nothing_and_one_with_nothing_said_fails(tmp_path: Path) -> None:
    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco", "quiero"), fit=fake_fit)
    calibration.act("start", 1)
    spoken(calibration, 1)
    calibration.act("cancel")
    assert calibration.state()["state"] == "idle" and calibration.state()["heard"] == 0
    assert not calibration.hears(to_chunk(np.zeros((1600, 1)), 0.0))

    calibration.act("start", 1)
    calibration.act("skip")
    calibration.act("skip")
    state = wait_for(calibration, "failed")
    assert "no te oí decir ninguna frase" in state["message"] and recognizer.used == []
    calibration.act("start", 1)  # tried again from the result
    assert calibration.state()["state"] == "listening"


def test_a_calibration_the_table_has_is_forgotten_from_the_tablet(tmp_path: Path) -> None:
    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco",), fit=fake_fit)
    assert not calibration.state()["calibrated"]  # a recognizer started with none
    with pytest.raises(ValueError, match="ninguna calibración que olvidar"):
        calibration.act("forget")
    calibration.act("start", 1)
    with pytest.raises(ValueError, match="Saltear"):
        calibration.act("forget")  # not while the players are recorded
    spoken(calibration, 1)
    assert wait_for(calibration, "done")["calibrated"]
    (tmp_path / "voice-calibration").mkdir()
    (tmp_path / "voice-calibration" / "means").write_bytes(b"kept")
    calibration.act("forget")
    assert calibration.state() | {"last": ""} == calibration.state() | {
        "state": "idle", "calibrated": False, "message": "", "last": ""}
    assert recognizer.used == [tmp_path / "means", None]  # heard with the model's own from now
    assert not (tmp_path / "voice-calibration" / "means").exists()
    started_with = TableCalibration(lambda _: None, tmp_path, Recognizer(tmp_path, tmp_path / "m"),
                                    lambda _: None)
    assert started_with.state()["calibrated"]



def test_a_player_who_sits_down_later_is_added_to_the_players_kept(tmp_path: Path) -> None:
    """Only the new player says the prompts; the calibration is fitted again on everyone's, the
    recordings kept and theirs, and keeps them all for the next one."""
    from referee.asr import kept_recordings

    log: list[str] = []
    recognizer = Recognizer(tmp_path / "model")

    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, log.append,
                                   prompts=("truco", "quiero"), fit=keeping_fit)
    with pytest.raises(ValueError, match="no hay voces calibradas guardadas"):
        calibration.act("add")
    calibration.act("start", 2)
    spoken(calibration, 2)
    calibration.act("next")
    spoken(calibration, 2)
    assert wait_for(calibration, "done")["kept"] == 2
    calibration.act("close")

    calibration.act("add", 1)
    assert calibration.state() | {"last": ""} == calibration.state() | {
        "state": "listening", "player": 1, "players": 1, "adding": True, "kept": 2, "last": ""}
    assert "(un jugador que se suma a 2 jugadores ya calibrados)" in log[-1]
    spoken(calibration, 1)
    calibration.act("skip")
    state = wait_for(calibration, "done")
    said = [sorted(text for _, text in voice) for voice in fake_fit.voices]  # type: ignore[attr-defined]
    assert said == [["quiero", "truco"], ["quiero", "truco"], ["truco"]]
    assert state["message"].startswith("Listo: 1 frases y las de 2 jugadores ya calibrados")
    assert state["kept"] == 3 == kept_recordings.kept_voices(tmp_path) and not state["adding"]
    assert recognizer.used == [tmp_path / "means", tmp_path / "means"]

    calibration.act("start", 1)  # the whole table again: the kept ones are not fitted with
    spoken(calibration, 2)
    wait_for(calibration, "done")
    assert len(fake_fit.voices) == 1 and calibration.state()["kept"] == 1  # type: ignore[attr-defined]

def test_a_player_who_leaves_is_removed_and_the_others_fitted_again(tmp_path: Path) -> None:
    """Their recordings are deleted and the calibration fitted on the others'; the last one
    removed forgets the calibration.  The table hears each kept player's voice to tell who is
    who, in the order they were calibrated."""
    from referee.asr import kept_recordings, learn

    log: list[str] = []
    recognizer = Recognizer(tmp_path / "model")

    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, log.append,
                                   prompts=("truco", "quiero"), fit=keeping_fit)
    with pytest.raises(ValueError, match="no hay un jugador 1 entre las voces calibradas"):
        calibration.act("remove", index=1)
    calibration.act("start", 3)  # each player says something else: who is who
    spoken(calibration, 2)
    calibration.act("next")
    calibration.act("skip")
    spoken(calibration, 1)
    calibration.act("next")
    spoken(calibration, 1)
    calibration.act("skip")
    wait_for(calibration, "done")
    calibration.act("close")
    assert kept_recordings.voice_sample(tmp_path, 4) is None and calibration.voice_sample(0) is None
    sample = calibration.voice_sample(1)
    assert sample is not None and sample[:4] == b"RIFF"
    first = [pcm for pcm, _ in kept_recordings.saved_prompts(tmp_path)[0]]
    with wave.open(io.BytesIO(sample)) as w:  # both phrases, with 0.3 s between them
        assert w.getframerate() == 16000
        assert w.readframes(w.getnframes()) == bytes(9600).join(first)

    with pytest.raises(ValueError, match="no hay un jugador 4"):
        calibration.act("remove", index=4)
    with pytest.raises(ValueError, match="la lista de voces cambió: ahora hay 3 jugadores"):
        calibration.act("remove", index=2, kept=4)  # a page that listed one removed since
    removed_at = time.time()
    calibration.act("remove", index=2, kept=3)
    assert calibration.state()["message"].startswith("Saco la voz del jugador 2")
    assert "mientras tanto sigo oyendo cantos" in log[-1]
    assert not calibration.hears(to_chunk(np.zeros((1600, 1)), 0.0))  # the listener hears on
    state = wait_for(calibration, "done")
    said = [[text for _, text in voice] for voice in fake_fit.voices]  # type: ignore[attr-defined]
    assert said == [["truco", "quiero"], ["truco"]]  # the second player's «quiero» is gone
    assert state["message"].startswith("Listo: saqué la voz del jugador 2; quedan 2 jugadores")
    # What was played until then held their voice too: it is not learned from again.
    assert state["message"].endswith(" De lo jugado hasta ahora ya no aprendo: ahí está su voz, y "
                                     "no distingo una voz de otra. Ya escucho con la calibración.")
    assert learn.note(tmp_path)["forgotten_at"] >= removed_at
    assert state["kept"] == 2 == kept_recordings.kept_voices(tmp_path)
    assert [[text for _, text in v] for v in kept_recordings.saved_prompts(tmp_path)] == said
    assert recognizer.used == [tmp_path / "means"] * 2

    kept_recordings.save_prompts(tmp_path, kept_recordings.saved_prompts(tmp_path)[:1])  # one removed from a terminal
    calibration.act("remove", index=2)
    state = wait_for(calibration, "failed")
    assert state["message"] == ("No pude calibrar: las voces guardadas cambiaron: quedan 1; fijate "
                                "en la lista y probá de nuevo") and state["kept"] == 1
    calibration.act("remove", index=1)  # the last one: nobody's calibration is left
    assert calibration.state() | {"last": ""} == calibration.state() | {
        "state": "idle", "calibrated": False, "kept": 0, "last": ""}
    assert recognizer.used[-1] is None and kept_recordings.kept_voices(tmp_path) == 0


def test_a_kept_player_is_named_and_their_name_follows_them(tmp_path: Path) -> None:
    """A name given to a kept player stays with their recordings: through another player added
    and one removed before them, and in what the table is told."""
    from referee.asr import kept_recordings

    log: list[str] = []
    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, log.append,
                                   prompts=("truco",), fit=keeping_fit)
    with pytest.raises(ValueError, match="no hay un jugador 1"):
        calibration.act("rename", index=1, name="Juan")
    calibration.act("start", 3)
    calibration.act("name", name="Ana")  # the first one, as they say the prompts
    assert calibration.state()["name"] == "Ana"
    spoken(calibration, 1)
    assert calibration.state() | {"last": ""} == calibration.state() | {
        "state": "ready", "player": 2, "name": "", "last": ""}
    calibration.act("next")
    calibration.act("skip")  # the second one says nothing: not kept
    calibration.act("name", name="Beto")  # the third, named before they start
    assert calibration.state()["player"] == 3 and calibration.state()["name"] == "Beto"
    calibration.act("next")
    assert calibration.state()["name"] == "Beto"
    spoken(calibration, 1)
    assert wait_for(calibration, "done")["names"] == ["Ana", "Beto"]
    calibration.act("rename", index=1, name="")  # names taken away from the list
    calibration.act("rename", index=2, name="")
    assert calibration.state()["names"] == ["", ""]
    calibration.act("rename", index=2, kept=2, name="  Ana   María\n")
    assert calibration.state()["names"] == ["", "Ana María"] == kept_recordings.player_names(tmp_path)
    assert log[-1] == "escucha: la voz del jugador 2 es la de Ana María"
    with pytest.raises(ValueError, match="la lista de voces cambió"):
        calibration.act("rename", index=1, kept=3, name="Juan")
    with pytest.raises(ValueError, match="el nombre es muy largo: hasta 30 letras"):
        calibration.act("rename", index=1, name="J" * 31)
    calibration.act("rename", index=1, name="Juan")
    calibration.act("close")

    calibration.act("add", 1)  # the new one comes last, with no name
    spoken(calibration, 1)
    assert wait_for(calibration, "done")["names"] == ["Juan", "Ana María", ""]
    calibration.act("close")
    calibration.act("remove", index=1, kept=3)
    assert calibration.state()["message"] == "Saco la voz de Juan y calibro con las de los demás…"
    state = wait_for(calibration, "done")
    assert state["message"].startswith("Listo: saqué la voz de Juan; quedan 2 jugadores")
    assert state["names"] == ["Ana María", ""] == kept_recordings.player_names(tmp_path)
    assert [p.name for p in kept_recordings.kept_players(tmp_path)] == ["Ana María", ""]
    calibration.act("rename", index=1, name="")  # a name taken away
    assert calibration.state()["names"] == ["", ""] and log[-1].endswith("ya no tiene nombre")
    assert not (kept_recordings.prompts_dir(tmp_path) / "jugador-1" / kept_recordings.NAME_FILE).exists()


def test_the_players_kept_keep_the_order_they_were_calibrated_in(tmp_path: Path) -> None:
    from referee.asr import kept_recordings

    voices = [[(bytes([k, 0]) * 800, "truco"), (bytes([k, 1]) * 800, "quiero")] for k in range(12)]
    kept_recordings.save_prompts(tmp_path, voices)
    assert [v[0][0][:2] for v in kept_recordings.saved_prompts(tmp_path)] == [bytes([k, 0]) for k in range(12)]
    sample = kept_recordings.voice_sample(tmp_path, 11, phrases=1)
    assert sample is not None
    with wave.open(io.BytesIO(sample)) as w:
        assert w.readframes(800) == bytes([10, 0]) * 800


def test_a_calibration_that_breaks_ends_failed_and_the_panel_with_it(tmp_path: Path) -> None:
    def broken(models_dir: Path, model_dir: Path, voices: Any, names: Any) -> tuple[Path, Any]:
        raise np.linalg.LinAlgError("Singular matrix")

    calibration = TableCalibration(lambda _: None, tmp_path, Recognizer(tmp_path), lambda _: None,
                                   prompts=("truco",), fit=broken)
    calibration.act("start", 1)
    spoken(calibration, 1)
    state = wait_for(calibration, "failed", seconds=10)
    assert state["message"] == "No pude calibrar: Singular matrix" and not state["calibrated"]
    calibration.act("close")


def test_what_the_disk_refuses_is_said(tmp_path: Path) -> None:
    def full(models_dir: Path, model_dir: Path, voices: Any, names: Any) -> tuple[Path, Any]:
        raise OSError(28, "No space left on device", str(models_dir / "voice-calibration"))

    recognizer = Recognizer(tmp_path, means=tmp_path / "means")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco",), fit=full)
    calibration.act("start", 1)
    spoken(calibration, 1)
    state = wait_for(calibration, "failed", seconds=10)
    assert state["message"] == (f"No pude guardar la calibración en {tmp_path}/voice-calibration: "
                                "no queda lugar en el disco")
    (tmp_path / "voice-calibration").write_text("not a folder")  # in the calibration's place
    with pytest.raises(ValueError, match="^no pude borrar la calibración en .*voice-calibration"):
        calibration.act("forget")
    assert recognizer.used == [] and calibration.state()["calibrated"]


def short_fit(models_dir: Path, model_dir: Path, voices: Any, names: Any) -> tuple[Path, Any]:
    """``keeping_fit`` that, as ``calibrate_prompts``, refuses too little speech: here, fewer
    than three phrases in all."""
    from referee.asr.base import RecognizerError

    if sum(len(v) for v in voices) < 3:
        raise RecognizerError("calibration-short", "muy poca voz para calibrar")
    return keeping_fit(models_dir, model_dir, voices, names)


def test_a_player_taken_out_leaving_too_little_to_calibrate_on_takes_the_calibration_along(
        tmp_path: Path) -> None:
    """Their recordings go whatever is left: with too little of the others' to fit on, the
    calibration is forgotten, and the table told so (not «No pude calibrar», their voice kept)."""
    from referee.asr import kept_recordings, learn

    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco", "quiero"), fit=short_fit)
    calibration.act("start", 2)
    spoken(calibration, 2)
    calibration.act("next")
    spoken(calibration, 1)
    calibration.act("skip")
    wait_for(calibration, "done")
    calibration.act("close")
    assert kept_recordings.kept_voices(tmp_path) == 2
    calibration.act("remove", index=1, kept=2)  # the one who said both: one phrase is left
    state = wait_for(calibration, "done")
    assert state["message"].startswith("Saqué la voz del jugador 1, pero con las grabaciones de "
                                       "los demás no alcanza para calibrar: muy poca voz")
    assert "Ya escucho con la calibración" not in state["message"]
    assert state["calibrated"] is False and state["kept"] == 0 == kept_recordings.kept_voices(tmp_path)
    assert recognizer.used[-1] is None and "means" not in learn.note(tmp_path)


def test_a_name_another_player_has_is_refused_as_they_are_recorded(tmp_path: Path) -> None:
    recognizer = Recognizer(tmp_path / "model")
    calibration = TableCalibration(lambda _: None, tmp_path, recognizer, lambda _: None,
                                   prompts=("truco",), fit=keeping_fit)
    calibration.act("start", 2)
    calibration.act("name", name="Ana")
    spoken(calibration, 1)
    with pytest.raises(ValueError, match="ya hay un jugador que se llama ana"):
        calibration.act("name", name="ana")
    calibration.act("name", name="Beto")
    calibration.act("next")
    spoken(calibration, 1)
    assert wait_for(calibration, "done")["names"] == ["Ana", "Beto"]
    calibration.act("close")
    calibration.act("add", 1)  # one who sat down later, among those kept
    with pytest.raises(ValueError, match="ya hay un jugador que se llama BETO"):
        calibration.act("name", name="BETO")
    with pytest.raises(ValueError, match="es un número"):
        calibration.act("name", name="2")

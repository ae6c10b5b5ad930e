"""Voice calibration (MLLR by class + MAP means) with real PocketSphinx on real corpus audio."""

from __future__ import annotations

import csv
import shutil
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from referee.asr import kept_recordings
from referee.asr import learn as voice_learning
from referee.asr.adapt import Stats, adapted_means, calibrate
from referee.asr.alignment import Aligner, Alignments
from referee.asr.base import RecognizerError
from referee.asr.calibration_folder import find_calibration, save_calibration
from referee.asr.cepstra import mfcc, voice_mean
from referee.asr.find import classify, find_model
from referee.asr.grammar import PhraseList
from referee.asr.ptm_model import PtmModel, _read_s3, write_means
from referee.asr.sphinx import SphinxRecognizer
from referee.audio import AudioError
from referee.cli import main
from referee.commands import voices_fit
from referee.commands.voices_wav import from_wav_dir
from referee.device_status import NARROW_CALIBRATION
from referee.phrases import parse
from referee.wav import read_pcm

CALIBRATION_RENDER = ("normal", "low")


def pcm(shared_dir: Path, row: dict[str, str]) -> bytes:
    return read_pcm(shared_dir / "speech" / row["file"])


def test_features_are_the_ones_pocketsphinx_computes(shared_dir: Path, model: Path,
                                                     rows: list[dict[str, str]]) -> None:
    import pocketsphinx

    decoder = pocketsphinx.Decoder(pocketsphinx.Config(hmm=str(model), loglevel="FATAL"))
    for row in rows[:3]:
        audio = pcm(shared_dir, row)
        decoder.start_utt()
        decoder.process_raw(audio, True, True)  # whole utterance: CMN takes its mean
        decoder.end_utt()
        theirs = np.array([float(v) for v in decoder.get_cmn().split(",")])
        np.testing.assert_allclose(voice_mean([mfcc(audio)]), theirs, atol=0.02)


def test_means_file_has_sphinx_layout_and_loads(tmp_path: Path, model: Path) -> None:
    ptm = PtmModel.load(model)
    path = tmp_path / "means"
    write_means(path, ptm.means)
    dims, data = _read_s3(path)
    assert dims == [26, 3, 128, 13, 13, 13]
    np.testing.assert_allclose(data.reshape(ptm.means.shape), ptm.means, rtol=1e-6)
    rec = SphinxRecognizer(PhraseList.from_table(), model, means=path)
    assert rec.means == path


def test_vowels_and_consonants_get_their_own_transform(model: Path) -> None:
    ptm = PtmModel.load(model)
    a, b, e, p = (ptm.phones.index(ph) for ph in ("a", "b", "e", "p"))
    stats = Stats.empty(ptm)
    for cb, shift in ((a, 0.5), (b, -0.5)):  # every Gaussian of "a" and "b" seen, shifted
        stats.occ[cb] = 10.0
        stats.sum[cb] = 10.0 * (ptm.means[cb] + shift)
    means = adapted_means(ptm, stats)
    np.testing.assert_allclose(means[a], ptm.means[a] + 0.5, atol=1e-3)
    np.testing.assert_allclose(means[e], ptm.means[e] + 0.5, atol=1e-3)  # unseen vowel
    np.testing.assert_allclose(means[p], ptm.means[p] - 0.5, atol=1e-3)  # unseen consonant



def test_a_relearning_aligns_only_the_utterances_new_to_it(
        shared_dir: Path, model: Path, rows: list[dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve --learn`` adapts every few minutes on the newest phrases of play: those aligned
    the round before are not aligned again, and the means are those of aligning them all."""
    script = [(pcm(shared_dir, r), r["text"]) for r in rows
              if (r["speed"], r["pitch"]) == CALIBRATION_RENDER]
    aligned: list[str] = []
    align = Aligner.align

    def counted(self: Aligner, cep: np.ndarray, cmn: np.ndarray, text: str):  # type: ignore[no-untyped-def]
        aligned.append(text)
        return align(self, cep, cmn, text)

    monkeypatch.setattr(Aligner, "align", counted)
    kept = Alignments()
    calibrate(model, [script[:24]], kept)
    assert len(aligned) == 24 == len(kept)
    aligned.clear()
    means, _ = calibrate(model, [script[4:30]], kept)  # four older gone, six new
    assert len(aligned) == 6 and len(kept) == 26  # what this round did not ask for is dropped
    aligned.clear()
    whole, _ = calibrate(model, [script[4:30]])
    assert len(aligned) == 26
    np.testing.assert_allclose(means, whole, atol=1e-4)


def heard_right(rec: SphinxRecognizer, audio: bytes, label: str) -> bool:
    rec.reset()
    texts = [r.text for r in rec.feed(audio) + rec.flush() if r.final]
    got = [h.label if h.kind == "call" else f"puntos:{h.points}"
           for text in texts for h in parse(text) if h.kind != "decoy"]
    return label in got


def test_calibration_hears_other_renders_of_the_voice_better(shared_dir: Path, model: Path,
                                                             rows: list[dict[str, str]],
                                                             tmp_path: Path) -> None:
    script = [r for r in rows if (r["speed"], r["pitch"]) == CALIBRATION_RENDER]
    tests = [r for r in rows if (r["speed"], r["pitch"]) in (("slow", "high"), ("fast", "high"))]
    assert len(script) == 34 and len(tests) == 68
    means, stats = calibrate(model, [[(pcm(shared_dir, r), r["text"]) for r in script]])
    assert stats.frames > 1000
    path = tmp_path / "means"
    write_means(path, means)
    plain = SphinxRecognizer(PhraseList.from_table(), model)
    calibrated = SphinxRecognizer(PhraseList.from_table(), model, means=path)
    for rec in (plain, calibrated):  # both start from this voice's cepstral mean
        for r in script[:20]:
            rec.settle(pcm(shared_dir, r))
    start = {id(rec): rec.cepstral_mean for rec in (plain, calibrated)}
    score = {"plain": 0, "calibrated": 0}
    for r in tests:
        audio = pcm(shared_dir, r)
        for name, rec in (("plain", plain), ("calibrated", calibrated)):
            rec.cepstral_mean = start[id(rec)]
            score[name] += heard_right(rec, audio, r["label"])
    assert score["calibrated"] >= score["plain"] + 5, score


def test_voices_calibrate_from_a_wav_folder_is_found_by_listen(
        shared_dir: Path, model: Path, rows: list[dict[str, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    (models / "sphinx").mkdir(parents=True)
    (models / "sphinx" / "acoustic_model").symlink_to(model)
    wavs = tmp_path / "wavs"
    wavs.mkdir()
    for r in rows:
        if (r["speed"], r["pitch"]) == CALIBRATION_RENDER:
            (wavs / f"{r['text'].replace(' ', '_')}.wav").symlink_to(shared_dir / "speech" / r["file"])
    assert main(["voices", "calibrate", "--wav-dir", str(wavs), "--models-dir", str(models)]) == 0
    assert NARROW_CALIBRATION not in capsys.readouterr().out  # the corpus's voices: full band
    assert voice_learning.note(models)["narrow"] is False
    one_voice = (models / "voice-calibration" / "means").read_bytes()
    # A table calibrates its players one after another: one folder each.
    second = tmp_path / "wavs-2"
    second.mkdir()
    for r in rows:
        if (r["speed"], r["pitch"]) == ("slow", "high"):
            (second / f"{r['text'].replace(' ', '_')}.wav").symlink_to(shared_dir / "speech" / r["file"])
    assert main(["voices", "calibrate", "--wav-dir", str(wavs), "--wav-dir", str(second),
                 "--name", "Ana", "--name", "Beto", "--name", "Caro",
                 "--models-dir", str(models)]) == 2  # a name more than players: nothing done
    assert "Hay 3 nombres para 2 jugadores" in capsys.readouterr().err
    assert main(["voices", "calibrate", "--wav-dir", str(wavs), "--wav-dir", str(second),
                 "--name", "Ana", "--name", "Beto", "--models-dir", str(models)]) == 0
    said = capsys.readouterr().out  # the one kept before is replaced, and it says so
    assert said.startswith("Ojo: esto reemplaza la calibración de 1 jugador; con --add, ")
    assert " en lugar de la de 1 jugador; 'listen' y 'serve' la usan solos " in said
    assert (models / "voice-calibration" / "means").read_bytes() != one_voice
    two_voices = (models / "voice-calibration" / "means").read_bytes()
    # One who sits down later is added: only they say the prompts, fitted with the two kept.
    capsys.readouterr()
    assert main(["voices", "calibrate", "--add", "--wav-dir", str(second),
                 "--models-dir", str(models)]) == 0
    assert "de 1 voz y las de 2 ya calibradas" in capsys.readouterr().out
    assert kept_recordings.kept_voices(models) == 3
    assert (models / "voice-calibration" / "means").read_bytes() != two_voices
    assert main(["voices", "name", "--player", "3", "--name", "Caro", "--models-dir",
                 str(models)]) == 0
    assert capsys.readouterr().out == "El jugador 3 se llama Caro.\n"
    assert main(["voices", "name", "--player", "Dani", "--name", "Caro", "--models-dir",
                 str(models)]) == 2
    assert "No hay un solo jugador que se llame «Dani»" in capsys.readouterr().err
    assert main(["voices", "list", "--models-dir", str(models)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith(f"Calibración de las voces: {models / 'voice-calibration' / 'means'}")
    assert listed[-4] == ("Jugadores con sus grabaciones guardadas ('voices forget --player N' "
                          "saca uno, 'voices name --player N --name Juan' le pone nombre):")
    prompts = models / "voice-calibration" / "prompts"
    assert [line.split(": ")[-1] for line in listed[-3:]] == [
        str(prompts / f"jugador-{k}") for k in (1, 2, 3)]
    assert all(line.startswith(f"  {k}. {name}: ") and " s de grabación: " in line
               for k, name, line in zip((1, 2, 3), ("Ana", "Beto", "Caro"), listed[-3:]))
    # One who leaves is removed: fitted again on the others, as before they sat down.
    assert main(["voices", "forget", "--player", "4", "--models-dir", str(models)]) == 2
    assert "No hay un jugador 4 entre las voces calibradas guardadas (hay 3: " in capsys.readouterr().err
    assert main(["voices", "calibrate", "--player", "1", "--models-dir", str(models)]) == 2
    assert main(["voices", "forget", "--players", "3", "--models-dir", str(models)]) == 2
    assert "'voices forget --player N'" in capsys.readouterr().err  # nobody forgotten by a slip
    assert kept_recordings.kept_voices(models) == 3
    learned_at = voice_learning.note(models)
    assert main(["voices", "forget", "--player", "caro", "--models-dir", str(models)]) == 0
    said = capsys.readouterr().out
    assert "Listo: saqué la voz de Caro" in said and "De lo jugado hasta ahora ya no aprendo" in said
    forgotten = voice_learning.note(models)  # what was played holds her voice: not learned again
    assert forgotten["forgotten_at"] > learned_at.get("forgotten_at", 0.0)
    assert forgotten["prompts"] < learned_at["prompts"] and forgotten["model"] == learned_at["model"]
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]
    assert (models / "voice-calibration" / "means").read_bytes() == two_voices
    assert main(["voices", "calibrate", "--add", "--wav-dir", str(second),
                 "--models-dir", str(models)]) == 0
    choice = find_model(models, "sphinx")
    assert choice.calibration == models / "voice-calibration" / "means"
    assert "calibración" in choice.label
    assert find_calibration(models, tmp_path) is None  # only for the model it was made for
    # it follows the models folder moved or copied whole, and a model given by --model
    moved = tmp_path / "moved"
    shutil.copytree(models, moved, symlinks=True)
    assert find_model(moved, "sphinx").calibration == moved / "voice-calibration" / "means"
    assert classify(models / "sphinx", models).calibration == models / "voice-calibration" / "means"
    assert main(["voices", "forget", "--models-dir", str(models)]) == 0
    assert find_model(models, "sphinx").calibration is None
    assert main(["voices", "calibrate", "--add", "--wav-dir", str(second),
                 "--models-dir", str(models)]) == 2  # nobody kept to add to: said, nothing done
    assert "calibrá sin --add" in capsys.readouterr().err
    # The es-MX voice, 8 kHz telephone sound: calibrated through that line, and said so.
    phone = tmp_path / "telefono"
    phone.mkdir()
    with (shared_dir / "speech" / "real_manifest.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if r["accent"] == "es-MX" and r["label"].startswith("puntos:"):
                (phone / f"{r['text'].replace(' ', '_')}.wav").symlink_to(shared_dir / "speech" / r["file"])
    capsys.readouterr()
    assert main(["voices", "calibrate", "--wav-dir", str(phone), "--models-dir", str(models)]) == 0
    assert NARROW_CALIBRATION in capsys.readouterr().out
    assert voice_learning.note(models)["narrow"] is True
    assert main(["voices", "forget", "--player", "1", "--models-dir", str(models)]) == 0
    assert "la única calibrada: borré la calibración" in capsys.readouterr().out
    assert find_model(models, "sphinx").calibration is None
    assert main(["voices", "list", "--models-dir", str(models)]) == 0
    assert capsys.readouterr().out.startswith("No hay calibración de las voces en ")


def test_wavs_not_named_after_what_they_say_are_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "grabaciones"
    folder.mkdir()

    def recording(name: str) -> None:
        with wave.open(str(folder / name), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(_tone(1600))

    recording("Vale_Cuatro.WAV")  # as a phone names it: found, and read as what it says
    assert [text for _, text in from_wav_dir(folder)] == ["vale cuatro"]
    recording("grabacion 0.wav")
    with pytest.raises(AudioError, match="grabacion 0.wav no se llama como lo que dice: "):
        from_wav_dir(folder)
    recording("truco (copia).wav")
    with pytest.raises(AudioError, match=r"grabacion 0.wav, truco \(copia\).wav no se llaman como "
                       "lo que dicen: "):
        from_wav_dir(folder)


@pytest.mark.parametrize(("name", "text"), [
    ("truco.wav", "truco"),
    ("vale_cuatro-2.wav", "vale cuatro"),
    ("me_voy_al_mazo-9.wav", "me voy al mazo"),  # as a calibration keeps its recordings
    ("veintidós-3.wav", "veintidós"),
    ("son-buenas.wav", "son buenas"),  # before: «son»
    ("vale-cuatro.wav", "vale cuatro"),  # before: «vale», a look-alike
    ("me-voy-al-mazo.wav", "me voy al mazo"),  # before: «me»
    ("treinta-y-tres.wav", "treinta y tres"),  # before: «treinta», another number
    ("treinta-y-tres-12.wav", "treinta y tres"),
    ("Son Buenas.WAV", "Son Buenas"),  # as written: whether it is a phrase is asked after
    ("jugador-3", "jugador"),
])
def test_a_recording_says_its_whole_name_but_the_take(name: str, text: str) -> None:
    assert kept_recordings.prompt_text(Path(name)) == text


def test_a_wav_folder_is_read_by_whole_phrases_and_skips_what_is_no_recording(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "grabaciones"
    folder.mkdir()

    def recording(name: str, seconds: float = 0.5) -> None:
        with wave.open(str(folder / name), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(_tone(int(seconds * 16000)))

    for name in ("son-buenas.wav", "Veintidos-2.wav", "me_voy_al_mazo-3.wav"):
        recording(name)
    (folder / "._son-buenas.wav").write_bytes(b"\0\5\26\7" + bytes(60))  # a Mac's, beside it
    recording("quiero.wav", seconds=0)  # nothing recorded
    got = from_wav_dir(folder)
    assert sorted(text for _, text in got) == ["me voy al mazo", "son buenas", "veintidós"]
    assert capsys.readouterr().out == f"En {folder} salteo quiero.wav: no tiene sonido (dura 0 segundos).\n"
    for name in ("me.wav", "voy-al.wav", "son-buenas-copia.wav", "truco 2.wav"):
        recording(name)  # not a whole phrase: refused by name, as before a calibration on «me»
        with pytest.raises(AudioError, match=f"{name} no se llama como lo que dice"):
            from_wav_dir(folder)
        (folder / name).unlink()
    for name in ("son-buenas.wav", "Veintidos-2.wav", "me_voy_al_mazo-3.wav"):
        recording(name, seconds=0)
    with pytest.raises(AudioError, match="ningún .wav tiene sonido"):
        from_wav_dir(folder)


def test_too_little_speech_is_a_plain_error(model: Path) -> None:
    silence = b"\0\0" * 16000
    with pytest.raises(RecognizerError, match="muy poca voz"):
        calibrate(model, [[(silence, "truco")]])


def test_saved_calibration_names_its_model(tmp_path: Path, model: Path) -> None:
    ptm = PtmModel.load(model)
    path = save_calibration(tmp_path, model, ptm.means, Stats.empty(ptm))
    assert find_calibration(tmp_path, model) == path


@pytest.mark.parametrize("cut", ["means", "variances", "sendump"])
def test_a_model_file_cut_short_is_said_by_name_not_a_traceback(
        cut: str, model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model copied by hand, one of its files cut short: calibrating says which, and how to
    mend it, instead of numpy's «buffer is smaller than requested size»."""
    copy = tmp_path / "acoustic_model"
    copy.mkdir()
    for path in model.iterdir():
        if path.name == cut:
            (copy / cut).write_bytes(path.read_bytes()[:path.stat().st_size // 2])
        else:
            (copy / path.name).symlink_to(path)
    with pytest.raises(RecognizerError) as err:
        PtmModel.load(copy)
    assert err.value.code == "model-broken"
    assert f"no puedo leer {cut}: está cortado o dañado" in err.value.message
    assert str(copy) in err.value.message and "models fetch" in err.value.message
    # 'voices calibrate' (and the tablet's calibration, and 'voices learn') says it and goes on
    said = [[(b"\0\0" * 16000, "truco")]]
    assert voices_fit.fit_and_keep(tmp_path / "models", copy, lambda: said, [], lambda *_: "") == 2
    err_said = capsys.readouterr().err
    assert err_said.startswith("No pude calibrar: ") and f"no puedo leer {cut}: " in err_said
    assert not (tmp_path / "models").exists()


def test_a_player_taken_out_leaving_too_little_to_calibrate_on_takes_the_calibration_along(
        shared_dir: Path, model: Path, rows: list[dict[str, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Juan calibrated with all the prompts, Pepe with three: Juan taken out, Pepe's three are
    too little to calibrate on.  Juan's recordings go all the same, and the calibration with
    them: the referee hears without one, and says so."""
    models = tmp_path / "models"
    (models / "sphinx").mkdir(parents=True)
    (models / "sphinx" / "acoustic_model").symlink_to(model)
    said = [(pcm(shared_dir, r), r["text"]) for r in rows
            if (r["speed"], r["pitch"]) == CALIBRATION_RENDER]
    kept_recordings.save_prompts(models, [said, said[:3]], ["Juan", "Pepe"])
    ptm = PtmModel.load(model)
    save_calibration(models, models / "sphinx" / "acoustic_model", ptm.means, Stats.empty(ptm),
                     prompts=len(said) + 3, heard=0, learned_until=0.0)
    assert find_model(models, "sphinx").calibration is not None
    before = time.time()
    # before: «No pude calibrar: muy poca voz…», exit 2, Juan's recordings kept
    assert main(["voices", "forget", "--player", "Juan", "--models-dir", str(models)]) == 0
    out = capsys.readouterr().out
    assert ("Saqué la voz de Juan, pero con las grabaciones de los demás no alcanza para "
            "calibrar: muy poca voz para calibrar") in out
    assert "el árbitro escucha sin calibración, y 'voices calibrate' hace una nueva" in out
    assert kept_recordings.kept_voices(models) == 0
    assert find_model(models, "sphinx").calibration is None
    assert voice_learning.note(models)["forgotten_at"] >= before  # play holds his voice
    assert main(["voices", "list", "--models-dir", str(models)]) == 0
    assert capsys.readouterr().out.startswith("No hay calibración de las voces en ")


def _tone(frames: int) -> bytes:
    """A sound a calibration takes as a recording (pure silence it skips as no voice)."""
    return (3000 * np.sin(np.arange(frames) * 0.3)).astype("<i2").tobytes()

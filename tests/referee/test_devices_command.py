"""``truco-referee devices``: the microphones with what to do with them, and, when there is none,
why, in Spanish; a failure of the audio system is a failure (1), not a mistake on the command
line (2)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.commands import devices


class FakeSoundDevice:
    """``sounddevice`` as PortAudio shows it: some input devices (name, default?), no PortAudio
    library, or an audio system that fails when asked."""

    class PortAudioError(Exception):
        pass

    def __init__(self, names: list[tuple[str, bool]], failure: BaseException | None = None) -> None:
        self.names = names
        self.failure = failure

    @property
    def default(self) -> Any:
        if self.failure:
            raise self.failure
        marked = [i for i, (_, is_default) in enumerate(self.names) if is_default]
        return type("Default", (), {"device": (marked[0] if marked else -1, -1)})()

    def query_devices(self) -> list[dict[str, Any]]:
        return [{"name": n, "max_input_channels": 1, "default_samplerate": 16000.0}
                for n, _ in self.names]


def _devices(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             names: list[tuple[str, bool]], failure: BaseException | None = None,
             ) -> tuple[int, str, str]:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice(names, failure))
    code = main(["devices"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("failure", "said"), [
    (OSError("PortAudio library not found"),
     "falta PortAudio (libportaudio2): instalalo con 'sudo apt install libportaudio2'"),
    (FakeSoundDevice.PortAudioError("Error querying device -1"),
     "no puedo hablar con el sistema de audio"),
], ids=["no PortAudio", "audio system fails"])
def test_an_audio_system_that_cannot_be_asked_is_a_failure_said_in_spanish(
        failure: BaseException, said: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _devices(monkeypatch, capsys, [], failure)
    assert code == 1  # before: 2, the code of a mistake on the command line
    assert err.startswith("No puedo ver los micrófonos: ") and said in err
    assert "library not found" not in err and out == ""


def _sound_cards(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "snd"
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(b"")
    return folder


@pytest.mark.parametrize(("cards", "usable", "said"), [
    (None, True, "No veo ningún sistema de audio: la computadora no muestra ninguna placa"),
    (("controlC0", "seq", "timer"), True, "No veo ningún sistema de audio"),
    (("controlC0", "pcmC0D0c", "pcmC0D0p"), False,
     "No tengo permiso para usar el audio (no puedo abrir lo que hay en "),
    (("controlC0", "pcmC0D0c", "pcmC0D0p"), True,
     "No hay ningún micrófono conectado. Enchufá uno y volvé a probar."),
], ids=["no /dev/snd", "no card", "no permission", "none plugged"])
def test_no_microphone_says_why(cards: tuple[str, ...] | None, usable: bool, said: str,
                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    folder = tmp_path / "no-hay" if cards is None else _sound_cards(tmp_path, *cards)
    monkeypatch.setattr(devices, "SOUND_DEVICES", folder)
    monkeypatch.setattr(os, "access", lambda path, mode: usable)
    code, out, err = _devices(monkeypatch, capsys, [])
    assert code == 1 and said in err and out == ""  # before: «Enchufá uno» whatever the reason
    if said != devices.NONE_PLUGGED:
        assert "Enchufá uno y volvé" not in err
    if not usable:
        assert "grupo audio" in err


def test_the_list_says_how_to_choose_one(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _devices(monkeypatch, capsys, [("USB mic", False), ("default", True)])
    assert code == 0
    assert "*   1  default" in out and "    0  USB mic" in out
    assert devices.DEFAULT_MARK in out
    # before: only «Elegí con: truco-referee listen --mic NÚMERO»
    for said in ("--mic NÚMERO o --mic NOMBRE", "'truco-referee serve'",
                 "'truco-referee voices calibrate'", "truco-referee serve --mic 0"):
        assert said in out


def test_the_default_mark_is_explained_only_when_one_is_marked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _devices(monkeypatch, capsys, [("USB mic", False)])
    assert code == 0 and "*" not in out and "--mic NOMBRE" in out

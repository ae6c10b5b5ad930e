"""`serve` listening to a microphone, as at a table: a sound device the test speaks into in real
time (ALSA's ``file`` plugin reading a named pipe, heard through PortAudio and sounddevice as any
microphone is), and the table's voices calibrated from the tablet's API while the game goes on."""

from __future__ import annotations

import csv
import fcntl
import io
import math
import os
import re
import threading
import time
import wave
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee import clip_codec
from referee.asr.calibration_folder import find_calibration
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.calibration_prompts import PROMPTS
from referee.listener import HOLD_S
from referee.table_sound import keep_lag, lag_file
from referee.wav import read_wav
from tests.e2e.test_serve_end_to_end import Serve
from tests.referee.conftest import HELD_OUT_VOICE
from tests.referee.test_learn import play
from tests.referee.test_voices_mic import prompts_said
from web_scoreboard.app import DB_NAME
from web_scoreboard.store import Store

STEP = 1600  # samples the device gives at a time: 0.1 s at 16 kHz, 16-bit mono
ASOUNDRC = """pcm.{name} {{
    type file
    slave.pcm "null"
    file "/dev/null"
    infile "{pipe}"
    format "raw"
}}
"""
TEAM_VOICE = ("pico:es-ES", "normal", "low")  # a voice the settings were chosen on: heard surely
SAID = 14  # prompts the player says before skipping the rest (the numbers): 8 s of speech
F_SETPIPE_SZ = 1031


class TableMic:
    """A capture device named ``name`` for a process whose HOME is ``home``: its own quiet
    noise, with what ``say`` is given, as a microphone hears it (``Room``), handed over ``late_s``
    after it was heard (in steps of 0.1 s).  ``unplug`` stops its sound for a while, as a
    microphone pulled out and plugged in again; ``lose`` drops some of what it hears, as a device
    whose sound the machine was too busy to take."""

    def __init__(self, home: Path, name: str, late_s: float = 0.0) -> None:
        pipe = home / f"{name}.raw"
        os.mkfifo(pipe)
        with (home / ".asoundrc").open("a", encoding="utf-8") as fh:
            fh.write(ASOUNDRC.format(name=name, pipe=pipe))
        # Read and write: opening never waits for the reader, and sound nobody reads is dropped.
        self._fd = os.open(pipe, os.O_RDWR | os.O_NONBLOCK)
        fcntl.fcntl(self._fd, F_SETPIPE_SZ, 4096)  # a device keeps little (0.13 s): sound is live
        # each microphone's own quiet noise (not another's: two alike show their lag in silence)
        self._rng = np.random.default_rng(zlib.crc32(name.encode()))
        self._said: deque[np.ndarray] = deque()
        self._silent_until = 0.0
        self._losing = 0  # chunks it hears and drops
        # what it heard and has not handed over yet: a device ``late_s`` slower than another
        self._holding = deque((np.zeros(STEP), False) for _ in range(round(late_s / 0.1)))

    def say(self, pcm: np.ndarray, pause_s: float = 0.6) -> None:
        """A pause, then the phrase (floats, 16 kHz), after what was given before."""
        data = np.concatenate([np.zeros(int(pause_s * 16000)), pcm.ravel()])
        data = np.pad(data, (0, -len(data) % STEP))
        self._said.extend(data[i:i + STEP] for i in range(0, len(data), STEP))

    @property
    def saying(self) -> bool:
        """Whether some of what it was given is still to be heard, or to be handed over."""
        return bool(self._said) or any(said for _, said in self._holding)

    def unplug(self, seconds: float) -> None:
        self._silent_until = time.monotonic() + seconds

    def lose(self, seconds: float) -> None:
        self._losing = round(seconds / 0.1)

    def hear(self) -> None:
        """The next 0.1 s: what is said, over the microphone's own quiet noise."""
        if time.monotonic() < self._silent_until:
            return
        said = bool(self._said)
        sound = self._said.popleft() if said else 0.0
        noise = self._rng.normal(0, 0.001, STEP)  # always there
        self._holding.append((sound + noise, said))
        sound, _ = self._holding.popleft()
        if self._losing:
            self._losing -= 1
            return
        try:
            os.write(self._fd, (np.clip(sound, -1, 1) * 32767).astype("<i2").tobytes())
        except BlockingIOError:
            pass  # the device is not being read: what it heard is gone

    def close(self) -> None:
        os.close(self._fd)


class Room:
    """The microphones of one table, made on demand: every one hears the room at the same
    moments, 0.1 s at a time, as sound reaches them all at once."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.mics: list[TableMic] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def mic(self, name: str, late_s: float = 0.0) -> TableMic:
        self.mics.append(TableMic(self.home, name, late_s))
        return self.mics[-1]

    def _run(self) -> None:
        due = time.monotonic()
        while not self._stop.is_set():
            for mic in list(self.mics):
                mic.hear()
            due += 0.1
            time.sleep(max(0.0, due - time.monotonic()))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for mic in self.mics:
            mic.close()


def wait_for(ready: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := ready()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)
    return got


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    """Sound devices for a `serve` whose HOME is ``tmp_path``."""
    pytest.importorskip("sounddevice", reason="needs sounddevice and PortAudio (libportaudio2)")
    table = Room(tmp_path)
    yield table
    table.close()


def serve_hearing(tmp_path: Path, model: Path, *mics: str) -> Serve:
    """`serve` listening to these devices with the Spanish Sphinx model, its models directory
    (where a calibration is kept) and its store in ``tmp_path``."""
    options = [option for name in mics for option in ("--mic", name)]
    return Serve(*options, "--data-dir", str(tmp_path / "data"), "--models-dir",
                 str(tmp_path / "models"), "--recognizer", "sphinx", "--model", str(model),
                 env={"HOME": str(tmp_path)})


def team_voice(shared_dir: Path, group: str) -> dict[str, Path]:
    """``TEAM_VOICE``'s files of a group of the corpus (calls, envido numbers), by what they say."""
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        return {r["text"]: shared_dir / "speech" / r["file"] for r in csv.DictReader(fh)
                if (r["voice"], r["speed"], r["pitch"]) == TEAM_VOICE and r["group"] == group}


def team_mics(room: Room, b_late_s: float = 0.0) -> dict[str, TableMic]:
    """A microphone per team, ``mesaA`` and ``mesaB`` (``b_late_s`` slower)."""
    return {"A": room.mic("mesaA"), "B": room.mic("mesaB", b_late_s)}


def serve_with_team_mics(shared_dir: Path, tmp_path: Path) -> Serve:
    """`serve` with the microphones of ``team_mics``, once it hears both."""
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    serve = serve_hearing(tmp_path, model, "mesaA", "mesaB")
    try:
        wait_for(lambda: mic_is(serve, "mic A", "ok") and mic_is(serve, "mic B", "ok"), 30,
                 "both microphones to be heard")
    except BaseException:
        serve.stop()
        raise
    return serve


def said_in_front_of(mics: dict[str, TableMic], team: str, voice: np.ndarray,
                     pause_s: float = 0.6) -> None:
    """A phrase said by a player in front of its team's microphone, heard by the other too,
    fainter."""
    for near, mic in mics.items():
        mic.say(voice if near == team else 0.3 * voice, pause_s=pause_s)


def heard_once_said(serve: Serve, mics: list[TableMic], count: int) -> list[dict[str, Any]]:
    """What the strip shows, newest first (``count`` items), once the microphones have heard
    all they were given and the pause after it: the whole phrase has judged its calls."""
    heard = all_heard(serve, mics)
    assert len(heard) == count, heard
    return heard


def all_heard(serve: Serve, mics: list[TableMic]) -> list[dict[str, Any]]:
    """What the strip shows, newest first, once the microphones have heard all they were given
    and the pause after it, longer than the referee holds a word that may go on (``HOLD_S``:
    «contraflor al» waits for «resto»)."""
    wait_for(lambda: not any(mic.saying for mic in mics), 60, "everything to be said")
    time.sleep(HOLD_S + 1.0)
    return list(serve.state()["heard"])


def mic_is(serve: Serve, key: str, state: str) -> bool:
    return any(s["key"] == key and s["state"] == state for s in serve.state().get("sources") or [])


def test_the_voices_are_calibrated_from_the_tablet_through_a_live_microphone(
        shared_dir: Path, tmp_path: Path, room: Room) -> None:
    said = prompts_said(shared_dir)  # one held-out voice's renders of the prompts
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    mic = room.mic("tablemic")
    serve = serve_hearing(tmp_path, model, "tablemic")
    try:
        printed = serve.wait_printed("calibración", timeout=30)
        assert "calibrá las voces de la mesa desde la tablet" in printed, printed

        def calibration() -> dict[str, Any]:
            return dict(serve.state()["calibration"])

        def shown(k: int) -> Callable[[], bool]:
            return lambda: bool(calibration()["index"] == k)

        wait_for(lambda: mic_is(serve, "mic", "ok"), 30, "the microphone to be heard")
        assert calibration()["state"] == "idle" and not calibration()["calibrated"]

        started = serve.api.post("/api/calibration", json={"action": "start", "players": 1})
        assert started.status_code == 200, started.text
        named = serve.api.post("/api/calibration", json={"action": "name", "name": "Ana"})
        assert named.status_code == 200 and calibration()["name"] == "Ana", named.text
        for k, text in enumerate(PROMPTS[:SAID], start=1):  # each said once it is shown
            wait_for(shown(k), 20, f"prompt {k}")
            assert calibration()["prompt"] == text
            if k == 3:  # pulled out and plugged in again before this one is said
                mic.unplug(4.0)
                wait_for(lambda: mic_is(serve, "mic", "trouble"), 20, "the microphone to be missed")
                wait_for(lambda: mic_is(serve, "mic", "ok"), 20, "the microphone to be back")
                now = calibration()  # the prompt shown waited for it
                assert (now["state"], now["index"], now["prompt"]) == ("listening", 3, text)
            mic.say(read_wav(said[text]))
        wait_for(shown(SAID + 1), 20, "the last prompt said")
        for k in range(SAID + 1, len(PROMPTS) + 1):  # «Saltear» on the rest
            skipped = serve.api.post("/api/calibration", json={"action": "skip", "index": k})
            assert skipped.status_code == 200, skipped.text
        state = wait_for(lambda: calibration() if calibration()["state"] in ("done", "failed")
                         else None, 60, "the fitting")
        assert state["state"] == "done", state["message"]
        assert state["message"].startswith(f"Listo: {SAID} frases") and state["calibrated"], state
        assert state["names"] == ["Ana"], state  # kept with her voice
        assert find_calibration(tmp_path / "models", model) is not None  # kept for the next session too

        # The prompts were not calls: the game has heard nothing yet.
        assert serve.state()["heard"] == [], serve.state()["heard"]
        assert serve.api.post("/api/calibration", json={"action": "close"}).status_code == 200
        mic.say(read_wav(said["truco"]), pause_s=1.0)  # and then the game goes on
        heard = heard_once_said(serve, [mic], 1)
        assert [(h["status"], h["text"]) for h in heard] == [("accepted", "truco")], heard
        # What was said is heard again from the referee's memory, its last minute at most.
        table = serve.api.post("/api/table-audio", json={"seconds": 600})
        assert table.status_code == 200, table.text
        with wave.open(io.BytesIO(table.content)) as w:
            kept = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2") / 32768.0
        assert 1.0 < len(kept) / 16000 <= 60.0
        windows = kept[:len(kept) // 8000 * 8000].reshape(-1, 8000)  # half seconds
        loudest = np.sqrt(np.mean(np.square(windows), axis=1)).max()
        assert loudest > 0.3 * np.sqrt(np.mean(np.square(read_wav(said["truco"]))))  # the «truco»
        # ... and kept with the game, as it was heard: among what was heard, with its sound.
        keep = serve.api.post("/api/table-audio/keep", json={"id": table.headers["x-table-audio"]})
        assert keep.status_code == 200, keep.text
        item = keep.json()["heard"][0]
        assert item["status"] == "kept" and item["text"].startswith("Sonido de la mesa: ")
        clip = serve.api.get(f"/api/clips/{item['clip_id']}").content
        assert clip[:4] == b"fLaC" and clip_codec.decode(clip) == clip_codec.decode(table.content)
        # The player leaves and their voice is taken out: the only one kept, so it is forgotten.
        voice = serve.api.get("/api/calibration/voices/1")  # whose voice it is
        assert voice.status_code == 200 and voice.content[:4] == b"RIFF", voice.text
        assert serve.api.get("/api/calibration/voices/2").status_code == 404
        named = serve.api.post("/api/calibration", json={"action": "rename", "index": 1,
                                                         "kept": 1, "name": "Ana López"})
        assert named.status_code == 200 and calibration()["names"] == ["Ana López"], named.text
        removed = serve.api.post("/api/calibration", json={"action": "remove", "index": 1})
        assert removed.status_code == 200, removed.text
        assert not calibration()["calibrated"] and calibration()["kept"] == 0
        assert find_calibration(tmp_path / "models", model) is None
    finally:
        printed = serve.stop()
    assert "calibrando las voces desde la tablet (un jugador)" in printed, printed
    assert "la voz de Ana es la de Ana López" in printed, printed
    assert re.search(r"la tablet volvió a oír los últimos \d+ s de la mesa", printed), printed
    assert re.search(r"la tablet guardó con la partida \d+ los \d+ s de la mesa que volvió a oír",
                     printed), printed
    assert "olvidé la calibración de las voces" in printed, printed


@pytest.mark.parametrize("lost_s", [0.0, 0.1], ids=["", "B-lost-0.1-s"])
def test_a_microphone_per_team_tells_who_spoke_and_keeps_what_it_heard(
        shared_dir: Path, tmp_path: Path, room: Room, lost_s: float) -> None:
    """Also where B's device loses some of its sound (the machine too busy to take it) a second
    before the first call, and the second call is said 10 s after the loss: B's sound after it
    was placed as heard that much earlier, the «truco» measured so, and 10 s on, once the
    arrivals from before the loss were forgotten, out of step by as much (the «quiero» was heard
    twice in 3 runs of 6)."""
    said = team_voice(shared_dir, "call")
    mics = team_mics(room)
    serve = serve_with_team_mics(shared_dir, tmp_path)
    try:
        lost_at = -math.inf  # none lost
        for k, (text, team) in enumerate([("truco", "B"), ("quiero", "A")], start=1):
            # a while after both microphones are heard, the first
            pause_s = 3.0 if k == 1 else max(0.6, lost_at + 10.2 - time.monotonic())
            said_in_front_of(mics, team, read_wav(said[text]), pause_s=pause_s)
            if k == 1 and lost_s:
                time.sleep(2.0)
                mics["B"].lose(lost_s)
                lost_at = time.monotonic()
            heard = heard_once_said(serve, list(mics.values()), k)
            assert (heard[0]["text"], heard[0]["team"]) == (text, team), heard[0]
            if heard[0]["status"] == "unsure":  # a doubtful one: tapped, as at the table
                confirmed = serve.api.post(f"/api/heard/{heard[0]['id']}/confirm")
                assert confirmed.status_code == 200, confirmed.text
            else:
                assert heard[0]["status"] == "accepted", heard[0]
        assert [line.split(":")[0][0] for line in serve.state()["log"][-2:]] == ["B", "A"]
        clip = serve.api.get(f"/api/clips/{heard[1]['clip_id']}")  # the truco, to settle it
        assert clip.status_code == 200 and clip.headers["content-type"] == "audio/flac"
        decoded = clip_codec.decode(clip.content)
        assert decoded is not None and 1.0 <= len(decoded[0]) / 2 / decoded[1] <= 3.5
    finally:
        serve.stop()


def test_the_first_calls_before_the_two_devices_are_in_step_are_heard_once(
        shared_dir: Path, tmp_path: Path, room: Room) -> None:
    """B's device 0.3 s slower, the first time: nothing heard yet tells how much.  An «envido»
    said in front of A as the game starts is heard once, A's, and B's «quiero» once, B's.  Cut to
    B's microphone as A's went quiet, the end of the «envido» was heard again from it: a second
    «envido», B's, applied as a raise."""
    said = team_voice(shared_dir, "call")
    mics = team_mics(room, b_late_s=0.3)
    serve = serve_with_team_mics(shared_dir, tmp_path)
    try:
        for text, team in [("envido", "A"), ("quiero", "B")]:
            said_in_front_of(mics, team, read_wav(said[text]), pause_s=1.0)
        heard = all_heard(serve, list(mics.values()))
        assert [(h["text"], h["team"]) for h in reversed(heard)] == [("envido", "A"),
                                                                      ("quiero", "B")], heard
        assert [line.split(":")[0] for line in serve.state()["log"][1:]] == ["A1", "B1"]
    finally:
        serve.stop()


@pytest.mark.parametrize(("b_late_s", "kept"), [(0.2, None), (0.4, None), (0.4, 0.0)],
                         ids=["0.2", "0.4", "0.4-kept-0"])
def test_a_first_call_in_front_of_the_slower_device_is_given_to_its_team(
        shared_dir: Path, tmp_path: Path, room: Room, b_late_s: float, kept: float | None) -> None:
    """B's device slower than A's, the first time (or with a lag kept from a session when the two
    devices of these names were in step), and the first call B's: a «truco»
    said in front of B as the game starts, then A's «quiero».  A's microphone hears the «truco»
    first, fainter; B's, louder, 0.2 or 0.4 s later.  Heard as they came, the phrase was A's
    before it was B's: 0.4 s later, the «truco» was given to A.  Its first second, heard by both,
    shows the lag first: each call is given to its team by the microphones."""
    said = team_voice(shared_dir, "call")
    mics = team_mics(room, b_late_s=b_late_s)
    if kept is not None:
        keep_lag(lag_file(tmp_path / "data", "mesaA", "mesaB"), kept)
    serve = serve_with_team_mics(shared_dir, tmp_path)
    try:
        for text, team in [("truco", "B"), ("quiero", "A")]:
            said_in_front_of(mics, team, read_wav(said[text]), pause_s=1.0)
            heard = all_heard(serve, list(mics.values()))
            assert [(h["text"], h["team"], h["extra"]["guess"]) for h in heard[:1]] == [
                (text, team, [])], heard  # once, and not a guess
            if heard[0]["status"] == "unsure":  # a doubtful word: tapped, as at the table
                assert heard[0]["reason"].startswith("dudoso: "), heard[0]
                assert serve.api.post(f"/api/heard/{heard[0]['id']}/confirm").status_code == 200
        assert len(heard) == 2, heard
        assert [line.split(":")[0] for line in serve.state()["log"][1:]] == ["B1", "A1"]
    finally:
        printed = serve.stop()
    told = re.findall(r"micrófonos: el de B entrega su sonido (\d+) ms después", printed)
    assert told and abs(int(told[0]) - b_late_s * 1000) <= 50, printed


def test_a_device_slower_than_the_other_is_put_in_step_by_the_table_talk(
        shared_dir: Path, tmp_path: Path, room: Room) -> None:
    """B's device hands its sound over 0.3 s after A's (a Bluetooth microphone beside a USB one),
    which the moments its chunks come cannot show.  The table plays its envido first (four
    phrases, each heard by both microphones), then a «truco» in front of B and a «quiero» in
    front of A: each is heard once, and given to its team.  Out of step, each was heard twice,
    once from each microphone, the second refused.  The next session starts in step: a «retruco»
    said at once is heard once.  (The table's talk is calls, not chatter: chatter heard as a
    call, as it is now and then with the table's sound not settled yet, would leave the truco
    refused; how often is the speech benchmark's to say.)"""
    said = team_voice(shared_dir, "call") | team_voice(shared_dir, "points")
    mics = team_mics(room, b_late_s=0.3)
    serve = serve_with_team_mics(shared_dir, tmp_path)
    try:
        for k, text in enumerate(["envido", "quiero", "veintisiete", "son buenas"]):
            said_in_front_of(mics, "AB"[k % 2], read_wav(said[text]), pause_s=1.0)
        heard = all_heard(serve, list(mics.values()))
        assert [line.split(":")[0] for line in serve.state()["log"][1:]] == ["A1", "B1"] * 2, heard
        seen = {h["id"] for h in heard}
        for text, team in [("truco", "B"), ("quiero", "A")]:
            said_in_front_of(mics, team, read_wav(said[text]), pause_s=1.0)
            new = [h for h in all_heard(serve, list(mics.values())) if h["id"] not in seen]
            assert [(h["text"], h["team"]) for h in new] == [(text, team)], new
            seen.add(new[0]["id"])
            if new[0]["status"] == "unsure":  # a doubtful one: tapped, as at the table
                assert serve.api.post(f"/api/heard/{new[0]['id']}/confirm").status_code == 200
        assert [line.split(":")[0] for line in serve.state()["log"][-2:]] == ["B1", "A1"]
    finally:
        printed = serve.stop()
    told = re.findall(r"micrófonos: el de B entrega su sonido (\d+) ms después que el de A; ya "
                      r"los escucho a la par", printed)
    assert told and all(250 <= int(ms) <= 350 for ms in told), printed

    # The next session, with the same two devices, starts in step: a call heard once at once.
    serve = serve_with_team_mics(shared_dir, tmp_path)
    try:
        seen = {h["id"] for h in serve.state()["heard"]}
        said_in_front_of(mics, "A", read_wav(said["retruco"]), pause_s=1.0)
        new = [h for h in all_heard(serve, list(mics.values())) if h["id"] not in seen]
        assert [(h["text"], h["team"]) for h in new] == [("retruco", "A")], new
    finally:
        printed = serve.stop()
    assert f"micrófonos: como la última vez, el de B entrega su sonido {told[-1]} ms" in printed


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started that still run."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def test_serve_learns_the_voices_in_a_process_of_its_own_that_ends_with_it(
        shared_dir: Path, tmp_path: Path, room: Room) -> None:
    """``serve --learn`` with enough play kept learns at once, in a child process (the
    listener's is not held back by PocketSphinx meanwhile), and that process ends with serve."""
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        files = [shared_dir / "speech" / r["file"] for r in csv.DictReader(fh)
                 if (r["voice"], r["pitch"]) == (HELD_OUT_VOICE, "low")
                 and r["group"] in ("call", "points")]  # more than the 30 phrases it waits for
    store = Store(tmp_path / "data" / DB_NAME)
    play(store, SphinxRecognizer(PhraseList.from_table(), model), files)  # the games kept
    store.close()
    room.mic("mesa")
    serve = Serve("--mic", "mesa", "--learn", "--data-dir", str(tmp_path / "data"),
                  "--models-dir", str(tmp_path / "models"), "--recognizer", "sphinx",
                  "--model", str(model), env={"HOME": str(tmp_path)})
    try:
        printed = serve.wait_printed("aprendí las voces de la mesa", timeout=90)
        assert "escucha: aprendí las voces de la mesa de" in printed, printed
        learning = _children(serve.proc.pid)
        assert learning, "the learning's process is not running"
        assert find_calibration(tmp_path / "models", model) is not None
    finally:
        printed = serve.stop()
    assert "no pude aprender" not in printed, printed
    wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in learning), 10,
             "the learning's process to end with serve")

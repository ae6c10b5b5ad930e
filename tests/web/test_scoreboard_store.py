"""The SQLite store and the broadcast hub, on their own."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from web_scoreboard.hub import Hub
from web_scoreboard.store import DamagedGame, LogEntry, Store, StoreError
from web_scoreboard.store_trouble import StoreFailed, set_aside


def test_the_store_is_write_ahead_and_fully_synchronous(store: Store) -> None:
    db = store._db  # the connection's own settings are what protects the log
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_effective_lines_replay_applies_and_undos(store: Store) -> None:
    game = store.create_game({"points": 30}, {"A": "Nosotros", "B": "Ellos"})
    score = {"A": 0, "B": 0}
    store.append(game, [LogEntry("apply", "hand", "page"), LogEntry("apply", "A1: truco", "voice")],
                 score, None)
    store.append(game, [LogEntry("undo", "A1: truco", "page"),
                        LogEntry("apply", "B1: truco", "page")], score, None)
    store.append(game, [LogEntry("apply", "A1: quiero", "page")], score, None)
    store.append(game, [LogEntry("undo", "A1: quiero", "page")], score, None)
    assert store.effective_lines(game) == ["hand", "B1: truco"]
    actions = [e.action for e in store.log(game)]
    assert actions == ["apply", "apply", "undo", "apply", "apply", "undo"]
    assert store.log(game)[1].origin == "voice"


def test_games_current_game_and_names_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    first = Store(path)
    one = first.create_game({"points": 30}, {"A": "Nosotros", "B": "Ellos"})
    two = first.create_game({"points": 15}, {"A": "Nosotros", "B": "Ellos"})
    first.set_names(one, {"A": "Pepe", "B": "Tito"})
    first.append(one, [LogEntry("apply", "points A +3", "page")], {"A": 3, "B": 0}, None)
    first.close()
    again = Store(path)
    assert again.current_game_id() == two
    assert [g.id for g in again.games()] == [two, one]
    game = again.game(one)
    assert game is not None and game.names == {"A": "Pepe", "B": "Tito"}
    assert game.score == {"A": 3, "B": 0} and game.settings == {"points": 30}
    again.close()


def test_heard_items_and_clips(store: Store) -> None:
    game = store.create_game({}, {})
    first = store.add_heard(game, "rejected", "turco", reason="«turco» no es truco")
    clip_id = store.put_clip(b"RIFFdata")
    assert store.put_clip(b"RIFFdata") == clip_id  # the same sound is kept once
    second = store.add_heard(game, "unsure", "kiero", line="B1: quiero", clip_id=clip_id)
    store.set_heard_status(second.id, "accepted", "confirmado a mano")
    assert [h.id for h in store.heard(game)] == [second.id, first.id]
    item = store.heard_item(second.id)
    assert item is not None and item.status == "accepted" and item.line == "B1: quiero"
    assert store.clip(clip_id) == (b"RIFFdata", "audio/wav")
    assert store.clip("nope") is None



def test_heard_items_with_a_status_are_read_from_a_row_on(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    game = store.create_game({}, {})
    for at, status in ((300.0, "accepted"), (200.0, "rejected"), (100.0, "accepted")):
        monkeypatch.setattr(time, "time", lambda at=at: at)  # a clock set back meanwhile
        store.add_heard(game, status, "truco")
    first, last = (h.id for h in store.heard_with("accepted"))
    assert [h.at for h in store.heard_with("accepted")] == [300.0, 100.0]  # as they were heard
    assert [h.at for h in store.heard_with("accepted", after=first)] == [100.0]
    assert store.heard_with("accepted", after=last) == []
    assert (store.last_heard("accepted"), store.last_heard("accepted", at_most=300.0)) == (last, last)
    assert (store.last_heard("accepted", at_most=200.0), store.last_heard("unsure")) == (last, 0)
    assert store.last_heard("accepted", at_most=99.0) == 0


def test_a_game_is_deleted_whole_and_a_clip_another_game_names_is_kept(store: Store) -> None:
    old, other = store.create_game({}, {}), store.create_game({}, {})
    store.append(old, [LogEntry("apply", "hand", "page")], {"A": 0, "B": 0}, None)
    own, shared = store.put_clip(b"RIFF" + bytes(1000)), store.put_clip(b"RIFF" + bytes(10))
    store.add_heard(old, "accepted", "truco", clip_id=own)
    store.add_heard(old, "rejected", "turco", clip_id=shared)
    store.add_heard(other, "rejected", "turco", clip_id=shared)  # the same sound, in both
    assert store.delete_game(old) == 1004  # its own clip's bytes
    assert store.game(old) is None and store.log(old) == [] and store.heard(old) == []
    assert store.clip(own) is None and store.clip(shared) is not None
    assert [g.id for g in store.games()] == [other] and len(store.heard(other)) == 1



def _game_with_clip(store: Store, size: int) -> int:
    game = store.create_game({}, {})
    store.add_heard(game, "accepted", "truco", clip_id=store.put_clip(os.urandom(size)))
    return game


def test_a_deleted_game_gives_its_room_back_to_the_disk(store: Store) -> None:
    kept, gone = _game_with_clip(store, 100_000), _game_with_clip(store, 3_000_000)
    store.give_back_room()  # written out, so that the file's size is the store's
    before = store.path.stat().st_size
    store.delete_game(gone)
    assert store.path.stat().st_size == before  # deleting only marks the room free
    assert store.give_back_room()
    assert before - store.path.stat().st_size >= 3_000_000
    assert len(store.heard(kept)) == 1 and store.clip(store.heard(kept)[0].clip_id or "")


def test_a_store_made_before_it_kept_its_room_apart_is_rewritten_once(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as db:  # SQLite's defaults: no room apart
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    old = Store(path)
    assert old._db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    old.delete_game(_game_with_clip(old, 2_000_000))
    assert old.give_back_room()
    assert old._db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # from now on, incremental
    assert path.stat().st_size < 1_000_000
    old.close()


def test_the_room_is_not_given_back_inside_a_batch(store: Store) -> None:
    with pytest.raises(RuntimeError), store.batch():
        store.give_back_room()


def test_hub_delivers_in_publishing_order_from_many_threads() -> None:
    async def scenario() -> tuple[list[int], list[int]]:
        hub = Hub(max_pending=10_000)  # no page may lag so far that snapshots are skipped
        hub.bind(asyncio.get_running_loop())
        got: dict[str, list[int]] = {"a": [], "b": []}
        lock = threading.Lock()
        counter = iter(range(1, 10_000))

        def sender(name: str):  # type: ignore[no-untyped-def]
            async def send(text: str) -> None:
                got[name].append(int(text))
            return send

        subs = [hub.subscribe(sender(n), 0, "0") for n in got]
        tasks = [asyncio.create_task(s.run()) for s in subs]

        def publisher() -> None:
            for _ in range(200):
                with lock:  # the service publishes under its lock, in sequence order
                    seq = next(counter)
                    hub.publish(seq, str(seq))

        threads = [threading.Thread(target=publisher) for _ in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while (any(t.is_alive() for t in threads) or len(got["b"]) < 801) and (
                time.monotonic() < deadline):
            await asyncio.sleep(0.01)
        for sub, task in zip(subs, tasks):
            hub.unsubscribe(sub)
            task.cancel()
        return got["a"], got["b"]

    a, b = asyncio.run(scenario())
    assert a == b == list(range(801))


def test_hub_skips_stale_snapshots_and_keeps_the_newest_when_a_page_lags() -> None:
    async def scenario() -> list[str]:
        hub = Hub(max_pending=3)
        hub.bind(asyncio.get_running_loop())
        sent: list[str] = []

        async def send(text: str) -> None:
            sent.append(text)

        sub = hub.subscribe(send, 5, "s5")
        for seq in (4, 5, 6, 7, 8, 9):  # 4 and 5 are not newer than what the page has
            hub.publish(seq, f"s{seq}")
        await asyncio.sleep(0.01)
        task = asyncio.create_task(sub.run())
        await asyncio.sleep(0.01)
        hub.unsubscribe(sub)
        task.cancel()
        return sent

    assert asyncio.run(scenario()) == ["s7", "s8", "s9"]


def _stored_game(path: Path) -> None:
    store = Store(path)
    game = store.create_game({}, {})
    for _ in range(500):
        store.append(game, [LogEntry("apply", "hand", "page")], {"A": 0, "B": 0}, None)
    store.close()


def test_a_damaged_store_is_said_in_words_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    _stored_game(path)
    os.truncate(path, path.stat().st_size * 3 // 4)
    with pytest.raises(StoreError, match="el archivo está dañado .*apartá scoreboard.sqlite3 "):
        Store(path)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"no soy una base de datos" * 200)
    with pytest.raises(StoreError, match="dañado \\(file is not a database\\)"):
        Store(junk)


def test_a_damaged_store_left_by_a_kill_names_its_files_to_move_together(
        tmp_path: Path) -> None:
    # kill -9 while the table played: the newest changes are in the -wal, not yet in the file
    played, rescue, damaged = tmp_path / "played", tmp_path / "rescue", tmp_path / "damaged"
    store = Store(played / "scoreboard.sqlite3")
    game = store.create_game({}, {})
    with store.batch():  # pages enough in the file for half of it to be missed
        for _ in range(500):
            store.append(game, [LogEntry("apply", "hand", "page")], {"A": 0, "B": 0}, None)
    store.close()
    store = Store(played / "scoreboard.sqlite3")
    store.append(game, [LogEntry("apply", "points A +3", "page")], {"A": 3, "B": 0}, None)
    for folder in (rescue, damaged):  # the three files as the kill left them
        folder.mkdir()
        for name in ("scoreboard.sqlite3", "scoreboard.sqlite3-wal", "scoreboard.sqlite3-shm"):
            shutil.copy(played / name, folder / name)
    store.close()
    moved = Store(rescue / "scoreboard.sqlite3")  # moved together, nothing is lost
    assert moved.effective_lines(game)[-1] == "points A +3"
    moved.close()
    assert set_aside(damaged / "scoreboard.sqlite3") == (
        "apartá juntos scoreboard.sqlite3, scoreboard.sqlite3-wal y scoreboard.sqlite3-shm de "
        f"{damaged} (movelos a otra carpeta sin cambiarles el nombre: lo último anotado puede "
        "estar en el -wal)")
    os.truncate(damaged / "scoreboard.sqlite3", (played / "scoreboard.sqlite3").stat().st_size // 2)
    with pytest.raises(StoreError, match="el archivo está dañado") as refused:
        Store(damaged / "scoreboard.sqlite3")
    # the files named are those there once it is refused (SQLite may have emptied the -wal
    # into the file as it let it go)
    assert set_aside(damaged / "scoreboard.sqlite3") in str(refused.value)


def test_a_write_after_the_data_folder_was_deleted_is_refused_not_lost(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = Store(folder / "scoreboard.sqlite3")
    game = store.create_game({}, {})
    shutil.rmtree(folder)  # the open file is deleted: what is written to it is lost at exit
    with pytest.raises(StoreFailed, match=f"la carpeta de datos desapareció \\({folder}\\): lo "
                       "que se toque no se guarda; volvé a arrancar 'serve'"):
        store.append(game, [LogEntry("apply", "hand", "page")], {"A": 0, "B": 0}, None)
    assert store.log(game) == []  # what it held can still be read
    store.close()


def test_a_write_after_the_store_file_was_replaced_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    store = Store(path)
    game = store.create_game({}, {})
    path.unlink()
    path.write_bytes(b"")
    with pytest.raises(StoreFailed, match="desapareció o lo cambiaron"):
        store.set_names(game, {"A": "x", "B": "y"})
    store.close()


def _damage(path: Path, sql: str, *args: object) -> None:
    """Change the stored file behind the store's back, as a failing disk or a hand might."""
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute(sql, args)
    db.close()


def test_a_damaged_value_in_a_heard_row_is_read_as_empty_and_told_once(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    store = Store(path)
    game = store.create_game({}, {})
    heard = store.add_heard(game, "accepted", "envido", line="A1: envido", extra={"hand": 30})
    store.close()
    _damage(path, "UPDATE heard SET extra = ? WHERE id = ?", '{"hand": 3\x01}', heard.id)
    told: list[str] = []
    store = Store(path, on_damage=told.append)
    again = store.heard_item(heard.id)
    assert store.heard(game)[0].extra == {} and again is not None and again.extra == {}
    assert len(told) == 1 and f"lo oído n.º {heard.id}" in told[0] and str(path) in told[0]
    store.close()


def test_a_past_game_with_damaged_rules_is_listed_with_a_note_and_can_be_deleted(
        tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    store = Store(path)
    past = store.create_game({"players": 4}, {"A": "Pibes", "B": "Chicas"})
    store.create_game({}, {})
    store.close()
    _damage(path, "UPDATE games SET settings = ?, names = ? WHERE id = ?",
            '{"players": 4\x01', "[]", past)
    told: list[str] = []
    store = Store(path, on_damage=told.append)
    listed = {g.id: g.to_dict() for g in store.games()}
    store.games()
    assert listed[past]["settings"] == {} and listed[past]["names"] == {}
    assert listed[past]["damaged"].startswith("sus reglas y sus nombres guardados están dañados")
    assert "damaged" not in listed[store.current_game_id() or 0]
    assert len(told) == 1 and f"la partida #{past}" in told[0]
    with pytest.raises(DamagedGame, match=f"las reglas de la partida #{past} están dañadas en "
                       f"{path} .*no se abre"):
        store.set_current_game(past)  # rebuilt with other rules, its log would be rewritten
    store.delete_game(past)
    assert [g.id for g in store.games()] == [store.current_game_id()]
    store.close()


def test_the_game_in_play_with_damaged_rules_is_not_rebuilt_with_others(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    store = Store(path)
    game = store.create_game({"players": 4}, {})
    store.close()
    _damage(path, "UPDATE games SET settings = ? WHERE id = ?", '{"players": 4\x01', game)
    store = Store(path)
    with pytest.raises(DamagedGame, match=f"partida #{game} están dañadas en {path} "
                       "\\(Expecting"):
        store.current_game_id()
    store.forget_current_game()
    assert store.current_game_id() is None and store.game(game) is not None
    store.close()


def test_a_store_another_program_holds_is_said_in_words(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    _stored_game(path)
    other = sqlite3.connect(str(path), timeout=0, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="otro programa lo tiene tomado"):
            Store(path, busy_s=0.1)
    finally:
        other.execute("ROLLBACK")
        other.close()

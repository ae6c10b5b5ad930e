"""Model download against a local HTTP server: full fetch, resume, checksum mismatch, offline, and
every way a download goes wrong (damaged, not an archive, cut, garbage reply, disk full, Ctrl-C)."""

from __future__ import annotations

import _thread
import dataclasses
import errno
import hashlib
import http.server
import io
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from models import download as download_module
from models import fetch as fetch_module
from models.catalog import VOSK_ES, ModelSpec
from models.download import FetchError, download
from models.fetch import MANIFEST, check, fetch
from referee.asr.find import find_model
from referee.commands.models import do_fetch

VOSK_FILES = {
    "am/final.mdl": b"m" * 50_000,
    "conf/mfcc.conf": b"--use-energy=false\n",
    "conf/model.conf": b"--min-active=200\n",
    "graph/HCLr.fst": b"fst",
    "graph/Gr.fst": b"fst",
    "README": b"test model\n",
}


def _zip_model() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:  # stored: a flipped byte is a CRC error, not a bad stream
        for name, data in VOSK_FILES.items():
            zf.writestr(f"vosk-model-small-es-0.42/{name}", data)
    return buf.getvalue()


def _damaged(archive: bytes) -> bytes:
    data = bytearray(archive)
    data[1000] ^= 0xFF  # inside am/final.mdl
    return bytes(data)


def _unsafe_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name in ("cmusphinx-es-5.2/README", "../evil"):
            info = tarfile.TarInfo(name)
            info.size = 4
            tf.addfile(info, io.BytesIO(b"EVIL"))
    return buf.getvalue()


def _partial_model() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("vosk-model-small-es-0.42/am/final.mdl", b"x")
    return buf.getvalue()


def _tar_model() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in VOSK_FILES.items():
            info = tarfile.TarInfo(f"vosk-model-small-es-0.42/{name}")
            body = hashlib.sha512(data).digest() * 400  # 25 kB that gzip cannot shrink away
            info.size = len(body)
            tf.addfile(info, io.BytesIO(body))
    return buf.getvalue()


ARCHIVE = _zip_model()
TAR = _tar_model()
# What the server answers, by the first part of the path; anything else gets ARCHIVE.
BODIES = {"damaged": _damaged(ARCHIVE), "html": b"<html>portal cautivo</html>",
          "unsafe": _unsafe_tar(), "partial": _partial_model(),
          "cutzip": ARCHIVE[:-1000], "cuttar": TAR[:len(TAR) // 2]}


class Handler(http.server.BaseHTTPRequestHandler):
    ranges: ClassVar[list[str]] = []
    requests: ClassVar[dict[str, int]] = {}
    watch: ClassVar[Path | None] = None  # the file the Ctrl-C waits for
    go_on: ClassVar[threading.Event] = threading.Event()  # what the held answer waits for
    block: ClassVar[Path | None] = None  # a file "blockafter" puts where the model goes

    def do_GET(self) -> None:
        rng = self.headers.get("Range")
        Handler.ranges.append(rng or "")
        kind = self.path.strip("/").split("/")[0]
        Handler.requests[kind] = Handler.requests.get(kind, 0) + 1
        special = {"garbage": self._garbage, "chunkcut": self._chunk_cut,
                   "interrupt": self._interrupt, "held": self._held, "short": self._short,
                   "slow": self._slow, "cut": self._first_part}.get(kind)
        if special and Handler.requests[kind] == 1:
            special()
            return
        if kind in ("badrange", "liarange") and rng:  # 206, but the whole file again
            self._from_zero(rng.split("=")[1].split("-")[0] if kind == "liarange" else "0")
            return
        if kind == "blockafter" and Handler.block is not None:
            Handler.block.write_text("llegó mientras se bajaba")
        archive = BODIES.get(kind, ARCHIVE)
        body, status = archive, 200
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(archive):
                self.send_response(416)
                self.end_headers()
                return
            body, status = archive[start:], 206
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if status == 206:
            self.send_header("Content-Range", f"bytes {len(archive) - len(body)}-{len(archive) - 1}/"
                             f"{len(archive)}")
        self.end_headers()
        self.wfile.write(body)

    def _first_part(self) -> None:
        """A 200 for the whole archive, and its first 20 000 bytes."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(ARCHIVE)))
        self.end_headers()
        self.wfile.write(ARCHIVE[:20_000])
        self.wfile.flush()

    def _held(self) -> None:
        """Part of the archive, then the rest only when the test says so."""
        self._first_part()
        Handler.go_on.wait(timeout=20)
        self.wfile.write(ARCHIVE[20_000:])

    def _short(self) -> None:
        """A length that says less than the archive, and that much of it: it looks whole."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(ARCHIVE) - 1000))
        self.end_headers()
        self.wfile.write(ARCHIVE[:-1000])

    def _from_zero(self, claimed: str) -> None:
        """The whole archive, as a 206 that says it starts at byte ``claimed``."""
        self.send_response(206)
        self.send_header("Content-Length", str(len(ARCHIVE)))
        self.send_header("Content-Range", f"bytes {claimed}-{len(ARCHIVE) - 1}/{len(ARCHIVE)}")
        self.end_headers()
        self.wfile.write(ARCHIVE)

    def _slow(self) -> None:
        """The whole archive, after thinking for longer than it took to connect."""
        time.sleep(1.5)
        self.send_response(200)
        self.send_header("Content-Length", str(len(ARCHIVE)))
        self.end_headers()
        self.wfile.write(ARCHIVE)

    def _garbage(self) -> None:
        self.wfile.write(b"HELLO THIS IS NOT HTTP\r\n\r\n")
        self.close_connection = True

    def _chunk_cut(self) -> None:
        """A chunked reply cut inside its second chunk: http.client raises IncompleteRead."""
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b"%x\r\n" % 30_000 + ARCHIVE[:30_000] + b"\r\n")
        self.wfile.write(b"%x\r\n" % 10_000 + ARCHIVE[30_000:35_000])
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def _interrupt(self) -> None:
        """Ctrl-C in the middle of the download (the main thread gets KeyboardInterrupt)."""
        self._first_part()
        deadline = time.monotonic() + 10
        while Handler.watch is not None and time.monotonic() < deadline and not (
                Handler.watch.exists() and Handler.watch.stat().st_size >= 20_000):
            time.sleep(0.01)  # until the client wrote what came
        _thread.interrupt_main()
        try:  # wake the reader so that it notices
            self.wfile.write(ARCHIVE[20_000:20_100])
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    Handler.ranges = []
    Handler.requests = {}
    Handler.watch = None
    Handler.go_on = threading.Event()
    Handler.block = None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/ok/vosk-model-small-es-0.42.zip"
    Handler.go_on.set()
    httpd.shutdown()
    httpd.server_close()


def _spec(url: str, **changes: object) -> ModelSpec:
    return dataclasses.replace(VOSK_ES, url=url, **changes)  # type: ignore[arg-type]


def test_fetch_downloads_checks_and_unpacks(server: str, tmp_path: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    spec = _spec(server, sha256=hashlib.sha256(ARCHIVE).hexdigest(), size=len(ARCHIVE))
    path = fetch(spec, tmp_path, lambda done, total: seen.append((done, total)))
    assert path == tmp_path / "vosk-model-small-es-0.42"
    assert (path / "am" / "final.mdl").stat().st_size == 50_000
    assert (path / MANIFEST).is_file() and not (tmp_path / f"{spec.archive}.part").exists()
    assert seen[-1] == (len(ARCHIVE), len(ARCHIVE))
    assert check(spec, tmp_path).ok
    assert find_model(tmp_path).kind == "vosk"  # and the referee now picks it
    fetch(spec, tmp_path)  # already there: no second download
    assert Handler.ranges == [""]


def test_fetch_resumes_a_partial_download(server: str, tmp_path: Path) -> None:
    spec = _spec(server, sha256=hashlib.sha256(ARCHIVE).hexdigest())
    half = len(ARCHIVE) // 2
    (tmp_path / f"{spec.archive}.part").write_bytes(ARCHIVE[:half])
    fetch(spec, tmp_path)
    assert Handler.ranges == [f"bytes={half}-"]
    assert (tmp_path / spec.folder / "README").read_bytes() == b"test model\n"


def test_complete_partial_file_is_not_downloaded_again(server: str, tmp_path: Path) -> None:
    dest = tmp_path / "a.zip"
    dest.write_bytes(ARCHIVE)
    assert download(server, dest) == len(ARCHIVE)
    assert dest.read_bytes() == ARCHIVE


def test_checksum_mismatch_deletes_the_download(server: str, tmp_path: Path) -> None:
    spec = _spec(server, sha256="0" * 64)
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "checksum-mismatch"
    assert not (tmp_path / f"{spec.archive}.part").exists()
    assert not (tmp_path / spec.folder).exists()


def test_size_mismatch_is_reported(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as err:
        fetch(_spec(server, size=len(ARCHIVE) - 1), tmp_path)
    assert err.value.code == "size-mismatch"


def test_offline_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(FetchError) as err:
        fetch(_spec(f"http://127.0.0.1:{port}/x.zip"), tmp_path, timeout=2)
    assert err.value.code == "offline"
    assert "conexión" in err.value.message


def test_a_network_that_drops_what_it_is_sent_is_told_in_the_connect_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(download_module, "CONNECT_TIMEOUT_S", 0.5, raising=False)
    with socket.socket() as deaf:
        deaf.bind(("127.0.0.1", 0))
        deaf.listen(0)
        waiting = [socket.socket() for _ in range(8)]  # fill its queue: the next call is dropped
        for caller in waiting:
            caller.setblocking(False)
            caller.connect_ex(deaf.getsockname())
        began = time.monotonic()
        with pytest.raises(FetchError) as err:
            fetch(_spec(f"http://127.0.0.1:{deaf.getsockname()[1]}/x.zip"), tmp_path)
        waited = time.monotonic() - began
        for caller in waiting:
            caller.close()
    assert err.value.code == "offline" and "no contestó a tiempo" in err.value.message
    assert waited < 10  # before: the 30 s a slow server gets for each part of its answer


def test_a_server_slower_to_answer_than_to_connect_is_waited_for(
        server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(download_module, "CONNECT_TIMEOUT_S", 0.5, raising=False)
    assert fetch(_spec(_at(server, "slow")), tmp_path).is_dir()


def _at(server: str, kind: str) -> str:
    """The server's address for one kind of answer (see ``Handler``)."""
    return server.replace("/ok/", f"/{kind}/")


def test_find_model_order(tmp_path: Path, shared_dir: Path) -> None:
    assert find_model(tmp_path).english  # nothing downloaded: English fallback
    sphinx = tmp_path / "cmusphinx-es-5.2" / "model_parameters" / "es.cd_ptm_4000"
    shutil.copytree(shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model", sphinx)
    assert find_model(tmp_path) == find_model(tmp_path, "sphinx")
    assert find_model(tmp_path).path == sphinx and not find_model(tmp_path).english
    vosk = tmp_path / "vosk-model-small-es-0.42"
    for name, data in VOSK_FILES.items():
        (vosk / name).parent.mkdir(parents=True, exist_ok=True)
        (vosk / name).write_bytes(data)
    assert find_model(tmp_path).kind == "vosk"
    assert find_model(tmp_path, "sphinx").kind == "sphinx"


# -- a bad download is thrown away; a cut one is kept ----------------------------------------------


@pytest.mark.parametrize("kind, code", [("damaged", "corrupt-archive"), ("html", "not-an-archive"),
                                        ("unsafe", "unsafe-archive"),
                                        ("partial", "incomplete-model")])
def test_a_download_that_fails_to_unpack_is_deleted_and_the_next_run_starts_over(
        server: str, tmp_path: Path, kind: str, code: str) -> None:
    spec = _spec(_at(server, kind))
    for _ in range(2):
        with pytest.raises(FetchError) as err:
            fetch(spec, tmp_path)
        assert err.value.code == code
        assert "lo borré" in err.value.message and "empieza de cero" in err.value.message
        assert (f"volvé a correr 'truco-referee models fetch vosk-es --models-dir {tmp_path}'"
                in err.value.message)
        assert ".part" not in err.value.message
        assert sorted(p.name for p in tmp_path.iterdir()) == []  # no .part, no .unpacking
    assert Handler.ranges == ["", ""]  # the second run did not resume the bad file (416 forever)


def test_checksum_failure_message_says_the_next_run_starts_over(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as err:
        fetch(_spec(server, sha256="0" * 64), tmp_path)
    assert "empieza de cero" in err.value.message


def test_force_starts_from_zero_instead_of_resuming_a_stale_part(server: str, tmp_path: Path) -> None:
    spec = _spec(server)
    (tmp_path / f"{spec.archive}.part").write_bytes(b"<html>viejo</html>")
    fetch(spec, tmp_path, force=True)
    assert Handler.ranges == [""]
    assert (tmp_path / spec.folder / "am" / "final.mdl").stat().st_size == 50_000


def test_a_cut_download_is_kept_and_resumed(server: str, tmp_path: Path) -> None:
    spec = _spec(_at(server, "chunkcut"), sha256=hashlib.sha256(ARCHIVE).hexdigest())
    with pytest.raises(FetchError) as err:  # http.client.IncompleteRead, not a traceback
        fetch(spec, tmp_path)
    assert err.value.code == "interrupted" and "sigue desde ahí" in err.value.message
    kept = (tmp_path / f"{spec.archive}.part").stat().st_size
    assert kept >= 30_000
    fetch(spec, tmp_path)
    assert Handler.ranges == ["", f"bytes={kept}-"]
    assert check(spec, tmp_path).ok


def test_a_download_that_ends_before_its_length_names_the_command_that_resumes_it(
        server: str, tmp_path: Path) -> None:
    spec = _spec(_at(server, "cut"))
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "truncated"
    # before: «volvé a correr el comando», without saying which (nor its --models-dir)
    assert err.value.message == (f"llegaron 20000 de {len(ARCHIVE)} bytes; volvé a correr "
                                 f"'truco-referee models fetch vosk-es --models-dir {tmp_path}' "
                                 "y sigue desde ahí")
    fetch(spec, tmp_path)
    assert Handler.ranges == ["", "bytes=20000-"]
    assert check(spec, tmp_path).ok


def test_a_garbage_reply_is_a_clear_error(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as err:  # http.client.BadStatusLine
        fetch(_spec(_at(server, "garbage")), tmp_path)
    assert err.value.code == "bad-reply" and "no es una respuesta web" in err.value.message


def test_a_full_disk_is_a_clear_error_and_leaves_nothing(server: str, tmp_path: Path) -> None:
    spec = _spec(server)
    (tmp_path / f"{spec.archive}.part").symlink_to("/dev/full")  # every write: ENOSPC
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "disk-error" and "no queda lugar en el disco" in err.value.message
    assert not (tmp_path / f"{spec.archive}.part").exists()


FETCH_SCRIPT = """
import dataclasses, sys
from pathlib import Path
from models.catalog import VOSK_ES
from models.download import FetchError
from models.fetch import fetch
try:
    fetch(dataclasses.replace(VOSK_ES, url=sys.argv[1]), Path(sys.argv[2]))
except FetchError as err:
    print(err.code, err.message)
"""


def test_a_file_too_large_for_the_system_is_a_clear_error(server: str, tmp_path: Path) -> None:
    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, resource.RLIM_INFINITY))  # EFBIG

    out = subprocess.run([sys.executable, "-c", FETCH_SCRIPT, server, str(tmp_path)],
                         cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                         preexec_fn=small_files, check=False, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("disk-error") and "más grande" in out.stdout
    assert list(tmp_path.iterdir()) == []


def test_fetch_command_tells_each_failure_and_goes_on(server: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    garbage = _spec(_at(server, "garbage"))
    deck = dataclasses.replace(garbage, name="otro", url=server)
    assert do_fetch([garbage, deck], tmp_path, force=False) == 1
    err = capsys.readouterr().err
    assert "vosk-es: no se pudo bajar" in err and "Traceback" not in err
    assert check(deck, tmp_path).ok  # the second model was still fetched


def test_ctrl_c_ends_the_fetch_cleanly_and_keeps_the_download(
        server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(_at(server, "interrupt"))
    Handler.watch = tmp_path / f"{spec.archive}.part"
    # Ctrl-C as at a terminal however the suite was started: a shell that starts it in the
    # background leaves SIGINT ignored, and ``interrupt_main`` then does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert do_fetch([spec, _spec(server)], tmp_path, force=False) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
    err = " ".join(capsys.readouterr().err.split())
    # before: «volvé a correr 'truco-referee models fetch'», which fetches into the default folder
    assert (f"volvé a correr 'truco-referee models fetch vosk-es vosk-es --models-dir {tmp_path}' "
            "y sigue desde donde quedó") in err
    assert (tmp_path / f"{spec.archive}.part").stat().st_size >= 20_000
    assert Handler.requests == {"interrupt": 1}  # it stopped: the next model was not tried


def test_check_tells_a_file_that_changed_since_the_fetch(server: str, tmp_path: Path) -> None:
    spec = _spec(server)
    fetch(spec, tmp_path)
    (tmp_path / spec.folder / "graph" / "Gr.fst").write_bytes(b"cortado")
    status = check(spec, tmp_path)
    assert status.state == "broken" and "cambió graph/Gr.fst" in status.message
    fetch(spec, tmp_path)  # a damaged model is fetched again, without --force
    assert check(spec, tmp_path).ok


# -- two fetches, things in the way, and the disk's errors in words --------------------------------


def test_a_second_fetch_of_the_same_model_says_one_is_under_way(
        server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(_at(server, "held"))
    part = tmp_path / f"{spec.archive}.part"
    first: list[BaseException] = []

    def fetch_first() -> None:
        try:
            fetch(spec, tmp_path)
        except BaseException as err:  # noqa: BLE001 - told by the assertion below
            first.append(err)

    thread = threading.Thread(target=fetch_first)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not (part.exists() and part.stat().st_size >= 20_000) and time.monotonic() < deadline:
            time.sleep(0.01)
        before = part.read_bytes()
        assert do_fetch([spec], tmp_path, force=False) == 1
        err = capsys.readouterr().err
        assert "ya hay otra descarga de vosk-es en curso" in err
        assert part.read_bytes() == before  # untouched
        assert Handler.requests == {"held": 1}
    finally:
        Handler.go_on.set()
        thread.join(timeout=20)
    assert first == [] and check(spec, tmp_path).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == [spec.folder]  # no lock left behind


@pytest.mark.parametrize("what", ["file", "dangling link"])
def test_something_where_the_model_goes_is_named_before_downloading(
        server: str, tmp_path: Path, what: str) -> None:
    spec = _spec(server)
    target = tmp_path / spec.folder
    if what == "file":
        target.write_text("no soy un modelo")
    else:
        target.symlink_to(tmp_path / "ya-no-existe")
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "target-blocked" and str(target) in err.value.message
    assert "liberá lugar" not in err.value.message
    assert f"'truco-referee models fetch vosk-es --models-dir {tmp_path}'" in err.value.message
    assert Handler.ranges == []  # nothing downloaded


def test_a_download_that_arrived_whole_is_kept_when_a_later_step_fails(
        server: str, tmp_path: Path) -> None:
    spec = _spec(_at(server, "blockafter"))
    Handler.block = tmp_path / spec.folder  # appears while the archive downloads
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    message = err.value.message
    assert "quedó guardado" in message and "liberá lugar" not in message
    assert "Not a directory" not in message and "hay un archivo" in message
    assert (tmp_path / f"{spec.archive}.part").read_bytes() == ARCHIVE
    Handler.block.unlink()
    Handler.block = None
    fetch(spec, tmp_path)
    assert Handler.ranges == ["", f"bytes={len(ARCHIVE)}-"]  # not downloaded again
    assert check(spec, tmp_path).ok


@pytest.mark.parametrize(("where", "said"), [
    ("models folder is a file", "ya hay un archivo con ese nombre"),
    ("download is a folder", "es una carpeta, no un archivo"),
])
def test_a_disk_error_that_is_not_about_space_is_told_in_spanish(
        server: str, tmp_path: Path, where: str, said: str) -> None:
    spec = _spec(server)
    models = tmp_path
    if where == "models folder is a file":
        models = tmp_path / "modelos"
        models.write_text("")
    else:
        (tmp_path / f"{spec.archive}.part").mkdir()
    with pytest.raises(FetchError) as err:
        fetch(spec, models)
    assert err.value.code == "disk-error" and said in err.value.message
    assert "liberá lugar" not in err.value.message and "MB libres" not in err.value.message
    assert f"'truco-referee models fetch vosk-es --models-dir {models}'" in err.value.message


# -- a download that arrived short, and a server that does not resume where asked ------------------


def test_a_download_shorter_than_it_said_is_incomplete_and_resumed(server: str,
                                                                   tmp_path: Path) -> None:
    spec = _spec(_at(server, "short"))
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "incomplete-download" and "llegó incompleto" in err.value.message
    assert "página web" not in err.value.message and "sigue desde ahí" in err.value.message
    assert (tmp_path / f"{spec.archive}.part").stat().st_size == len(ARCHIVE) - 1000
    fetch(spec, tmp_path)
    assert Handler.ranges == ["", f"bytes={len(ARCHIVE) - 1000}-"]
    assert check(spec, tmp_path).ok


def test_a_download_shorter_than_the_catalog_says_is_incomplete(server: str,
                                                                tmp_path: Path) -> None:
    spec = _spec(_at(server, "short"), size=len(ARCHIVE))
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "incomplete-download"
    assert f"{len(ARCHIVE) - 1000} de {len(ARCHIVE)} bytes" in err.value.message
    assert (tmp_path / f"{spec.archive}.part").exists()


@pytest.mark.parametrize("kind", ["cutzip", "cuttar"])
def test_an_archive_cut_short_is_incomplete_and_starts_over_when_there_is_no_more(
        server: str, tmp_path: Path, kind: str) -> None:
    spec = _spec(_at(server, kind))
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "incomplete-download" and "llegó incompleto" in err.value.message
    assert "página web" not in err.value.message and "sigue desde ahí" in err.value.message
    assert (tmp_path / f"{spec.archive}.part").exists()
    with pytest.raises(FetchError) as err:  # the server has no more: keeping it would loop
        fetch(spec, tmp_path)
    assert err.value.code == "incomplete-download" and "empieza de cero" in err.value.message
    assert not (tmp_path / f"{spec.archive}.part").exists()


@pytest.mark.parametrize("kind", ["badrange", "liarange"])
def test_a_resumed_answer_that_starts_from_zero_is_not_appended(
        server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    """Said by its Content-Range, or given away by a length the range it claims cannot hold."""
    spec = _spec(_at(server, kind), sha256=hashlib.sha256(ARCHIVE).hexdigest())
    half = len(ARCHIVE) // 2
    (tmp_path / f"{spec.archive}.part").write_bytes(ARCHIVE[:half])
    assert do_fetch([spec], tmp_path, force=False) == 0
    assert check(spec, tmp_path).ok
    assert Handler.ranges == [f"bytes={half}-", ""]
    out = " ".join(capsys.readouterr().out.split())
    assert f"vosk-es: el servidor no siguió desde el byte {half}" in out and "de cero" in out


def test_a_model_whose_record_cannot_be_written_is_not_left_as_one_copied_by_hand(
        server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _spec(server, sha256=hashlib.sha256(ARCHIVE).hexdigest(), size=len(ARCHIVE))
    write_text = Path.write_text

    def full_disk(path: Path, *args: Any, **kwargs: Any) -> int:
        if path.name.startswith(MANIFEST):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(FetchError) as err:
        fetch(spec, tmp_path)
    assert err.value.code == "disk-error" and "quedó guardado" in err.value.message
    assert not (tmp_path / spec.folder).exists()  # no model without its record
    assert not check(spec, tmp_path).ok
    assert (tmp_path / f"{spec.archive}.part").read_bytes() == ARCHIVE
    monkeypatch.setattr(Path, "write_text", write_text)
    fetch(spec, tmp_path)
    assert Handler.ranges == ["", f"bytes={len(ARCHIVE)}-"]  # not downloaded again
    assert (tmp_path / spec.folder / MANIFEST).is_file() and check(spec, tmp_path).ok
    assert sorted(p.name for p in (tmp_path / spec.folder).iterdir() if "json" in p.name) == [MANIFEST]


def test_an_unpacked_model_that_cannot_take_the_old_ones_place_leaves_the_old_one_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "model.zip"
    archive.write_bytes(_zip_model())
    dest = tmp_path / "vosk-model-small-es-0.42"
    (dest / "am").mkdir(parents=True)
    (dest / "am" / "final.mdl").write_bytes(b"the model the table had")
    real_rename = Path.rename

    def rename(self: Path, target: Any) -> Path:  # the new model cannot be moved in
        if Path(target) == dest and self.is_relative_to(tmp_path / f"{dest.name}.unpacking"):
            raise OSError(errno.EIO, "the disk failed")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError):
        fetch_module.unpack(archive, dest)
    # before: the old folder was deleted first, and nothing took its place
    assert (dest / "am" / "final.mdl").read_bytes() == b"the model the table had"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.zip", dest.name]


def test_fetch_of_a_model_already_there_says_so_without_a_bar(
        server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(server)
    fetch(spec, tmp_path)
    assert do_fetch([spec], tmp_path, force=False) == 0
    out = capsys.readouterr().out  # before: an empty «0/? bytes» bar, then «listo en …»
    assert out == f"vosk-es: ya está en {tmp_path / spec.folder}\n"
    assert Handler.ranges == [""]  # nothing asked of the server the second time

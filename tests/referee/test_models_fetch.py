"""Model download against a local HTTP server: full fetch, resume, checksum mismatch, offline."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import io
import socket
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from models.catalog import VOSK_ES, ModelSpec
from models.fetch import MANIFEST, FetchError, check, download, fetch
from referee.asr.find import find_model


def _zip_model() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("vosk-model-small-es-0.42/am/final.mdl", b"m" * 50_000)
        zf.writestr("vosk-model-small-es-0.42/conf/model.conf", b"--min-active=200\n")
        zf.writestr("vosk-model-small-es-0.42/README", b"test model\n")
    return buf.getvalue()


ARCHIVE = _zip_model()


class Handler(http.server.BaseHTTPRequestHandler):
    ranges: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        rng = self.headers.get("Range")
        Handler.ranges.append(rng or "")
        body, status = ARCHIVE, 200
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(ARCHIVE):
                self.send_response(416)
                self.end_headers()
                return
            body, status = ARCHIVE[start:], 206
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if status == 206:
            self.send_header("Content-Range", f"bytes {len(ARCHIVE) - len(body)}-{len(ARCHIVE) - 1}/"
                             f"{len(ARCHIVE)}")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    Handler.ranges = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/vosk-model-small-es-0.42.zip"
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
    assert check(spec, tmp_path)[0]
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
        fetch(_spec(server, size=len(ARCHIVE) + 1), tmp_path)
    assert err.value.code == "size-mismatch"


def test_offline_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(FetchError) as err:
        fetch(_spec(f"http://127.0.0.1:{port}/x.zip"), tmp_path, timeout=2)
    assert err.value.code == "offline"
    assert "conexión" in err.value.message


def test_find_model_order(tmp_path: Path) -> None:
    assert find_model(tmp_path).english  # nothing downloaded: English fallback
    sphinx = tmp_path / "cmusphinx-es-5.2" / "model_parameters" / "es.cd_ptm_4000"
    sphinx.mkdir(parents=True)
    for name in ("mdef", "means"):
        (sphinx / name).write_text("x")
    assert find_model(tmp_path) == find_model(tmp_path, "sphinx")
    assert find_model(tmp_path).path == sphinx and not find_model(tmp_path).english
    vosk = tmp_path / "vosk-model-small-es-0.42"
    (vosk / "am").mkdir(parents=True)
    (vosk / "conf").mkdir()
    (vosk / "am" / "final.mdl").write_text("x")
    assert find_model(tmp_path).kind == "vosk"
    assert find_model(tmp_path, "sphinx").kind == "sphinx"

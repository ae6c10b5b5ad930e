"""What an audit of 'models fetch' found: an archive whose members would land outside the model's
folder is refused by name, in Spanish (zip and tar alike); a TLS connection cut in the middle of a
download is a cut to resume, not an error of the disk; and a models folder, or a model in it,
that this user may not read is said in words, not with a traceback."""

from __future__ import annotations

import io
import os
import ssl
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Self

import pytest

from models import download as download_module
from models.catalog import SPHINX_ES, VOSK_ES
from models.download import FetchError
from models.fetch import check, fetch, install, partial_path
from referee.cli import main

VOSK_FILES = {"am/final.mdl": b"m" * 100, "conf/mfcc.conf": b"x\n", "conf/model.conf": b"y\n",
              "graph/HCLr.fst": b"fst"}
ROOT = VOSK_ES.folder


def _zip(*extra: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in VOSK_FILES.items():
            zf.writestr(f"{ROOT}/{name}", data)
        for name in extra:
            zf.writestr(name, b"EVIL")
    return buf.getvalue()


def _tar(extra: str = "", link: str = "") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in VOSK_FILES.items():
            info = tarfile.TarInfo(f"{ROOT}/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        if extra:
            info = tarfile.TarInfo(extra)
            info.size = 4
            tf.addfile(info, io.BytesIO(b"EVIL"))
        if link:
            info = tarfile.TarInfo(f"{ROOT}/graph/link")
            info.type, info.linkname = tarfile.SYMTYPE, link
            tf.addfile(info)
    return buf.getvalue()


UNSAFE = {
    "zip ../": (_zip("../evil"), "'../evil'"),
    "zip absolute": (_zip("/tmp/evil"), "'/tmp/evil'"),
    # zipfile would quietly trim this one to a file inside the model, and install it as one
    "zip ../ inside": (_zip(f"{ROOT}/../../evil"), f"'{ROOT}/../../evil'"),
    "tar ../": (_tar(extra="../evil"), "'../evil'"),
    "tar absolute": (_tar(extra="/tmp/evil"), "'/tmp/evil'"),
    "tar link out": (_tar(link="/etc/passwd"), f"'{ROOT}/graph/link', un enlace a algo fuera"),
}


@pytest.mark.parametrize("name", UNSAFE)
def test_an_archive_that_climbs_out_of_its_folder_is_refused_by_name(tmp_path: Path,
                                                                     name: str) -> None:
    body, member = UNSAFE[name]
    models = tmp_path / "models"
    models.mkdir()
    partial = partial_path(VOSK_ES, models)
    partial.write_bytes(body)
    with pytest.raises(FetchError) as err:
        install(VOSK_ES, partial, VOSK_ES.target(models))
    assert err.value.code == "unsafe-archive"
    assert f"trae {member}" in err.value.message and "no lo desarmo" in err.value.message
    assert "outside" not in err.value.message and "lo borré" in err.value.message
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["models"]  # nothing unpacked, anywhere


def test_a_link_inside_the_model_is_unpacked(tmp_path: Path) -> None:
    partial = partial_path(SPHINX_ES, tmp_path)  # a tar.gz, as the Sphinx model comes
    partial.write_bytes(_tar(link="HCLr.fst"))
    vosk_like = VOSK_ES.target(tmp_path)
    install(VOSK_ES, partial, vosk_like)
    assert (vosk_like / "graph" / "link").read_bytes() == b"fst"


class _CutTls:
    """An answer whose TLS connection ends without its close (``SSLEOFError``) after one block."""

    status = 200

    def __init__(self) -> None:
        self.headers = {"Content-Length": "1000"}
        self.blocks = [b"x" * 400]

    def read1(self, _size: int) -> bytes:
        if self.blocks:
            return self.blocks.pop()
        raise ssl.SSLEOFError(8, "EOF occurred in violation of protocol (_ssl.c:2427)")

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        pass


def test_a_tls_connection_cut_mid_download_is_kept_to_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def answer(*_: Any) -> _CutTls:
        return _CutTls()

    monkeypatch.setattr(download_module, "_open", answer)
    with pytest.raises(FetchError) as err:
        fetch(VOSK_ES, tmp_path)
    # before: «no pude guardar la descarga: EOF occurred … Elegí otra carpeta con --models-dir»
    assert err.value.code == "interrupted" and "sigue desde ahí" in err.value.message
    assert "otra carpeta" not in err.value.message  # the download was cut, not the disk's fault
    assert (f"volvé a correr 'truco-referee models fetch vosk-es --models-dir {tmp_path}'"
            in err.value.message)  # before: «volvé a correr el comando», whichever it was
    assert partial_path(VOSK_ES, tmp_path).stat().st_size == 400
    assert not check(VOSK_ES, tmp_path).ok


# -- a models folder, or a model in it, that this user may not read ---------------------------------


def test_a_models_folder_this_user_may_not_read_is_said_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Another user's folder of mode 700 given as --models-dir (before: a PermissionError out of
    'models list'; chmod does not stop root, so the system's answer is faked)."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(tmp_path) and real(path, mode))
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.endswith(
        f"no puedo mirar la carpeta de modelos {tmp_path}: no tengo permiso para entrar; elegí otra "
        "con --models-dir\n")


def test_a_model_folder_this_user_may_not_read_is_damaged_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder = VOSK_ES.target(tmp_path)
    for name, data in VOSK_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    real = Path.stat

    def stat(path: Path, **kwargs: Any) -> os.stat_result:
        if path.is_relative_to(folder) and path != folder:  # a folder of mode 000
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    assert main(["models", "check", "--models-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"vosk-es: está incompleto o dañado (no puedo leer {folder / 'am/final.mdl'}: no tengo " \
           "permiso)" in out
    assert "sphinx-es: no está" in out  # the search for a copy of it passed over that folder

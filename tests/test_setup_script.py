"""scripts/setup.sh speaks to the person setting up in Spanish, as the program does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_setup_without_root_says_in_spanish_which_packages_to_install(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    tools = tmp_path / "bin"  # a machine without the packages, a user who is not root, no sudo
    tools.mkdir()
    for name in ("dirname", "grep"):
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"no {name}")
        (tools / name).symlink_to(found)
    (tools / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")
    (tools / "id").write_text("#!/bin/sh\necho 1000\n")
    for script in ("dpkg-query", "id"):
        (tools / script).chmod(0o755)
    run = subprocess.run([bash, str(REPO / "scripts" / "setup.sh")], env={"PATH": str(tools)},
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 1
    assert run.stderr == (  # before: in English
        "truco-referee necesita estos paquetes de Debian: libportaudio2 espeak-ng\n"
        "instalalos como root: apt-get update && apt-get install -y libportaudio2 espeak-ng\n")

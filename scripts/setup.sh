#!/usr/bin/env bash
# Sets up truco-referee on Debian with Python 3.11: system packages, a virtual environment in .venv,
# and the project installed into it.  Usage: scripts/setup.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

# PortAudio for the microphone, espeak-ng for the demo's speech; Chromium for the browser tests.
packages=(libportaudio2 espeak-ng)
[ "$want_test" = 1 ] && packages+=(chromium)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt_cmd=(apt-get)
    elif command -v sudo >/dev/null; then
        apt_cmd=(sudo apt-get)
    else
        echo "truco-referee necesita estos paquetes de Debian: ${missing[*]}" >&2
        echo "instalalos como root: apt-get update && apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "instalando paquetes de Debian: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive "${apt_cmd[@]}" update -q
    DEBIAN_FRONTEND=noninteractive "${apt_cmd[@]}" install -y -q --no-install-recommends "${missing[@]}"
fi

python=${PYTHON:-python3.11}
command -v "$python" >/dev/null || python=python3
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ "$want_test" = 1 ]; then
    .venv/bin/python -m pip install -q -e ".[test]"
else
    .venv/bin/python -m pip install -q -e .
fi

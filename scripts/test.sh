#!/usr/bin/env bash
# Sets everything up (test dependencies and Chromium included) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
exec .venv/bin/python -m pytest -q "$@"

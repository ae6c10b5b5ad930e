#!/usr/bin/env bash
# Sets everything up and starts the referee with its tablet scoreboard.  Extra options go to `serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/truco-referee serve "$@"

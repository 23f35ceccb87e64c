#!/usr/bin/env bash
# Sets up Kaboom with everything the tests drive (Chromium, Xvfb, sgt-mines) and runs
# the whole suite: ruff, then pytest.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --system
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -q "$@"

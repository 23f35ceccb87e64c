#!/usr/bin/env bash
# Sets up Kaboom with the test extra and everything the tests drive (Chromium, Xvfb, sgt-mines,
# PostgreSQL, nginx) and runs the whole suite: ruff, mypy --strict on the package, then pytest.  Extra
# arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --test --system
.venv/bin/ruff check .
.venv/bin/mypy  # solver/, server/, bots/, kaboom/, bench/ and tests/, strict (pyproject.toml)
exec .venv/bin/python -m pytest -q "$@"

#!/usr/bin/env bash
# Sets up Kaboom and serves the game at http://127.0.0.1:8000 (SQLite file kaboom.db).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec .venv/bin/kaboom serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" --db "${KABOOM_DB:-kaboom.db}"

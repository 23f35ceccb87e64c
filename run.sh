#!/usr/bin/env bash
# Plays Kaboom at http://127.0.0.1:8000: sets up .venv with only what playing needs (pip runs
# again only when pyproject.toml changes), then runs `kaboom serve` with this script's
# arguments (./run.sh --port 9000). The database is KABOOM_DB, default the file kaboom.db.
# One process on 127.0.0.1 and no proxy: the local game. A public server is nginx in front
# of several processes (`docker compose up`, docs/deploy.md).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec .venv/bin/kaboom serve "$@"

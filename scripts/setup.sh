#!/usr/bin/env bash
# Sets up Kaboom in ./.venv: Python packages (editable install).
# With --system it also installs the Debian packages the test suite drives
# (Chromium, Xvfb, sgt-puzzles), when they are missing and we may use apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--system" ]]; then
  need=()
  for pkg in chromium xvfb sgt-puzzles xdotool x11-utils fonts-dejavu-core; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if ((${#need[@]})); then
    if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null; then
      echo "setup: need root to install: ${need[*]}" >&2; exit 1
    fi
    SUDO=$([[ $(id -u) -eq 0 ]] && echo "" || echo sudo)
    echo "setup: installing ${need[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'

#!/usr/bin/env bash
# Sets up Kaboom in ./.venv (an editable install of this checkout).
#   scripts/setup.sh            only what playing needs (./run.sh)
#   scripts/setup.sh --test     also the test extra: pytest, Playwright, ruff, build... (./test.sh)
#   --system                    also the Debian packages the tests drive (Chromium, Xvfb,
#                               sgt-puzzles, gnome-mines, PostgreSQL, Prometheus, nginx and
#                               envsubst), when missing and apt-get may be used
# pip runs only when pyproject.toml (or the Cython kernels' sources) changed since the last
# setup of that kind: a stamp in .venv holds their hash, so a second ./run.sh starts the
# server at once.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=play system=""
for arg in "$@"; do
  case "$arg" in
    --test) kind=test ;;
    --system) system=1 ;;
    *) echo "usage: $0 [--test] [--system]" >&2; exit 2 ;;
  esac
done

if [[ -n "$system" ]]; then
  need=()
  for pkg in chromium xvfb sgt-puzzles gnome-mines xdotool x11-utils fonts-dejavu-core postgresql \
      prometheus nginx gettext-base; do
    # installed, not just known (a removed package keeps its config files, and dpkg -s
    # then answers 0)
    [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) == "install ok installed" ]] \
      || need+=("$pkg")
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

# The tests' only npm package (axe-core, the accessibility check; see package.json).
if [[ $kind == test && ! -f node_modules/axe-core/axe.min.js ]]; then
  if ! command -v npm >/dev/null && [[ -n "$system" ]]; then
    SUDO=$([[ $(id -u) -eq 0 ]] && echo "" || echo sudo)
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  npm ci --silent --no-audit --no-fund >/dev/null
fi

# The compiled kernels are built by that install too, so their sources count as well.
hash=$(cat pyproject.toml $(ls setup.py kaboom/solver/_kernels/*.{pyx,pxd} 2>/dev/null) \
  | sha256sum | cut -d' ' -f1)
done_for() { [[ -x .venv/bin/kaboom && "$(cat ".venv/.kaboom-setup-$1" 2>/dev/null)" == "$hash" ]]; }
# A test setup holds everything playing needs, so it serves ./run.sh too.
if done_for test || { [[ $kind == play ]] && done_for play; }; then
  exit 0
fi

if [[ ! -x .venv/bin/python ]]; then
  "${PYTHON:-python3}" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
echo "setup: installing Kaboom into .venv ($kind)"
# A venv made before the distribution was renamed (it was "kaboom", a name another project
# owns on PyPI) still holds that editable install of this checkout: take it out.
if .venv/bin/python -m pip show kaboom 2>/dev/null | grep -qx "Editable project location: $PWD"; then
  .venv/bin/python -m pip uninstall -q -y kaboom
fi
# Every editable install by setuptools ends with a warning block about folders named like the
# package in the working directory; here that folder is the package itself (kaboom/), so the
# warning says nothing to act on. Warnings of any other text still show.
extra=$([[ $kind == test ]] && echo '[test]' || echo '')
PYTHONWARNINGS="ignore:Editable installation" .venv/bin/python -m pip install -q -e ".$extra"
echo "$hash" >".venv/.kaboom-setup-$kind"

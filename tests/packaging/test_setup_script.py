"""scripts/setup.sh runs pip only when pyproject.toml changed, and installs what was asked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Stands in for .venv/bin/python: records how pip was called instead of installing.
# `pip show kaboom` answers as for the old editable install while .venv/old-kaboom exists.
FAKE_PYTHON = """#!/bin/sh
venv="$(dirname "$0")/.."
echo "$*" >> "$venv/calls"
if [ "$*" = "-m pip show kaboom" ] && [ -e "$venv/old-kaboom" ]; then
  echo "Name: kaboom"; echo "Editable project location: $PWD"
fi
"""


def checkout(tmp: Path) -> Path:
    (tmp / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp / "scripts" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    bin_dir = tmp / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in [("python", FAKE_PYTHON), ("kaboom", "#!/bin/sh\n")]:
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    # axe-core already in place: the test setup's npm step is not what this file checks.
    axe = tmp / "node_modules" / "axe-core" / "axe.min.js"
    axe.parent.mkdir(parents=True)
    axe.write_text("/* stands in for npm ci's axe-core */\n")
    return tmp


def setup(tmp: Path, *args: str) -> list[str]:
    """Runs setup.sh and returns the pip calls it made."""
    calls = tmp / ".venv" / "calls"
    calls.unlink(missing_ok=True)
    subprocess.run(["bash", "scripts/setup.sh", *args], cwd=tmp, check=True,
                   capture_output=True, timeout=60)
    made = calls.read_text().splitlines() if calls.exists() else []
    return [c for c in made if c != "-m pip show kaboom"]


def test_pip_runs_once_per_pyproject_and_the_test_setup_serves_play(tmp_path: Path) -> None:
    tmp = checkout(tmp_path)
    assert setup(tmp) == ["-m pip install -q -e ."]
    assert setup(tmp) == []  # nothing changed: straight to the server
    assert setup(tmp, "--test") == ["-m pip install -q -e .[test]"]
    assert setup(tmp, "--test") == []
    with open(tmp / "pyproject.toml", "a") as f:
        f.write("\n# changed\n")
    assert setup(tmp) == ["-m pip install -q -e ."]  # the play install, not the test extra
    assert setup(tmp, "--test") == ["-m pip install -q -e .[test]"]
    assert setup(tmp) == []  # the test setup holds everything playing needs


def test_a_changed_kernel_source_is_built_again(tmp_path: Path) -> None:
    """A kernel module or a helper file the kernels cimport: either changes the build."""
    tmp = checkout(tmp_path)
    kernels = tmp / "kaboom" / "solver" / "_kernels"
    kernels.mkdir(parents=True)
    module, helpers = kernels / "counting.pyx", kernels / "board.pxd"
    module.write_text("# v1\n")
    helpers.write_text("# v1\n")
    assert setup(tmp) == ["-m pip install -q -e ."]
    assert setup(tmp) == []
    module.write_text("# v2\n")
    assert setup(tmp) == ["-m pip install -q -e ."]
    helpers.write_text("# v2\n")
    assert setup(tmp) == ["-m pip install -q -e ."]
    (kernels / "groups.pyx").write_text("# new\n")
    assert setup(tmp) == ["-m pip install -q -e ."]
    assert setup(tmp) == []


def test_the_old_distribution_name_is_replaced(tmp_path: Path) -> None:
    # A venv from before the rename holds "kaboom" (another project's name on PyPI) as an
    # editable install of this checkout: it goes before the new name goes in.
    tmp = checkout(tmp_path)
    (tmp / ".venv" / "old-kaboom").touch()
    assert setup(tmp) == ["-m pip uninstall -q -y kaboom", "-m pip install -q -e ."]


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    tmp = checkout(tmp_path)
    done = subprocess.run(["bash", "scripts/setup.sh", "--tests"], cwd=tmp,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr

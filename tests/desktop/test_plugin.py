"""A game profile from another package: installed with pip, found by its entry point, played.

The package is built here as a wheel (the format pip installs; no build backend needed)
and holds one module, the kind of profile docs/desktop.md shows: sgt-mines read with the
base class's default cell rules only.  Nothing in this project names it.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop.cli import kaboom_desktop

pytestmark = pytest.mark.usefixtures("need_sgt_mines")


PLUGIN = '''
"""sgt-mines under another name, with the default cell rules."""

import shutil

from kaboom.bots.desktop import Profile


class PluginMines(Profile):
    name = "plugin-mines"
    window_pattern = r"^sgt-mines$"
    palette = {"1": (0, 0, 255), "2": (0, 128, 0), "3": (255, 0, 0), "4": (0, 0, 128),
               "5": (128, 0, 0), "6": (0, 128, 128), "7": (0, 0, 0), "8": (128, 128, 128)}

    def command(self, game_id):
        return [shutil.which("sgt-mines") or "/usr/games/sgt-mines", game_id or "9x9n10"]

    def mine_count(self, game_id, width, height):
        return int((game_id or "9x9n10").split("n")[1].split("#")[0])
'''


def _wheel(folder: Path) -> Path:
    """A minimal wheel of the package ``kaboom_plugin_mines`` with its entry point."""
    dist = "kaboom_plugin_mines-0.1.dist-info"
    files = {
        "kaboom_plugin_mines/__init__.py": PLUGIN,
        f"{dist}/METADATA": "Metadata-Version: 2.1\nName: kaboom-plugin-mines\nVersion: 0.1\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
        f"{dist}/entry_points.txt": "[kaboom.desktop_profiles]\n"
                                    "plugin-mines = kaboom_plugin_mines:PluginMines\n",
    }
    path = folder / "kaboom_plugin_mines-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr(f"{dist}/RECORD", "".join(f"{n},,\n" for n in [*files, f"{dist}/RECORD"]))
    return path


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[None]:
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-deps", "--no-index", str(_wheel(tmp_path))],
                   check=True, timeout=120)
    try:
        yield
    finally:
        subprocess.run([*pip, "uninstall", "-y", "kaboom-plugin-mines"], check=True, timeout=120)


def test_an_installed_profile_package_adds_a_game(installed_plugin: None, xdisplay: str) -> None:
    played = kaboom_desktop("--game", "plugin-mines", "--game-id", "9x9n10#plugin",
                            "--games", "2", "--speed", "0", display=xdisplay, timeout=180)
    assert played.returncode == 0, played.stderr
    assert "won 2/2" in played.stdout  # no-guess boards: a sound reader always wins
    unknown = kaboom_desktop("--game", "no-such-game", display=xdisplay, timeout=180)
    assert "plugin-mines" in unknown.stderr  # listed with the built-in games


def test_the_profile_is_gone_once_the_package_is(xdisplay: str) -> None:
    proc = kaboom_desktop("--game", "plugin-mines", display=xdisplay, timeout=180)
    assert proc.returncode == 2
    assert "unknown game 'plugin-mines'" in proc.stderr

"""A game profile from another package: installed with pip, found by its entry point, played;
and one written for an older profile contract, refused when it is loaded.

Each package is built here as a wheel (the format pip installs; no build backend needed)
and installed into this environment, as a user installs a plugin.  The first holds one
module, the kind of profile docs/desktop.md shows: sgt-mines read with the base class's
default cell rules only.  The second holds profiles of older contracts, the shapes an
outside author's package had: undeclared with contract 1's overrides (``classify(look)``,
``calibrate`` assigning ``self.calibration``, ``self.is_covered``), one declaring
contract 2, one importing Kaboom's packages from before the one namespace, one from a
newer Kaboom.  Nothing in this project names them.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kaboom.bots.desktop import CONTRACT_VERSION, ProfileContractError, find_profile
from tests.desktop.cli import kaboom_desktop

PLUGIN = '''
"""sgt-mines under another name, with the default cell rules."""

import shutil

from kaboom.bots.desktop import Profile


class PluginMines(Profile):
    contract = 3
    name = "plugin-mines"
    window_pattern = r"^sgt-mines$"
    palette = {"1": (0, 0, 255), "2": (0, 128, 0), "3": (255, 0, 0), "4": (0, 0, 128),
               "5": (128, 0, 0), "6": (0, 128, 128), "7": (0, 0, 0), "8": (128, 128, 128),
               "flag": (255, 0, 0)}

    def command(self, game_id):
        return [shutil.which("sgt-mines") or "/usr/games/sgt-mines", game_id or "9x9n10"]

    def mine_count(self, game_id, width, height):
        return int((game_id or "9x9n10").split("n")[1].split("#")[0])
'''

# An outside author's two-game package as it was written for contract 1 (2026-11-23 to
# 2026-11-27), after the namespace move: it imports, it loaded, and it failed on the
# first read with an AttributeError (calibrate) and a TypeError (classify).
OLD = '''
"""Profiles written for the desktop contracts before this one."""

import shutil

from kaboom.bots.desktop import Calibration, CellLook, Profile

SGT = {"1": (0, 0, 255), "2": (0, 128, 0), "3": (255, 0, 0), "4": (0, 0, 128),
       "5": (128, 0, 0), "6": (0, 128, 128), "7": (0, 0, 0), "8": (128, 128, 128)}


class OldMines(Profile):
    name = "old-mines"
    window_pattern = r"^sgt-mines$"
    palette = SGT

    def command(self, game_id):
        return [shutil.which("sgt-mines") or "/usr/games/sgt-mines", game_id or "9x9n10"]

    def mine_count(self, game_id, width, height):
        return 10

    def calibrate(self, image, grid):
        self.calibration = super().calibrate(image, grid)
        return self.calibration

    def classify(self, look):
        if self.is_covered(look):
            return "#"
        return look.number(mine_share=0.45)


class SecondMines(Profile):
    """Contract 2's shape, written before contracts were declared."""

    name = "second-mines"
    window_pattern = r"^sgt-mines$"
    palette = SGT

    def mine_count(self, game_id, width, height):
        return 10

    def classify(self, look, calibration):
        return super().classify(look, calibration)


class DeclaredTwo(SecondMines):
    contract = 2
    name = "declared-two"


class FutureMines(SecondMines):
    contract = 99
    name = "future-mines"
'''

MOVED = '''
from bots.desktop.profile import Profile  # Kaboom's package before 2026-11-28


class MovedMines(Profile):
    name = "moved-mines"
'''


def _wheel(folder: Path, dist: str, modules: dict[str, str], entry_points: dict[str, str]
           ) -> Path:
    """A minimal wheel of distribution ``dist`` holding ``modules`` (file name -> code),
    with its ``kaboom.desktop_profiles`` entry points."""
    package = dist.replace("-", "_")
    info = f"{package}-0.1.dist-info"
    files = {
        **modules,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
        f"{info}/entry_points.txt": "[kaboom.desktop_profiles]\n" + "".join(
            f"{name} = {target}\n" for name, target in entry_points.items()),
    }
    path = folder / f"{package}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in [*files, f"{info}/RECORD"]))
    return path


def _installed(wheel: Path, dist: str) -> Iterator[None]:
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-deps", "--no-index", str(wheel)],
                   check=True, timeout=120)
    try:
        yield
    finally:
        subprocess.run([*pip, "uninstall", "-y", dist], check=True, timeout=120)


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[None]:
    wheel = _wheel(tmp_path, "kaboom-plugin-mines", {"kaboom_plugin_mines/__init__.py": PLUGIN},
                   {"plugin-mines": "kaboom_plugin_mines:PluginMines"})
    yield from _installed(wheel, "kaboom-plugin-mines")


@pytest.fixture(scope="module")
def installed_old_plugins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    wheel = _wheel(tmp_path_factory.mktemp("old"), "kaboom-old-mines",
                   {"kaboom_old_mines/__init__.py": OLD, "kaboom_old_mines/moved.py": MOVED},
                   {"old-mines": "kaboom_old_mines:OldMines",
                    "second-mines": "kaboom_old_mines:SecondMines",
                    "declared-two": "kaboom_old_mines:DeclaredTwo",
                    "future-mines": "kaboom_old_mines:FutureMines",
                    "moved-mines": "kaboom_old_mines.moved:MovedMines"})
    yield from _installed(wheel, "kaboom-old-mines")


@pytest.mark.usefixtures("need_sgt_mines")
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


def test_a_profile_of_the_old_contract_is_refused_when_it_is_loaded(
        installed_old_plugins: None, xdisplay: str) -> None:
    """The command stops before any game with one message naming each change of shape
    and where the migration notes are, never a traceback in the middle of a game."""
    for action in ("play", "look"):
        proc = kaboom_desktop(action, "--game", "old-mines", "--game-id", "9x9n10#old",
                              "--xvfb", display=xdisplay, timeout=180)
        assert proc.returncode == 2, proc.stderr
        err = proc.stderr
        assert "Traceback" not in err and proc.stdout == ""
        assert err.startswith("profile 'old-mines' (kaboom_old_mines:OldMines, from the "
                              "package kaboom-old-mines 0.1) cannot be loaded: it declares no "
                              "profile contract")
        assert "classify(look) takes no calibration: since contract 2 it is " \
               "classify(look, calibration)" in err
        assert "calibrate assigns .calibration: since contract 2 calibrate returns the " \
               "Calibration and keeps nothing" in err
        assert "classify calls self.is_covered, gone in contract 2" in err
        assert "docs/desktop.md, 'Profile contract versions'" in err
        assert f"then declare contract = {CONTRACT_VERSION}" in err


@pytest.mark.parametrize(("game", "said"), [
    ("second-mines", "it declares no profile contract"),
    ("declared-two", "it is written for profile contract 2; this Kaboom implements contract 3"),
    ("future-mines", "is written for profile contract 99, newer than this Kaboom's (3): "
                     "install the kaboom-minesweeper it was written for"),
    ("moved-mines", "it imports 'bots', a package of Kaboom before contract 2"),
])
def test_each_other_contract_is_refused_with_its_reason(installed_old_plugins: None,
                                                        game: str, said: str) -> None:
    with pytest.raises(ProfileContractError) as refused:
        find_profile(game)
    assert said in str(refused.value)
    assert isinstance(refused.value, ValueError)  # the command's usage errors: exit 2
    if game == "declared-two":  # what changed since 2, and not what changed before
        assert "contract 3: the default classify reads ink on a covered tile as a flag " \
               "only in the palette's 'flag' colour" in str(refused.value)
        assert "contract 2:" not in str(refused.value)

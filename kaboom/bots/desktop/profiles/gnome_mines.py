"""GNOME Mines (Debian's ``gnome-mines``), the Minesweeper most Linux desktops ship.

Written against docs/desktop.md's override points only, as another package would.

The look is GNOME Mines' default theme (``bgcolors``): covered squares are flat grey
rounded tiles on a lighter background, open squares a lighter flat grey, and a number
is told by its square's colour (the digit itself is the same dark grey for all).  After
a loss the other mines sit on dark grey squares, the one stepped on is a red star and
a flag with no mine under it sits on a red square.  The
game is launched with its own settings file, so it opens the chosen size in a window
large enough to read, without animations or question marks, whatever the user set.

Game ids: ``small`` (8x8, 10 mines), ``medium`` (16x16, 40) or ``big`` (30x16, 99).
GNOME Mines has no seeds: each launch is a new random board, and the first click is
always safe with no mine around it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np

from kaboom.bots.desktop.calibration import Calibration
from kaboom.bots.desktop.grid import Grid, find_grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook
from kaboom.bots.desktop.profile import Profile
from kaboom.bots.desktop.screen import Window

__all__ = ["GnomeMines"]

_PRESETS = {"small": (8, 8, 10), "medium": (16, 16, 40), "big": (30, 16, 99)}
_WINDOW = {"small": (610, 460), "medium": (769, 634), "big": (1109, 608)}


def _size(game_id: str | None) -> str:
    """The preset a game id names (the game's own ``--small``/``--medium``/``--big``)."""
    size = game_id or "medium"
    if size not in _PRESETS:
        raise ValueError(f"gnome-mines game ids are small, medium or big, not {size!r}")
    return size


def _hex(code: str) -> RGB:
    return int(code[1:3], 16), int(code[3:5], 16), int(code[5:7], 16)


# the number squares' colours, from the theme's theme.css
_NUMBERS = {str(n): _hex(c) for n, c in enumerate(
    ["#DDFAC3", "#ECEDBF", "#EDDAB4", "#EDC38A", "#F7A1A2", "#FEA785", "#FF7D60", "#FF323C"],
    start=1)}


class GnomeMines(Profile):
    """``gnome-mines`` 40 from Debian, default theme."""

    contract = 3
    name = "gnome-mines"
    window_pattern = r"^gnome-mines$"
    stable_gap = 0.03
    raised_tiles = False  # flat tiles; the mine squares after a loss look raised
    covered_colour = (186, 189, 182)
    open_colour = (222, 222, 220)
    exploded = (204, 0, 0)  # the red of the star stepped on and of a wrong flag's square
    exploded_share = 0.05
    palette: ClassVar[Mapping[str, RGB]] = {
        "ink": _hex("#2e3436"),  # digits, flags, mines
        "red": _hex("#cc0000"),  # the exploded mine
    }
    _MINE_SQUARE = _hex("#888a85")  # a mine not stepped on, after a loss
    _HOVERED = (211, 215, 207)  # a covered square under the pointer
    _BACKGROUND = (246, 245, 244)  # the window, between the squares

    def __init__(self) -> None:
        super().__init__()
        self._config: tempfile.TemporaryDirectory[str] | None = None

    def command(self, game_id: str | None) -> list[str]:
        size = _size(game_id)
        exe = shutil.which("gnome-mines") or "/usr/games/gnome-mines"
        self._write_settings(*_WINDOW[size])
        return [exe, f"--{size}"]

    def can_launch(self, game_id: str | None) -> bool:
        _size(game_id)
        return True

    def environment(self) -> dict[str, str]:
        # a settings file of its own (GLib's keyfile backend), so the user's
        # settings neither change the look nor get changed
        if self._config is None:
            self._write_settings(*_WINDOW["medium"])
        assert self._config is not None
        return {"GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": self._config.name}

    def _write_settings(self, width: int, height: int) -> None:
        if self._config is None:
            self._config = tempfile.TemporaryDirectory(prefix="kaboom-gnome-mines-",
                                                       ignore_cleanup_errors=True)
        folder = Path(self._config.name) / "glib-2.0" / "settings"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "keyfile").write_text(
            "[org/gnome/Mines]\n"
            f"window-width={width}\nwindow-height={height}\nwindow-is-maximized=false\n"
            "use-animations=false\nuse-question-marks=false\nuse-autoflag=false\n"
            "theme='bgcolors'\n")

    def new_game(self, pointer: Pointer, window: Window, image: np.ndarray,
                 grid: Grid | None) -> None:
        # "Restart game with current settings"; its Ctrl+N shows the size chooser
        pointer.key("Control_L", "r")

    def find_grid(self, image: np.ndarray) -> Grid:
        # Open squares are barely darker than the gaps between squares, so a board
        # that is mostly open has faint lines: look at a two-tone copy first (the
        # window's background white, everything else black).
        background = np.asarray(self._BACKGROUND, dtype=np.int16)
        off = np.abs(image[..., :3].astype(np.int16) - background).sum(axis=2) > 12
        return find_grid(np.where(off[..., None], 0, 255).astype(np.uint8))

    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        for w, h, mines in _PRESETS.values():
            if (w, h) == (width, height):
                return mines
        raise ValueError(f"cannot tell the mine count of a {width}x{height} gnome-mines board; "
                         "pass --mines")

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        if self.near(look.surface, self._MINE_SQUARE, 20):
            return "*" if look.ink.get("ink", 0.0) > 0.05 else None
        if self.near(look.surface, self.palette["red"], 40):
            return "!"  # a flag on a square with no mine, after a loss
        if look.ink.get("red", 0.0) > 0.05:
            return "X"  # the mine that was stepped on
        if cal.is_covered(look) or self.near(look.surface, self._HOVERED, 8):
            if look.ink_share < 0.05:
                return "#"
            return "F"
        for digit, colour in _NUMBERS.items():
            if self.near(look.surface, colour, 12):
                return digit
        if cal.is_open(look) or cal.open is None:
            return "0" if look.ink_share < 0.03 else None
        return None

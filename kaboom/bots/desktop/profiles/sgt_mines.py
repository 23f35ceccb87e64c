"""Simon Tatham's Mines (Debian's ``sgt-mines``), a GTK window.

Covered squares are raised tiles (light top-left bevel, dark bottom-right), open
squares are flat with a thin grid line, digits use the fixed colours of ``mines.c``
(1 blue, 2 green, 3 red, 4 navy, 5 maroon, 6 teal, 7 black, 8 grey), a flag is red and
black ink on a raised tile, and the mine that was stepped on sits on a red square.
When a game is won the program flags every mine itself.

Game ids: ``30x16n99#SEED`` (random, seeded) or ``9x9:0,0,u<hex>`` (an exact layout:
the square opened at the start, then the mine bitmap row-major, most significant bit
first).  ``MINES_TILESIZE`` sets the tile size in pixels.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from kaboom.bots.desktop.calibration import Calibration
from kaboom.bots.desktop.grid import Grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance
from kaboom.bots.desktop.profile import Profile
from kaboom.bots.desktop.screen import Window
from kaboom.solver import PRESETS

__all__ = ["SgtMines", "encode_layout"]

# Standard presets of the Type menu: size -> mines
_PRESETS = {(width, height): mines for width, height, mines in PRESETS.values()}


def encode_layout(width: int, height: int, mines: set[tuple[int, int]] | frozenset[tuple[int, int]],
                  start: tuple[int, int]) -> str:
    """The descriptive game id for an exact layout with ``start`` opened at the beginning."""
    bits = [0] * (width * height)
    for x, y in mines:
        bits[y * width + x] = 1
    bits += [0] * (-len(bits) % 4)
    digits = "".join(f"{int(''.join(map(str, bits[i:i + 4])), 2):x}"
                     for i in range(0, len(bits), 4))
    return f"{width}x{height}:{start[0]},{start[1]},u{digits}"


class SgtMines(Profile):
    """``sgt-mines`` from the sgt-puzzles package."""

    contract = 3
    name = "sgt-mines"
    window_pattern = r"^sgt-mines$"
    stable_gap = 0.02  # GTK paints a move in one go
    raised_tiles = True
    exploded: ClassVar[RGB | None] = (255, 0, 0)  # the square of the mine stepped on
    palette: ClassVar[Mapping[str, RGB]] = {
        "1": (0, 0, 255), "2": (0, 128, 0), "3": (255, 0, 0), "4": (0, 0, 128),
        "5": (128, 0, 0), "6": (0, 128, 128), "7": (0, 0, 0), "8": (128, 128, 128),
        "white": (255, 255, 255),
    }

    def __init__(self, tile_size: int | None = None) -> None:
        super().__init__()
        self.tile_size = tile_size

    def command(self, game_id: str | None) -> list[str]:
        exe = shutil.which("sgt-mines") or "/usr/games/sgt-mines"
        return [exe] + ([game_id] if game_id else [])

    def environment(self) -> dict[str, str]:
        return {"MINES_TILESIZE": str(self.tile_size)} if self.tile_size else {}

    def next_game_id(self, game_id: str | None, index: int) -> str | None:
        if game_id and "#" in game_id and index > 0:
            return f"{game_id}-{index}"
        return game_id

    def new_game(self, pointer: Pointer, window: Window, image: np.ndarray,
                 grid: Grid | None) -> None:
        pointer.key("n")

    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        if game_id:
            layout = re.search(r":\d+,\d+,u([0-9a-fA-F]+)", game_id)
            if layout:
                return sum(bin(int(d, 16)).count("1") for d in layout.group(1))
            params = re.match(r"\d+x\d+n(\d+)", game_id)
            if params:
                return int(params.group(1))
        if (width, height) in _PRESETS:
            return _PRESETS[width, height]
        raise ValueError(f"cannot tell the mine count of a {width}x{height} sgt-mines board; "
                         "pass it in the game id (e.g. 20x20n60#seed)")

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        red = (255, 0, 0)
        # the mine that was stepped on: a red square (the mine may fill the middle)
        if colour_distance(look.surface, red) < 60 or (
                look.ink.get("3", 0) > 0.2 and max(look.surface) < 60):
            return "X"
        raised = look.relief >= 0.5 * cal.relief
        if raised and self.near(look.surface, cal.covered):
            return "F" if look.ink_share >= 0.05 else "#"
        if raised or (cal.open is not None and not self.near(look.surface, cal.open)):
            return None
        return look.number(mine_share=0.45)

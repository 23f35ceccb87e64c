"""Offline checks on stored screenshots: grid detection and cell reading, no X needed."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaboom.bots.desktop.driver import nearest_first
from kaboom.bots.desktop.grid import GridNotFoundError, find_grid
from kaboom.bots.desktop.profile import find_profile, profile_names
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.solver.position import Move, Position

SCREENS = Path(__file__).resolve().parents[1] / "data" / "screens"
SHOTS = sorted(SCREENS.glob("*/*.png"))


@pytest.mark.parametrize("shot", SHOTS, ids=[f"{p.parent.name}/{p.stem}" for p in SHOTS])
def test_reference_screenshot_reads_back_exactly(shot: Path) -> None:
    want = Position.from_text(shot.with_suffix(".txt").read_text())
    image = np.asarray(Image.open(shot).convert("RGB"))
    profile = find_profile(shot.parent.name)
    grid = profile.find_grid(image)
    assert grid.size == (want.width, want.height)
    assert list(profile.read(image, grid)) == list(want.rows)


def test_grid_is_found_wherever_the_board_sits() -> None:
    shot = SCREENS / "sgt-mines" / "9x9-tile32.png"
    image = np.asarray(Image.open(shot).convert("RGB"))
    base = find_grid(image)
    canvas = np.full((image.shape[0] + 100, image.shape[1] + 150, 3), 40, dtype=np.uint8)
    canvas[70:70 + image.shape[0], 110:110 + image.shape[1]] = image
    moved = find_grid(canvas)
    assert moved.size == base.size
    assert (moved.left - base.left, moved.top - base.top) == (110, 70)


def test_no_grid_in_a_blank_image() -> None:
    with pytest.raises(GridNotFoundError):
        find_grid(np.full((300, 300, 3), 200, dtype=np.uint8))


def test_profiles_are_registered_by_name() -> None:
    assert {"sgt-mines", "kaboom-page"} <= set(profile_names())
    with pytest.raises(ValueError, match="unknown game"):
        find_profile("no-such-game")


def test_sgt_mines_game_ids() -> None:
    mines = {(4, 4), (8, 7), (0, 8), (7, 8), (8, 8)}
    game_id = encode_layout(9, 9, mines, (0, 0))
    assert game_id == "9x9:0,0,u000000000080000001818"  # the layout from the issue
    profile = SgtMines()
    assert profile.mine_count(game_id, 9, 9) == 5
    assert profile.mine_count("30x16n99#seed", 30, 16) == 99
    assert profile.mine_count(None, 16, 16) == 40
    assert profile.next_game_id("16x16n40#s", 0) == "16x16n40#s"
    assert profile.next_game_id("16x16n40#s", 3) == "16x16n40#s-3"


def test_clicks_go_to_the_nearest_cell_next() -> None:
    moves = [Move.reveal(x, y) for x, y in [(9, 0), (0, 0), (5, 0), (1, 0), (8, 0)]]
    tour = nearest_first(moves, (0.0, 0.0), lambda x, y: (10.0 * x, 0.0))
    assert [m.x for m in tour] == [0, 1, 5, 8, 9]
    # a greedy tour never jumps further than needed to the next remaining cell
    here = (0.0, 0.0)
    left = list(moves)
    for m in tour:
        best = min(math.dist(here, (10.0 * c.x, 0.0)) for c in left)
        assert math.dist(here, (10.0 * m.x, 0.0)) == best
        left.remove(m)
        here = (10.0 * m.x, 0.0)

"""The grid finder does not depend on the board's frame, and snaps to the tiles.

Every stored shot of the shipped games (and of xbomb and xdemineur) is read with its
frame recoloured: white, black, each of the board's own commonest colours (the covered
and open surfaces, the lines), and light on two sides with dark on the other two (a
frame as light as the tiles' highlight where a bevel starts).  The grid must be the one
the untouched shot gives, cell for cell.  Moving the picture by a pixel or two must move
the grid by exactly as much: a phase found by rounding jumped between neighbouring
pixels, and only a grid snapped to the tiles stays on them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaboom.bots.desktop import RGB, Grid, Profile, find_grid
from kaboom.bots.desktop.profile import find_profile

DATA = Path(__file__).resolve().parents[1] / "data"
SHOTS = sorted((DATA / "screens").glob("*/*.png")) + sorted((DATA / "calibration").glob("*.png"))
FRAME = 12  # pixels of frame around the board that are recoloured


def _finder(shot: Path) -> Profile | None:
    """The shipped game's profile for a shot of it (its own find_grid), or ``None``
    for the generic finder."""
    return find_profile(shot.parent.name) if shot.parent.parent.name == "screens" else None


def _find(shot: Path, image: np.ndarray) -> Grid:
    profile = _finder(shot)
    return profile.find_grid(image) if profile is not None else find_grid(image)


def _boxes(grid: Grid) -> list[tuple[int, int, int, int]]:
    return [grid.rect(x, y) for x, y in grid.cells()]


def _board(grid: Grid) -> tuple[int, int, int, int]:
    x0, y0, _, _ = grid.rect(0, 0)
    _, _, x1, y1 = grid.rect(grid.cols - 1, grid.rows - 1)
    return x0, y0, x1, y1


def _frames(image: np.ndarray, grid: Grid) -> dict[str, np.ndarray]:
    """The shot with the band of ``FRAME`` pixels around the board recoloured, by name."""
    x0, y0, x1, y1 = _board(grid)
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    band = ((ys >= y0 - FRAME) & (ys < y1 + FRAME) & (xs >= x0 - FRAME) & (xs < x1 + FRAME)
            & ~((ys >= y0) & (ys < y1) & (xs >= x0) & (xs < x1)))
    before = (ys < y0) | ((xs < x0) & (ys < y1))  # the top and left sides of the band
    board = image[y0:y1, x0:x1].reshape(-1, 3)
    common: list[RGB] = [(int(r), int(g), int(b)) for (r, g, b), _ in
                         Counter(map(tuple, board.tolist())).most_common(3)]
    light, dark = max(common, key=sum), min(common, key=sum)
    colours: dict[str, tuple[RGB, RGB]] = {
        "white": ((255, 255, 255),) * 2, "black": ((0, 0, 0),) * 2,
        **{f"board colour {c}": (c, c) for c in common},
        "light top-left, dark bottom-right": (light, dark),
        "dark top-left, light bottom-right": (dark, light),
    }
    out = {}
    for name, (first, second) in colours.items():
        painted = image.copy()
        painted[band & before] = first
        painted[band & ~before] = second
        out[name] = painted
    return out


@pytest.mark.parametrize("shot", SHOTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_grid_does_not_depend_on_the_frame(shot: Path) -> None:
    image = np.asarray(Image.open(shot).convert("RGB"))
    grid = _find(shot, image)
    rows = [r for r in shot.with_suffix(".txt").read_text().split() if "=" not in r]
    assert grid.size == (len(rows[0]), len(rows))
    for name, painted in _frames(image, grid).items():
        found = _find(shot, painted)
        assert found.size == grid.size, name
        assert _boxes(found) == _boxes(grid), name


@pytest.mark.parametrize("shot", SHOTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_moved_picture_moves_the_grid_by_as_much(shot: Path) -> None:
    image = np.asarray(Image.open(shot).convert("RGB"))
    grid = _find(shot, image)
    for dx, dy in ((1, 0), (0, 1), (2, 3)):
        moved = np.empty_like(image)
        moved[:] = image[0, 0]
        moved[dy:, dx:] = image[:image.shape[0] - dy, :image.shape[1] - dx]
        found = _find(shot, moved)
        assert _boxes(found) == [(x0 + dx, y0 + dy, x1 + dx, y1 + dy)
                                 for x0, y0, x1, y1 in _boxes(grid)], (dx, dy)

"""Generic calibration on the two kinds of game the bevel-based one failed on.

xbomb draws covered squares as a 1-pixel checkerboard and open ones flat white, with
no bevel; xdemineur draws covered and open squares in the same grey, told apart by the
bevel alone.  A profile with nothing but a palette (the base class's rules) must read
both shots exactly.  The boards were labelled by eye from the PNGs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaboom.bots.desktop import (
    Calibration,
    CellLook,
    Grid,
    Profile,
    UnsureError,
    find_grid,
    locate_colour,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "calibration"


class Plain(Profile):
    """Only what a profile must say; every rule is the base class's."""

    contract = 3
    name = "plain"
    window_pattern = "^$"

    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        return 10


def plain(palette: dict[str, tuple[int, int, int]]) -> Profile:
    """A :class:`Plain` profile reading ``palette``: a class of its own, as every real
    profile is (the palette is a class variable)."""

    class Shot(Plain):
        pass

    Shot.palette = palette
    return Shot()


PALETTES = {
    "xbomb-8x8": {"1": (0, 0, 160), "2": (0, 128, 0), "3": (160, 0, 0)},
    "xdemineur-30x16": {"1": (0, 0, 255), "2": (0, 128, 0), "3": (255, 0, 0)},
}


@pytest.mark.parametrize("shot", sorted(PALETTES))
def test_flat_textured_and_same_grey_boards_read_exactly(shot: str) -> None:
    image = np.asarray(Image.open(DATA / f"{shot}.png").convert("RGB"))
    want = (DATA / f"{shot}.txt").read_text().split()
    profile = plain(PALETTES[shot])
    grid = profile.find_grid(image)
    assert grid.size == (len(want[0]), len(want))
    assert profile.read(image, grid) == want
    cal = profile.calibration
    assert cal is not None and cal.open is not None
    if shot.startswith("xdemineur"):  # one grey: the relief tells them apart
        assert cal.covered == cal.open and cal.relief > 20
    else:  # no relief: the colour does
        assert cal.covered != cal.open and cal.relief < 5


def test_a_checkerboard_is_no_grid_of_its_own() -> None:
    image = np.asarray(Image.open(DATA / "xbomb-8x8.png").convert("RGB"))
    grid = find_grid(image)
    assert (grid.pitch_x, grid.pitch_y) == (50, 50)  # the tiles, not the 1-pixel dots


def test_the_face_is_found_by_its_colour() -> None:
    image = np.asarray(Image.open(DATA / "xdemineur-30x16.png").convert("RGB"))
    grid = find_grid(image)
    face = locate_colour(image, (255, 255, 0), box=(0, 0, image.shape[1], round(grid.top)))
    assert face is not None
    x, y = face
    assert y < grid.top and tuple(image[y, x]) == (255, 255, 0)
    assert abs(x - image.shape[1] / 2) < 20  # xdemineur centres its face


def _paint(shot: str, rows: list[str]) -> tuple[np.ndarray, Grid]:
    """The shot with every cell repainted with a cell of the shot showing ``rows``'
    character there: a board the game could show, made of its own pixels."""
    image = np.asarray(Image.open(DATA / f"{shot}.png").convert("RGB")).copy()
    want = (DATA / f"{shot}.txt").read_text().split()
    grid = find_grid(image)
    sample: dict[str, np.ndarray] = {}
    for x, y in grid.cells():
        x0, y0, x1, y1 = grid.rect(x, y)
        sample.setdefault(want[y][x], image[y0:y1, x0:x1].copy())
    for x, y in grid.cells():
        x0, y0, x1, y1 = grid.rect(x, y)
        image[y0:y1, x0:x1] = sample[rows[y][x]][:y1 - y0, :x1 - x0]
    return image, grid


def test_a_mostly_open_board_is_read_right_not_by_its_largest_surface() -> None:
    """97 % open, 12 mines left covered: the open surface is by far the largest, and a
    profile that declares nothing still reads it right (the numbers and the relief
    agree on which surface is covered)."""
    mines = {(3, 2), (10, 1), (20, 4), (27, 2), (5, 9), (14, 12), (22, 10), (28, 14),
             (1, 14), (17, 7), (9, 5), (25, 7)}
    rows = ["".join("#" if (x, y) in mines else
                    str(sum((nx, ny) in mines for ny in range(y - 1, y + 2)
                            for nx in range(x - 1, x + 2)))
                    for x in range(30)) for y in range(16)]
    assert max("".join(rows).replace("#", "0")) <= "3"  # digits the shot has
    image, grid = _paint("xdemineur-30x16", rows)
    profile = plain(PALETTES["xdemineur-30x16"])
    assert profile.read(image, grid) == rows


def test_two_flat_surfaces_and_no_numbers_are_unsure() -> None:
    """Covered and open told apart by nothing but how many there are: refused."""
    want = (DATA / "xbomb-8x8.txt").read_text().split()
    rows = [row.translate(str.maketrans("123", "000")) for row in want]
    image, grid = _paint("xbomb-8x8", rows)
    profile = plain(PALETTES["xbomb-8x8"])
    with pytest.raises(UnsureError, match="cannot tell covered cells from open ones"):
        profile.read(image, grid)
    assert profile.calibration is None


def test_the_base_class_keeps_the_calibration_and_the_memo_whatever_is_overridden() -> None:
    """A profile's calibrate and classify return values; read asks calibrate until the
    calibration is established, then never again, and classifies each distinct cell
    image once."""
    calls = {"calibrate": 0, "classify": 0}

    class Counting(Plain):
        palette = PALETTES["xbomb-8x8"]

        def calibrate(self, image: np.ndarray, grid: Grid) -> Calibration:
            calls["calibrate"] += 1
            return super().calibrate(image, grid)

        def classify(self, look: CellLook, calibration: Calibration) -> str | None:
            calls["classify"] += 1
            return super().classify(look, calibration)

    image = np.asarray(Image.open(DATA / "xbomb-8x8.png").convert("RGB"))
    profile = Counting()
    grid = profile.find_grid(image)
    first = profile.read(image, grid)
    distinct = calls["classify"]
    for _ in range(3):
        assert profile.read(image, grid) == first
    assert calls == {"calibrate": 1, "classify": distinct}
    assert distinct <= 8  # xbomb's board shows a handful of distinct cell images

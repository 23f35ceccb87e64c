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

from kaboom.bots.desktop import Profile, find_grid, locate_colour

DATA = Path(__file__).resolve().parents[1] / "data" / "calibration"


class Plain(Profile):
    """Only what a profile must say; every rule is the base class's."""

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

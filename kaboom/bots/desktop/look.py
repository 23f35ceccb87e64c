"""What one cell looks like, reduced to a few numbers a profile can classify.

A profile never reads single fixed pixels: every feature is a statistic over a region
of the cell scaled to the detected cell size (surface = commonest colour of the
interior, relief = highlight of the top and left edges over the surface, ink =
interior pixels far from the surface colour, matched to the profile's palette), so the
same profile works at any tile size and survives anti-aliasing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kaboom.bots.desktop.grid import Grid
from kaboom.bots.desktop.texture import smooth_texture

__all__ = ["RGB", "CellLook", "colour_distance", "look_at", "looks", "relief_of"]

RGB = tuple[int, int, int]
"""A colour as ``(red, green, blue)``, each 0 to 255."""


def colour_distance(a: RGB | np.ndarray, b: RGB | np.ndarray) -> float:
    """Euclidean distance in RGB (0 to about 441)."""
    return float(np.linalg.norm(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)))


@dataclass(frozen=True, slots=True)
class CellLook:
    """Statistics of one cell's pixels, what :meth:`Profile.classify` reads.

    Every figure comes from regions scaled to the cell's box (:meth:`Grid.rect`), after
    1-pixel texture is averaged out, so a profile reads any tile size alike.  The
    *interior* is the box less 15 % of its size on each side (at least the bevel's band
    and a pixel more): what a tile shows, without its edges or the grid lines.
    """

    surface: RGB
    """The commonest colour of the interior: the tile's background.  A figure that
    covers most of the interior (a mine drawn to fill its cell, a coloured square) is
    the surface then, and the background around it counts as ink."""
    relief: float
    """How much lighter (in grey levels, 0 to 255) the top and left edges are than the
    surface: a raised tile's highlight.  Each edge is a band 12 % of the cell deep (at
    least 2 pixels), read as the brightest of its rows' medians over the middle 60 % of
    the edge, so a glyph or a flag's foot does not count.  It is clipped at 0: a sunken
    cell (darker top-left) and a flat one both read 0."""
    ink_share: float
    """The share of the interior's pixels whose colour is farther than the profile's
    ``ink_threshold`` (Euclidean RGB distance, 80 by default) from the surface: what is
    drawn on the tile, 0 for a plain one."""
    ink: Mapping[str, float]
    """For each name of the profile's palette, the share of the interior that is ink
    nearest that colour (names with the same colour each get the same share); names
    with no ink are left out.  The shares add up to ``ink_share``, counting each colour
    once."""

    def dominant_ink(self) -> str | None:
        """The palette name whose ink covers most of the interior, or ``None`` when the
        cell carries no ink (of tied names, the one first in the palette)."""
        if not self.ink:
            return None
        return max(self.ink, key=lambda k: self.ink[k])

    def number(self, mine_share: float) -> str | None:
        """What an open cell shows: ``"0"`` when almost blank (``ink_share`` under 3 %),
        else the digit (palette names ``"1"`` to ``"8"``) whose colour covers most of
        it, or ``"*"`` when that is the 7's colour (black in most games, the mine's
        colour too) and the ink covers more than ``mine_share`` of the interior (a mine
        is bigger than a 7); ``None`` when no digit colour is present.  For a profile's
        ``classify`` on a cell known to be open."""
        if self.ink_share < 0.03:
            return "0"
        digits = {k: v for k, v in self.ink.items() if k in "12345678"}
        if not digits:
            return None
        best = max(digits, key=lambda k: digits[k])
        if best == "7" and self.ink_share > mine_share:
            return "*"
        return best


def relief_of(grey: np.ndarray, surface: float) -> float:
    """How much brighter than the surface a cell's top and left edges get (a raised
    tile's highlight); 0 for a flat cell.

    Each edge band is a few pixels deep, so the measure does not depend on the grid
    being aligned to the exact pixel, and uses row (column) medians over the middle of
    the edge, so a glyph or a flag's foot does not count.
    """
    h, w = grey.shape
    depth = max(2, round(min(h, w) * 0.12))
    my, mx = max(depth, round(h * 0.2)), max(depth, round(w * 0.2))
    top = np.median(grey[:depth, mx:w - mx], axis=1).max()
    left = np.median(grey[my:h - my, :depth], axis=0).max()
    return float(max(0.0, (top + left) / 2 - surface))


def look_at(cell: np.ndarray, palette: Mapping[str, RGB], ink_threshold: float = 80.0,
            margin: float = 0.15) -> CellLook:
    """Measures one cell image (``h x w x 3``, the cell's full box).

    Pixel-level texture (a checkerboard tile) is averaged out first, so that it reads as
    one surface colour rather than as ink.
    """
    h, w = cell.shape[:2]
    px = smooth_texture(cell[..., :3]).astype(np.float64)
    grey = px.mean(axis=2)
    band = max(1, round(min(h, w) * 0.08))
    m_y, m_x = max(band + 1, round(h * margin)), max(band + 1, round(w * margin))
    inner = px[m_y:h - m_y, m_x:w - m_x].reshape(-1, 3)
    colours, counts = np.unique(inner.astype(np.uint8), axis=0, return_counts=True)
    surface = colours[counts.argmax()].astype(np.float64)  # the commonest colour
    relief = relief_of(grey, float(surface.mean()))
    dist = np.linalg.norm(inner - surface, axis=1)
    ink_px = inner[dist >= ink_threshold]
    ink: dict[str, float] = {}
    if len(ink_px) and palette:
        # one reference a colour: names that share it (a flag as red as the 3) each
        # get its pixels
        named = list(dict.fromkeys(tuple(palette[n]) for n in palette))
        refs = np.array(named, dtype=np.float64)
        nearest = np.linalg.norm(ink_px[:, None, :] - refs[None, :, :], axis=2).argmin(axis=1)
        per_colour = np.bincount(nearest, minlength=len(named))
        for name in palette:
            count = int(per_colour[named.index(tuple(palette[name]))])
            if count:
                ink[name] = count / len(inner)
    surface_rgb: RGB = (int(surface[0]), int(surface[1]), int(surface[2]))
    return CellLook(surface_rgb, relief, len(ink_px) / max(1, len(inner)), ink)


def looks(image: np.ndarray, grid: Grid, palette: Mapping[str, RGB],
          ink_threshold: float = 80.0) -> dict[tuple[int, int], CellLook]:
    """Measures every cell of ``grid`` in ``image``."""
    out = {}
    for x, y in grid.cells():
        x0, y0, x1, y1 = grid.rect(x, y)
        out[x, y] = look_at(image[y0:y1, x0:x1], palette, ink_threshold)
    return out

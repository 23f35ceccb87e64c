"""Averaging out pixel-level texture: 1-pixel checkerboards and stipples.

Some games draw a covered tile as a checkerboard of two greys (the old X11 look).  To
the grid finder every pixel of it is an edge, and to the cell reader half of it is
ink.  A pixel that differs sharply from all four neighbours, in the same direction,
is texture: around such pixels each value is replaced by its 2x2 mean, which turns a
checkerboard into its flat average.  Everywhere else the pixels are untouched, so the
edges of cells and the strokes of digits stay sharp.
"""

from __future__ import annotations

import numpy as np

__all__ = ["smooth_texture"]

_STEP = 24  # grey-level difference from each neighbour that makes a texture dot


def _texture_mask(grey: np.ndarray) -> np.ndarray:
    """Pixels that are a sharp local extreme along both axes, and their neighbours."""
    g = grey.astype(np.int16)
    h, w = g.shape
    mask = np.zeros((h, w), dtype=bool)
    if h < 3 or w < 3:
        return mask
    c = g[1:-1, 1:-1]
    # horizontal extremes first: most images have none, and the rest is skipped
    left, right = c - g[1:-1, :-2], c - g[1:-1, 2:]
    peak = (left >= _STEP) & (right >= _STEP)
    pit = (left <= -_STEP) & (right <= -_STEP)
    if not (peak.any() or pit.any()):
        return mask
    up, down = c - g[:-2, 1:-1], c - g[2:, 1:-1]
    mask[1:-1, 1:-1] = (peak & (up >= _STEP) & (down >= _STEP)) | (
        pit & (up <= -_STEP) & (down <= -_STEP))
    grown = mask.copy()
    grown[1:, :] |= mask[:-1, :]
    grown[:-1, :] |= mask[1:, :]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    return grown


def smooth_texture(pixels: np.ndarray) -> np.ndarray:
    """``pixels`` (``H x W`` grey or ``H x W x C``) with 1-pixel texture averaged out.

    Returns the input itself when there is no texture, so the common case costs one
    pass over the image.
    """
    grey = pixels if pixels.ndim == 2 else pixels[..., :3].mean(axis=2)
    mask = _texture_mask(np.rint(grey) if grey.dtype.kind == "f" else grey)
    if not mask.any():
        return pixels
    p = pixels.astype(np.float64)
    padded = np.concatenate([p, p[-1:]], axis=0)
    padded = np.concatenate([padded, padded[:, -1:]], axis=1)
    mean = (padded[:-1, :-1] + padded[1:, :-1] + padded[:-1, 1:] + padded[1:, 1:]) / 4
    where = mask if pixels.ndim == 2 else mask[..., None]
    out = np.where(where, mean, p)
    return np.rint(out).astype(np.uint8) if pixels.dtype == np.uint8 else out

"""Finding a Minesweeper grid in a screenshot: origin, cell pitch, rows and columns.

Nothing here knows any particular game.  A board is a lattice of equal cells whose
borders (grid lines, or the bevels of raised covered cells) form long straight edges
repeating at a fixed pitch.  We keep only edge pixels that belong to long straight runs
(so digits and menu text barely count), project them onto each axis, read the pitch
from the autocorrelation of that projection, the borders' phase from where that
projection folded onto one period peaks, and the extent from the run of lattice
lines that are all about as long as the board is tall.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.position import Cell

__all__ = ["Grid", "GridNotFoundError", "find_grid"]

_EDGE = 24  # grey-level step that counts as an edge
_MIN_PITCH = 10
_MAX_PITCH = 96


class GridNotFoundError(RuntimeError):
    """Raised when an image shows no regular grid of cells."""


@dataclass(frozen=True, slots=True)
class Grid:
    """A board's lattice in image coordinates: cell ``(x, y)`` spans
    ``[left + x*pitch_x, left + (x+1)*pitch_x)`` horizontally, likewise vertically."""

    left: float
    top: float
    pitch_x: float
    pitch_y: float
    cols: int
    rows: int

    def rect(self, x: int, y: int) -> tuple[int, int, int, int]:
        """The cell's pixel box ``(x0, y0, x1, y1)``, end-exclusive."""
        x0 = round(self.left + x * self.pitch_x)
        y0 = round(self.top + y * self.pitch_y)
        x1 = round(self.left + (x + 1) * self.pitch_x)
        y1 = round(self.top + (y + 1) * self.pitch_y)
        return x0, y0, x1, y1

    def centre(self, x: int, y: int) -> tuple[int, int]:
        """The cell's centre pixel (where to click)."""
        return (round(self.left + (x + 0.5) * self.pitch_x),
                round(self.top + (y + 0.5) * self.pitch_y))

    def cells(self) -> list[Cell]:
        return [(x, y) for y in range(self.rows) for x in range(self.cols)]

    def shifted(self, dx: float, dy: float) -> Grid:
        """The same lattice with the image origin moved (window -> screen coordinates)."""
        return Grid(self.left + dx, self.top + dy, self.pitch_x, self.pitch_y,
                    self.cols, self.rows)

    @property
    def size(self) -> tuple[int, int]:
        return self.cols, self.rows


def _runs_mask(edges: np.ndarray, min_run: int) -> np.ndarray:
    """Keeps edge pixels lying in vertical runs (along axis 0) of at least ``min_run``."""
    h = edges.shape[0]
    # run length ending at each pixel, downward and upward
    down = np.zeros(edges.shape, dtype=np.int32)
    up = np.zeros(edges.shape, dtype=np.int32)
    acc = np.zeros(edges.shape[1], dtype=np.int32)
    for y in range(h):
        acc = np.where(edges[y], acc + 1, 0)
        down[y] = acc
    acc[:] = 0
    for y in range(h - 1, -1, -1):
        acc = np.where(edges[y], acc + 1, 0)
        up[y] = acc
    return (down + up - 1) >= min_run


def _line_profile(grey: np.ndarray, min_run: int) -> np.ndarray:
    """Per column: how many pixels sit on long vertical edges."""
    step = np.abs(np.diff(grey, axis=1)) >= _EDGE
    edges = np.zeros(grey.shape, dtype=bool)
    edges[:, 1:] |= step
    edges[:, :-1] |= step
    return _runs_mask(edges, min_run).sum(axis=0).astype(np.float64)


def _pitch(profile: np.ndarray) -> int:
    """The smallest lag at which the profile nearly repeats itself."""
    p = profile - profile.mean()
    n = len(p)
    top = min(_MAX_PITCH, n // 3)
    if top <= _MIN_PITCH:
        raise GridNotFoundError("image too small for a grid")
    scores = np.array([float(np.dot(p[:-lag], p[lag:])) / (n - lag)
                       for lag in range(_MIN_PITCH, top + 1)])
    if scores.max() <= 0:
        raise GridNotFoundError("no repeating lines")
    # The best lag may be a multiple of the pitch; a bevel's width also gives strong
    # lags just off the pitch.  So: take the best lag, then its largest proper divisor
    # (within one pixel) that still scores nearly as well.
    best = int(scores.argmax())
    lag = _MIN_PITCH + best
    for parts in range(lag // _MIN_PITCH, 1, -1):
        sub = round(lag / parts)
        near = [s for s in (sub - 1, sub, sub + 1) if _MIN_PITCH <= s <= top]
        if near and max(scores[s - _MIN_PITCH] for s in near) >= 0.7 * scores[best]:
            return max(near, key=lambda s: scores[s - _MIN_PITCH])
    return lag


def _axis(grey: np.ndarray) -> tuple[float, float, int]:
    """(first boundary, pitch, count) of the lattice along axis 1 of ``grey``."""
    rough = _line_profile(grey, 8)
    pitch = _pitch(rough)
    profile = _line_profile(grey, max(8, int(pitch * 0.7)))
    if profile.max() <= 0:
        raise GridNotFoundError("no long straight edges")
    # Fold onto one period; cell borders pile up at one phase, wherever the board starts.
    n = len(profile)
    folded = np.array([profile[ph::pitch].sum() for ph in range(pitch)])
    kernel = np.array([1.0, 2.0, 3.0, 2.0, 1.0])
    smooth = np.array([sum(kernel[j] * folded[(ph + j - 2) % pitch] for j in range(5))
                       for ph in range(pitch)])
    boundary = float(smooth.argmax())
    # strength of each lattice line: the strongest column within a third of a pitch of it
    reach = max(1, pitch // 4)
    ks = range(-1, int((n - boundary) // pitch) + 2)
    strength = {}
    for k in ks:
        centre = boundary + k * pitch
        lo, hi = round(centre - reach), round(centre + reach) + 1
        lo, hi = max(lo, 0), min(hi, n)
        strength[k] = float(profile[lo:hi].max()) if hi > lo else 0.0
    # A board has many lines of about equal length; a lone long edge (a window border) is
    # not one, so the reference is the best strength sustained over five lines in a row.
    ordered = [strength[k] for k in sorted(strength)]
    sustained = max(min(ordered[i:i + 5]) for i in range(max(1, len(ordered) - 4)))
    if sustained <= 0:
        raise GridNotFoundError("no run of lattice lines")
    strong = [k for k, s in strength.items() if s >= 0.5 * sustained]
    # the longest run of consecutive strong lines is the board
    best: tuple[int, int] = (0, -1)
    run_start = None
    for k in sorted(strength):
        if k in strong:
            run_start = k if run_start is None else run_start
            if k - run_start > best[1] - best[0]:
                best = (run_start, k)
        else:
            run_start = None
    first, last = best
    if last - first < 1:
        raise GridNotFoundError("fewer than one cell found")
    return boundary + first * pitch, float(pitch), last - first


def find_grid(image: np.ndarray) -> Grid:
    """Locates the cell lattice in an RGB image (``H x W x 3``)."""
    grey = image[..., :3].astype(np.int16).mean(axis=2)
    left, px, cols = _axis(grey)
    top, py, rows = _axis(grey.T)
    return Grid(left, top, px, py, cols, rows)

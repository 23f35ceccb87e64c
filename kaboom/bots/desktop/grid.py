"""Finding a Minesweeper grid in a screenshot: origin, cell pitch, rows and columns.

Nothing here knows any particular game.  A board is a lattice of equal cells whose
borders (grid lines, or the bevels of raised covered cells) form long straight edges
repeating at a fixed pitch.  We keep only edge pixels that belong to long straight runs
(so digits and menu text barely count), project them onto each axis, read the pitch
from the autocorrelation of that projection, the borders' phase from where that
projection folded onto one period peaks, and the extent from the run of lattice
lines that are all about as long as the board is tall.  The lines between cells
decide, not the board's outer edge: a frame of any colour gives the same grid.  The
grid is then moved by whole pixels onto the tiles (:func:`find_grid`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from kaboom.bots.desktop.texture import smooth_texture
from kaboom.solver import Cell

__all__ = ["Grid", "GridNotFoundError", "find_grid"]

_EDGE = 24  # grey-level step that counts as an edge
_MIN_PITCH = 10
_MAX_PITCH = 96


class GridNotFoundError(RuntimeError):
    """Raised when an image shows no regular grid of cells."""


@dataclass(frozen=True, slots=True)
class Grid:
    """A board's cells in image coordinates: cell ``(x, y)`` spans
    ``[left + x*pitch_x, left + (x+1)*pitch_x)`` horizontally, likewise vertically.

    Coordinates are pixels of the capture the grid was found in, a window's, so they
    are the window's coordinates (:meth:`Pointer.click` takes them as they are).  Cell
    ``(0, 0)`` is the top-left one; ``x`` counts columns, ``y`` rows.  Each box holds
    its tile from the tile's own top-left edge (:func:`find_grid` snaps to it); a
    separator between tiles (a grid line, a gap) falls at the box's right and bottom.

    A board whose cells are not all the same size (a toolkit that hands a window's
    spare pixels to some rows) lists its measured borders instead: ``borders_x`` has
    ``cols + 1`` positions, ``borders_y`` has ``rows + 1``; the pitches are then means.
    """

    left: float
    """The left edge of the first column, in pixels."""
    top: float
    """The top edge of the first row, in pixels."""
    pitch_x: float
    """The distance from one column's left edge to the next one's (a mean when
    ``borders_x`` is given)."""
    pitch_y: float
    """The distance from one row's top edge to the next one's."""
    cols: int
    """How many columns the board has."""
    rows: int
    """How many rows the board has."""
    borders_x: tuple[float, ...] = ()
    """Every column's left edge and the last one's right edge, when they are not
    regular; empty otherwise."""
    borders_y: tuple[float, ...] = ()
    """Every row's top edge and the last one's bottom edge, when they are not regular;
    empty otherwise."""

    def _x(self, i: int) -> float:
        return self.borders_x[i] if self.borders_x else self.left + i * self.pitch_x

    def _y(self, i: int) -> float:
        return self.borders_y[i] if self.borders_y else self.top + i * self.pitch_y

    def rect(self, x: int, y: int) -> tuple[int, int, int, int]:
        """The cell's pixel box ``(x0, y0, x1, y1)``, end-exclusive: columns ``x0`` to
        ``x1 - 1`` and rows ``y0`` to ``y1 - 1``, so ``image[y0:y1, x0:x1]`` is the cell
        and the next cell's box starts at ``x1``."""
        return round(self._x(x)), round(self._y(y)), round(self._x(x + 1)), round(self._y(y + 1))

    def centre(self, x: int, y: int) -> tuple[int, int]:
        """The cell's centre pixel (where to click)."""
        return (round((self._x(x) + self._x(x + 1)) / 2),
                round((self._y(y) + self._y(y + 1)) / 2))

    def cells(self) -> list[Cell]:
        """Every cell ``(x, y)``, row by row from the top-left one."""
        return [(x, y) for y in range(self.rows) for x in range(self.cols)]

    @property
    def size(self) -> tuple[int, int]:
        """``(cols, rows)``."""
        return self.cols, self.rows


def _runs_mask(edges: np.ndarray, min_run: int) -> np.ndarray:
    """Keeps edge pixels lying in vertical runs (along axis 0) of at least ``min_run``."""
    h = edges.shape[0]
    idx = np.arange(h, dtype=np.int32)[:, None]
    # run length ending at each pixel, downward and upward: distance to the last gap
    down = idx - np.maximum.accumulate(np.where(edges, -1, idx), axis=0)
    up = (idx - np.maximum.accumulate(np.where(edges[::-1], -1, idx), axis=0))[::-1]
    return edges & ((down + up - 1) >= min_run)


def _line_profile(grey: np.ndarray, min_run: int) -> np.ndarray:
    """Per column: how many pixels sit on long vertical edges."""
    step = np.abs(np.diff(grey, axis=1)) >= _EDGE
    edges = np.zeros(grey.shape, dtype=bool)
    edges[:, 1:] |= step
    edges[:, :-1] |= step
    counts: np.ndarray = _runs_mask(edges, min_run).sum(axis=0).astype(np.float64)
    return counts


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


def _phase(grey: np.ndarray) -> tuple[float, int]:
    """(a cell border's position, pitch) of the lattice along axis 1 of ``grey``."""
    pitch = _pitch(_line_profile(grey, 8))
    profile = _line_profile(grey, max(8, int(pitch * 0.8)))
    if profile.max() <= 0:
        raise GridNotFoundError("no long straight edges")
    # Keep only lines that repeat: a position counts if it and the positions one and
    # two pitches on (or back) all carry line pixels.  A banner's or button's edge
    # does not repeat; a board's lines do.
    n = len(profile)
    padded = np.concatenate([np.zeros(2 * pitch), profile, np.zeros(2 * pitch)])
    at = [padded[2 * pitch + k * pitch: 2 * pitch + k * pitch + n] for k in (-2, -1, 0, 1, 2)]
    comb = np.maximum.reduce([np.minimum.reduce(at[i:i + 3]) for i in range(3)])
    if comb.max() > 0:
        profile = comb
    # Fold onto one period: cell borders (and bevels) pile up near one phase, wherever
    # the board starts.  The cell's middle is the middle of the longest quiet stretch
    # (bevels sit inside one side of a border, so the peak alone would be off-centre).
    folded = np.array([profile[ph::pitch].sum() for ph in range(pitch)])
    quiet = folded <= folded.min() + 0.25 * (folded.max() - folded.min())
    best_len, middle = 0, 0.0
    for start in range(pitch):
        if quiet[start] and not quiet[start - 1]:
            length = 0
            while length < pitch and quiet[(start + length) % pitch]:
                length += 1
            if length > best_len:
                best_len, middle = length, start + (length - 1) / 2
    if best_len == 0:
        raise GridNotFoundError("no cell interiors")
    return float(round((middle - pitch / 2) % pitch)), pitch


def _steps(grey: np.ndarray) -> np.ndarray:
    """Pixels next to a grey-level step along axis 1 (so: vertical edges)."""
    step = np.abs(np.diff(grey, axis=1)) >= _EDGE
    edges = np.zeros(grey.shape, dtype=bool)
    edges[:, 1:] |= step
    edges[:, :-1] |= step
    return edges


def _lines_present(edges: np.ndarray, xs: list[float], ys: list[float], reach: int) -> np.ndarray:
    """``out[k, j]``: does vertical line ``xs[j]`` run through the middle of band
    ``ys[k]..ys[k+1]``?  (An edge within ``reach`` pixels on at least 70% of its rows.)"""
    h, w = edges.shape
    out = np.zeros((len(ys) - 1, len(xs)), dtype=bool)
    for j, x in enumerate(xs):
        lo, hi = max(0, round(x) - reach), min(w, round(x) + reach + 1)
        if hi <= lo:
            continue
        column = np.asarray(edges[:, lo:hi].any(axis=1))
        for k in range(len(ys) - 1):
            inset = (ys[k + 1] - ys[k]) * 0.2
            y0, y1 = max(0, round(ys[k] + inset)), min(h, round(ys[k + 1] - inset))
            out[k, j] = y1 > y0 and column[y0:y1].mean() >= 0.7
    return out


def _longest_run(flags: np.ndarray) -> tuple[int, int]:
    """(start, end) of the longest run of True, end exclusive; (0, 0) if none."""
    best, start = (0, 0), None
    for i, f in enumerate([*flags, False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    return best


def _extent(grey: np.ndarray, boundary: float, pitch: int) -> tuple[int, int]:
    """Pixel span (along axis 1) of the longest run of lattice lines as long as the
    board's: a rough cut that keeps other widgets out of the next measurement."""
    profile = _line_profile(grey, max(8, int(pitch * 0.7)))
    n = len(profile)
    reach = max(1, int(pitch // 4))
    ks = list(range(-1, int((n - boundary) // pitch) + 2))
    strength = []
    for k in ks:
        centre = boundary + k * pitch
        lo, hi = max(0, round(centre - reach)), min(n, round(centre + reach) + 1)
        strength.append(float(profile[lo:hi].max()) if hi > lo else 0.0)
    # a lone long edge (a window border) is not a board: use the strength that five
    # lines in a row reach
    sustained = max(min(strength[i:i + 5]) for i in range(max(1, len(strength) - 4)))
    first, last = _longest_run(np.array(strength) >= 0.5 * max(sustained, 1e-9))
    if last - first < 2:
        return 0, n
    lo = max(0, round(boundary + ks[first] * pitch - pitch / 2))
    hi = min(n, round(boundary + ks[last - 1] * pitch + pitch / 2))
    return lo, hi


def _fit(grey: np.ndarray, x_first: bool) -> Grid:
    """Lattice from one axis over the whole image, the other within its rough span."""
    g = grey if x_first else grey.T
    b1, p1 = _phase(g)
    lo, hi = _extent(g, b1, p1)
    b2, p2 = _phase(g[:, lo:hi].T)
    lo2, hi2 = _extent(g[:, lo:hi].T, b2, p2)
    b1, p1 = _phase(g[lo2:hi2, :])
    if x_first:
        return _block(grey, b1, p1, b2, p2)
    return _block(grey, b2, p2, b1, p1)


def _block(grey: np.ndarray, bx: float, px: int, by: float, py: int) -> Grid:
    """The largest block of lattice squares bounded on all four sides by lines."""
    h, w = grey.shape
    xs = [bx + j * px for j in range(-1, int((w - bx) // px) + 2)]
    ys = [by + k * py for k in range(-1, int((h - by) // py) + 2)]
    vertical = _lines_present(_steps(grey), xs, ys, max(2, int(px // 4)))
    # [col band, row line]
    horizontal = _lines_present(_steps(grey.T), ys, xs, max(2, int(py // 4)))
    cell = (vertical[:, :-1] & vertical[:, 1:]) & (horizontal[:, :-1] & horizontal[:, 1:]).T
    if not cell.any():
        raise GridNotFoundError("no square bounded by lattice lines")
    r0, r1 = _longest_run(cell.sum(axis=1) >= 0.5 * cell.sum(axis=1).max())
    c0, c1 = _longest_run(cell[r0:r1].mean(axis=0) >= 0.5)
    if c1 - c0 < 2:
        raise GridNotFoundError("fewer than 2 columns of cells found")
    r0, r1 = _longest_run(cell[:, c0:c1].mean(axis=1) >= 0.5)
    if r1 - r0 < 2 or c1 - c0 < 2:
        raise GridNotFoundError("fewer than 2x2 cells found")
    r0, r1, c0, c1 = _outer(vertical, horizontal, (r0, r1, c0, c1), len(xs), len(ys),
                            _inside(xs, w), _inside(ys, h))
    left, top, cols, rows = xs[c0], ys[r0], c1 - c0, r1 - r0
    y0, y1 = max(0, round(top)), min(h, round(top + rows * py))
    bx_ = _track(grey[y0:y1], left, px, cols)
    x0 = round(bx_[0]) if bx_ else round(left)
    x1 = round(bx_[-1]) if bx_ else round(left + cols * px)
    by_ = _track(grey[:, max(0, x0):min(w, x1)].T, top, py, rows)
    if not (bx_ or by_):
        return Grid(left, top, float(px), float(py), cols, rows)
    bx_ = bx_ or tuple(left + j * px for j in range(cols + 1))
    by_ = by_ or tuple(top + k * py for k in range(rows + 1))
    return Grid(bx_[0], by_[0], (bx_[-1] - bx_[0]) / (len(bx_) - 1),
                (by_[-1] - by_[0]) / (len(by_) - 1), len(bx_) - 1, len(by_) - 1, bx_, by_)


def _inside(lines: list[float], size: int) -> list[bool]:
    """Per band between two lattice lines: whether it lies within the image."""
    return [lo >= -1 and hi <= size + 1 for lo, hi in pairwise(lines)]


def _outer(vertical: np.ndarray, horizontal: np.ndarray, block: tuple[int, int, int, int],
           nx: int, ny: int, cols_in: list[bool], rows_in: list[bool]
           ) -> tuple[int, int, int, int]:
    """The block of cells grown by the board's outer rows and columns whose outer line
    is missing (a frame as light as the tiles' edge on that side, or a frame of the
    open cells' colour): a band next to the block is one of its rows (columns) when
    every line between the block's columns (rows) runs through it and the line it
    shares with the block is there.  A frame band has no such lines, and a row of
    buttons has a few at most.
    """
    r0, r1, c0, c1 = block

    def through(lines: np.ndarray) -> bool:
        return lines.size == 0 or float(lines.mean()) >= 0.9

    if r0 > 0 and rows_in[r0 - 1] and through(vertical[r0 - 1, c0 + 1:c1]) \
            and through(horizontal[c0:c1, r0]):
        r0 -= 1
    if r1 < ny - 1 and rows_in[r1] and through(vertical[r1, c0 + 1:c1]) \
            and through(horizontal[c0:c1, r1]):
        r1 += 1
    if c0 > 0 and cols_in[c0 - 1] and through(horizontal[c0 - 1, r0 + 1:r1]) \
            and through(vertical[r0:r1, c0]):
        c0 -= 1
    if c1 < nx - 1 and cols_in[c1] and through(horizontal[c1, r0 + 1:r1]) \
            and through(vertical[r0:r1, c1]):
        c1 += 1
    return r0, r1, c0, c1


def _track(grey: np.ndarray, first: float, pitch: int, count: int) -> tuple[float, ...]:
    """The measured borders of a board whose lattice along axis 1 of ``grey`` (cut to
    the board's span on the other axis) is not regular, or ``()`` if it is.

    Each border's line is looked for near the last one plus a pitch, so cells of
    unequal size (a toolkit handing a pixel more to some rows) are followed across the
    board.  An inner border is the centre of its line's edge pixels; the two outer
    lines have a cell on one side only (and may not show at all, against a frame as
    light as the tiles' edge), so those borders continue their neighbours' spacing
    instead.
    """
    if count < 3:
        return ()
    profile = _line_profile(grey, max(8, int(pitch * 0.6)))
    n = len(profile)
    reach = max(2.0, pitch / 4)
    centres: list[float] = []
    for j in range(1, count):
        guess = first + j * pitch if not centres else centres[-1] + pitch
        lo, hi = max(0, round(guess - reach)), min(n, round(guess + reach) + 1)
        weights = profile[lo:hi]
        if hi <= lo or weights.sum() <= 0:
            return ()
        centres.append(float((np.arange(lo, hi) * weights).sum() / weights.sum()))
    inner = np.array(centres)
    drift = np.array([first + j * pitch for j in range(1, count)]) - inner
    if float(np.abs(drift - np.median(drift)).max()) <= 1.5:
        return ()
    borders = list(inner + float(np.median(drift)))  # the lattice's own convention
    borders.insert(0, 2 * borders[0] - borders[1])
    borders.append(2 * borders[-1] - borders[-2])
    return tuple(borders)


def find_grid(image: np.ndarray) -> Grid:
    """Locates the cell lattice in an RGB image (``H x W x 3``); raises
    :class:`GridNotFoundError` when there is none.

    Pitch and phase come from one axis over the whole image, then from the other axis
    within the first one's rough span (so side panels do not drown the board), trying
    both orders.  Each lattice square is then tested for being a cell: its four borders
    must run through it.  The board is the largest block of such squares, so buttons or
    counters that happen to line up with one lattice line are left out, grown by an
    outer row or column whose outer line does not show (a frame as light as the tiles'
    edge): the board's frame does not matter.  Last, the grid is snapped onto the tiles
    (whole-pixel shifts, so that each box starts at its tile's top-left edge).
    Pixel-level texture (a checkerboard tile) is averaged out first: its every pixel is
    an edge.
    """
    grey = smooth_texture(image[..., :3].astype(np.int16).mean(axis=2))
    found: list[Grid] = []
    error: GridNotFoundError | None = None
    for x_first in (True, False):
        try:
            found.append(_fit(grey, x_first))
        except GridNotFoundError as exc:
            error = exc
    if not found:
        raise error or GridNotFoundError("no grid")
    return _snap(grey, max(found, key=lambda g: g.cols * g.rows))


def _shift(grid: Grid, dx: int, dy: int) -> Grid:
    return replace(grid, left=grid.left + dx, top=grid.top + dy,
                   borders_x=tuple(b + dx for b in grid.borders_x),
                   borders_y=tuple(b + dy for b in grid.borders_y))


def _snap(grey: np.ndarray, grid: Grid) -> Grid:
    """The grid moved by whole pixels onto the tiles: each border between two cells
    where the picture steps from one tile to the next.

    The phase comes from where edges pile up, which is a pixel or two off when a
    separator (a grid line, a gap) puts an edge on each side of it.  So along each
    axis every shift within a quarter pitch is scored by how sharply the grey level
    steps across the board's inner borders (the outer ones touch the frame, which must
    not matter); among shifts that score alike (the two sides of a separator), the
    largest wins, so the box starts at its tile's own top-left edge, where a bevel is
    measured (a separator there would make a flat open cell look raised).
    """
    g = np.asarray(grey, dtype=np.float64)
    x0, y0, _, _ = grid.rect(0, 0)
    _, _, x1, y1 = grid.rect(grid.cols - 1, grid.rows - 1)
    inset_x, inset_y = round(grid.pitch_x / 4), round(grid.pitch_y / 4)
    # along x, the board's rows less a quarter pitch at each end; along y, its columns
    across = g[max(0, y0 + inset_y):max(0, y1 - inset_y)]
    dx = _best_shift(across, [grid.rect(i, 0)[0] for i in range(1, grid.cols)], grid.pitch_x)
    down = g[:, max(0, x0 + inset_x):max(0, x1 - inset_x)].T
    dy = _best_shift(down, [grid.rect(0, i)[1] for i in range(1, grid.rows)], grid.pitch_y)
    return _shift(grid, dx, dy)


def _best_shift(band: np.ndarray, borders: list[int], pitch: float) -> int:
    """The shift of ``borders`` (positions along axis 1 of ``band``) within a quarter
    pitch that puts them on the sharpest steps; the largest of those that tie."""
    if band.size == 0 or not borders:
        return 0
    steps = np.abs(np.diff(band, axis=1)).sum(axis=0)  # steps[x - 1]: from x-1 to x
    reach = max(1, int(pitch // 4))
    scores = {d: float(steps[[b + d - 1 for b in borders]].sum())
              for d in range(-reach, reach + 1)
              if min(borders) + d >= 1 and max(borders) + d <= len(steps)}
    if not scores:
        return 0
    top = max(scores.values())
    return max(d for d, v in scores.items() if v >= 0.98 * top)

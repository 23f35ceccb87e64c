"""Which surface is a covered cell and which an open one, told from the board's structure.

The largest group of look-alike cells is no guide: late in a game, or after a loss, the
open cells outnumber the covered ones.  So the surfaces are told apart by what only one
of them can be:

* what the profile declares (``Profile.covered_colour``, ``Profile.raised_tiles``);
* the numbers: digits are drawn on open cells, so the surface that carries them is open;
* a raised relief (a bevel's light top-left edge) is a covered tile's.

The cues that speak must agree, and the board read with the result must make sense as
Minesweeper (:func:`board_problem`); otherwise the reader is :class:`UnsureError`
and reads nothing, rather than a confident wrong board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kaboom.bots.desktop.grid import Grid
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance, look_at

__all__ = ["Calibration", "NoCoveredTileError", "UnsureError", "board_problem", "measure",
           "surfaces"]

DIGITS = "12345678"
NOT_OPEN = "#F?*X!"
"""Board characters of cells that may hold a mine."""


class UnsureError(RuntimeError):
    """Raised when the reader cannot tell covered cells from open ones for sure; it then
    reads nothing (``look`` exits 1, a game stops with the reason) rather than guess."""


class NoCoveredTileError(UnsureError):
    """Raised when the numbers show which surface is open and no other could be a
    covered tile: a finished board (every cell open, or open and mines), on which the
    covered tiles' look cannot be learned."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """What this game's surfaces look like on this screen, learned from the board.

    A value: ``Calibration(covered, relief, open, covered_ink=0.0)``.  The reader makes
    it (:meth:`Profile.calibrate` returns one) and hands it to :meth:`Profile.classify`;
    a profile builds one itself only in an override of ``calibrate`` or in a test.
    """

    covered: RGB
    """The covered tiles' surface colour (:attr:`CellLook.surface` of a plain one)."""
    relief: float
    """How much lighter a covered tile's top-left edge is than its surface
    (:attr:`CellLook.relief`; about 0 for flat tiles)."""
    open: RGB | None
    """The open cells' surface colour, or ``None`` until an open cell has been seen."""
    covered_ink: float = 0.0
    """The ink share of a plain covered tile (a bevel's shadow may reach its middle)."""

    def is_covered(self, look: CellLook, tolerance: float = 30.0) -> bool:
        """Whether a cell shows the covered surface (it may carry a flag or a mark): its
        surface within ``tolerance`` (Euclidean RGB distance) of :attr:`covered`, and at
        least half the covered tiles' relief."""
        return (colour_distance(look.surface, self.covered) <= tolerance
                and look.relief >= 0.5 * self.relief)

    def is_open(self, look: CellLook, tolerance: float = 30.0) -> bool:
        """Whether a cell shows the open surface (empty, or with a digit on it): its
        surface within ``tolerance`` of :attr:`open`, and not :meth:`is_covered` (games
        whose two surfaces share a colour tell them apart by the relief)."""
        return (self.open is not None and colour_distance(look.surface, self.open) <= tolerance
                and not self.is_covered(look))


@dataclass(frozen=True, slots=True)
class Measured:
    """The distinct cell images of one capture: each one's look and its cells."""

    looks: dict[bytes, CellLook]
    cells: dict[bytes, list[tuple[int, int]]]


def cell_key(image: np.ndarray, grid: Grid, x: int, y: int) -> tuple[bytes, np.ndarray]:
    """A cell's pixels and a key for them (identical pixels, identical reading)."""
    x0, y0, x1, y1 = grid.rect(x, y)
    pixels = image[y0:y1, x0:x1]
    return pixels.tobytes() + bytes((x1 - x0, y1 - y0)), pixels


def measure(image: np.ndarray, grid: Grid, palette: Mapping[str, RGB],
            ink_threshold: float) -> Measured:
    """Looks at each distinct cell image once (a board shows a few dozen at most)."""
    looks: dict[bytes, CellLook] = {}
    cells: dict[bytes, list[tuple[int, int]]] = {}
    for c in grid.cells():
        key, pixels = cell_key(image, grid, *c)
        if key not in looks:
            looks[key] = look_at(pixels, palette, ink_threshold)
        cells.setdefault(key, []).append(c)
    return Measured(looks, cells)


@dataclass(slots=True)
class _Surface:
    """Cells of one surface colour and relief, whatever is drawn on them."""

    surface: RGB
    looks: list[CellLook] = field(default_factory=list)
    """One entry a cell."""

    @property
    def relief(self) -> float:
        return float(np.median([lk.relief for lk in self.looks]))

    @property
    def digits(self) -> int:
        """Cells carrying more ink than the group's plainest, in a digit's colour."""
        least = min(lk.ink_share for lk in self.looks)
        return sum(_digit_ink(lk) and lk.ink_share >= least + 0.01 for lk in self.looks)

    def raised_over(self, other: _Surface) -> bool:
        return self.relief >= other.relief + max(10.0, 0.5 * other.relief)


def _alike(look: CellLook, s: _Surface) -> bool:
    return (colour_distance(look.surface, s.surface) <= 30
            and abs(look.relief - s.relief) <= max(8.0, 0.35 * max(look.relief, s.relief)))


def _digit_ink(look: CellLook) -> bool:
    share = sum(v for k, v in look.ink.items() if k in DIGITS)
    return share >= 0.01 and share >= 0.6 * look.ink_share


def surfaces(measured: Measured, covered_colour: RGB | None = None,
             open_colour: RGB | None = None, raised_tiles: bool | None = None) -> Calibration:
    """The covered and open surfaces of a capture, or :class:`UnsureError` saying why not.

    ``covered_colour``, ``open_colour`` and ``raised_tiles`` are what the profile
    declares (``None``: it does not say).
    """
    groups = _groups(measured)
    covered = _covered(groups, covered_colour, raised_tiles)
    rest = [s for s in groups if s is not covered and s.relief < covered.relief + 10]
    if open_colour is not None:
        rest = [s for s in rest if colour_distance(s.surface, open_colour) <= 30]
    numbered = [s for s in rest if s.digits]
    open_ = max(numbered, key=lambda s: s.digits) if numbered else (rest[0] if rest else None)
    # a plain covered tile: the group's least inky images (a bevel's shadow may reach
    # its middle), unless even those carry a flag's worth of ink (every tile flagged)
    least = min(lk.ink_share for lk in covered.looks)
    inks = [lk.ink_share for lk in covered.looks
            if lk.ink_share < least + 0.05 and lk.ink_share < 0.25] or [0.0]
    return Calibration(covered.surface, covered.relief,
                       open_.surface if open_ else None, float(np.median(inks)))


def _groups(measured: Measured) -> list[_Surface]:
    """The capture's cells grouped by surface, those of two or more cells, most first."""
    groups: list[_Surface] = []
    for key in sorted(measured.looks, key=lambda k: -len(measured.cells[k])):
        look = measured.looks[key]
        home = next((s for s in groups if _alike(look, s)), None)
        if home is None:
            home = _Surface(look.surface)
            groups.append(home)
        home.looks.extend([look] * len(measured.cells[key]))
    groups = sorted((s for s in groups if len(s.looks) >= 2), key=lambda s: -len(s.looks))
    if not groups:
        raise UnsureError("no two cells of the board look alike")
    return groups


def _covered(groups: list[_Surface], covered_colour: RGB | None,
             raised_tiles: bool | None) -> _Surface:
    """The covered tiles' surface: each cue that speaks (a declared colour, a raised
    relief, numbers drawn on another surface) narrows the surfaces it may be, and they
    must agree on one."""
    left, said = list(groups), []
    if covered_colour is not None:
        left = [s for s in left if colour_distance(s.surface, covered_colour) <= 30]
        said.append(f"the declared covered colour {covered_colour}")
    top = max(groups, key=lambda s: s.relief)
    raised = len(groups) > 1 and all(top.raised_over(s) for s in groups if s is not top)
    if raised and raised_tiles is not False:
        left = [s for s in left if s is top]
        said.append(f"the raised relief of {top.surface}")
    elif raised_tiles and (len(groups) > 1 or top.relief < 5):
        left = []
        said.append("no surface stands raised, as the profile declares covered tiles do")
    numbered = [s for s in groups if s.digits >= 2
                and all(s.digits >= 3 * o.digits for o in groups if o is not s)]
    if numbered:
        left = [s for s in left if s is not numbered[0]]
        said.append(f"the numbers drawn on {numbered[0].surface}")
    if numbered and not left:
        others = "; ".join(w for w in said if not w.startswith("the numbers")) or "none other"
        raise NoCoveredTileError(
            f"no covered tile: the numbers are drawn on {numbered[0].surface}, the open "
            f"surface, and no other surface of {[s.surface for s in groups]} can be a "
            f"covered tile ({others}): a finished board, every cell open or a mine? (or "
            "a declared look this board does not have)")
    if len(left) != 1 or (len(groups) > 1 and not said):
        why = "; ".join(said) or "nothing tells them apart but their number"
        raise UnsureError(f"cannot tell covered cells from open ones among the surfaces "
                          f"{[s.surface for s in groups]} ({why})")
    return left[0]


def board_problem(rows: Sequence[str], zeros_open_around: bool) -> str | None:
    """Why ``rows`` cannot be a Minesweeper board as a game shows it, or ``None``: a
    number with fewer cells around it that may hold a mine than it counts, or (in games
    that open around a 0 themselves) a 0 next to a covered cell."""
    h, w = len(rows), len(rows[0]) if rows else 0
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch not in DIGITS and not (ch == "0" and zeros_open_around):
                continue
            around = [rows[ny][nx] for ny in range(max(0, y - 1), min(h, y + 2))
                      for nx in range(max(0, x - 1), min(w, x + 2)) if (nx, ny) != (x, y)]
            if ch == "0" and "#" in around:
                return f"the 0 at {(x, y)} touches a covered cell"
            if ch != "0" and sum(c in NOT_OPEN for c in around) < int(ch):
                return f"the {ch} at {(x, y)} has fewer cells around it that may be mines"
    return None


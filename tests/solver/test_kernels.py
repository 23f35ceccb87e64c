"""The compiled kernels run without bounds checks: arguments they cannot read safely are
refused with an exception, never a crashed process (an audit segfaulted three of them)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver._kernels import counting, endgame, fifty, frontier, guess, simulator
from kaboom.solver.frontier import Constraint, components


@pytest.mark.parametrize(("call", "error", "says"), [
    (lambda: components([Constraint((), 0)]), ValueError, "a constraint without cells"),
    (lambda: components([Constraint(((0, 0),), 1), Constraint((), 0)]), ValueError,
     "a constraint without cells"),
    (lambda: components([Constraint(((-1, 0), (1, 0)), 1)]), ValueError,
     "a cell off the board: (-1, 0)"),
    (lambda: counting.tally([], [], [], [], 1000, 0), ValueError,
     "split 0 is not a constraint of 0"),
    (lambda: counting.tally([[0], [0]], [3, 3], [2], [1], 1000, 0), ValueError,
     "room 1 is less than its classes' 6 cells"),
    (lambda: counting.tally([[1]], [2], [1], [2], 1000), ValueError,
     "class 0 names constraint 1 of 1"),
    (lambda: counting.assignments([[0]], [2, 3], [1], [2], 1000, 10), ValueError,
     "equal lengths"),
    (lambda: counting.weigh([{0: 1, 1: 2}], [{0: [0], 1: [1] * 10000}], 5, 2, math.comb),
     IndexError, ""),
    (lambda: fifty.pocket_places(1000, 1000, bytes([1] * 10), 3, 3), ValueError,
     "10 cells of state for a 1000x1000 board"),
    (lambda: frontier.Closure(100, 100, b"1"), ValueError, "1 cells for a 100x100 board"),
    (lambda: simulator.shown_of(3, 3, [9]), ValueError, "mine 9 is off a 3x3 board"),
    (lambda: simulator.shown_of(3, 3, [-1]), ValueError, "mine -1 is off a 3x3 board"),
    (lambda: simulator.flood(bytearray(b"#" * 9), b"0" * 8, 3, 3, 0), ValueError,
     "a 3x3 board has 9 cells"),
    (lambda: guess.undecided_around(3, 3, b"#" * 8, []), ValueError,
     "a 3x3 board has 9 cells"),
    (lambda: guess.undecided_around(3, 3, b"#" * 9, [(3, 0)]), ValueError,
     "(3, 0) is off a 3x3 board"),
    (lambda: guess.undecided_around(3, 3, b"#" * 9, [(0, -1)]), ValueError,
     "(0, -1) is off a 3x3 board"),
    (lambda: endgame.layout_masks(3, 3, [], [(3, 1)]), ValueError,
     "(3, 1) is off a 3x3 board"),
    (lambda: endgame.layout_masks(3, 3, [frozenset({(1, 3)})], [(0, 0)]), ValueError,
     "(1, 3) is off a 3x3 board"),
])
def test_a_kernel_refuses_what_it_cannot_read_safely(
    call: Callable[[], Any], error: type[Exception], says: str,
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert says in str(raised.value)


def test_a_split_search_with_its_exact_room_still_counts() -> None:
    """The check lets through what ``counting.Varying`` passes: the split constraint's
    room equal to its classes' cells (here one constraint over 2 + 1 cells)."""
    by_mines = counting.tally([[0], [0]], [2, 1], [0], [3], 1000, 0)
    assert by_mines is not None
    assert [totals[m] for m, (totals, _) in enumerate(by_mines)] == [1, 3, 3, 1]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), width=st.integers(1, 9), height=st.integers(1, 9))
def test_undecided_around_counts_covered_undecided_neighbours(
    data: st.DataObject, width: int, height: int
) -> None:
    """Against a plain scan of each cell's neighbours, on boards of every character."""
    chars = data.draw(st.lists(st.sampled_from("#F?012345678X*!"), min_size=width * height,
                               max_size=width * height))
    cells = [(x, y) for y in range(height) for x in range(width)]
    known = data.draw(st.sets(st.sampled_from(cells)))
    got = guess.undecided_around(width, height, "".join(chars).encode(), known)
    for x, y in cells:
        expected = sum(
            chars[ny * width + nx] in "#F?" and (nx, ny) not in known
            for ny in range(y - 1, y + 2) for nx in range(x - 1, x + 2)
            if (nx, ny) != (x, y) and 0 <= nx < width and 0 <= ny < height
        )
        assert got[y * width + x] == expected, (x, y)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), width=st.integers(1, 6), height=st.integers(1, 6))
def test_layout_masks_against_a_plain_count(
    data: st.DataObject, width: int, height: int
) -> None:
    """Per cell, the layouts that mine it, and per number it shows (ascending) the
    layouts that show it: against counting each layout's mines around the cell, with
    up to 130 layouts (three 64-bit words)."""
    board = [(x, y) for y in range(height) for x in range(width)]
    lays = data.draw(st.lists(st.frozensets(st.sampled_from(board)), max_size=130))
    cells = data.draw(st.lists(st.sampled_from(board), unique=True))
    mine, shows = endgame.layout_masks(width, height, lays, cells)
    for k, (x, y) in enumerate(cells):
        assert mine[k] == sum(1 << i for i, lay in enumerate(lays) if (x, y) in lay)
        by_number: dict[int, int] = {}
        for i, lay in enumerate(lays):
            if (x, y) not in lay:
                n = sum((x + dx, y + dy) in lay for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                by_number[n] = by_number.get(n, 0) | 1 << i
        assert shows[k] == [by_number[n] for n in sorted(by_number)]

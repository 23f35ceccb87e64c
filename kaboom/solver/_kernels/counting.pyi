"""Types of the compiled counting kernel (``counting.pyx``) for mypy."""

from collections.abc import Callable
from typing import overload

MAX_CELLS: int
MAX_SEARCH_BYTES: int

class Weights:
    weight: int
    outside_mine: int
    mine: list[list[int]] | None
    shift: int
    prefix: list[list[int]]
    lows: list[int]
    binoms: list[int]

@overload
def tally(
    cons_of: list[list[int]], sizes: list[int], need: list[int], room: list[int], node_limit: int
) -> tuple[dict[int, int], dict[int, list[int]]] | None: ...
@overload
def tally(
    cons_of: list[list[int]],
    sizes: list[int],
    need: list[int],
    room: list[int],
    node_limit: int,
    split: int,
) -> list[tuple[dict[int, int], dict[int, list[int]]]] | None: ...
def assignments(
    cons_of: list[list[int]],
    sizes: list[int],
    need: list[int],
    room: list[int],
    node_limit: int,
    limit: int,
    max_cells: int = -1,
) -> list[tuple[int, ...]] | None: ...
def reachable(
    cons_of: list[list[int]], sizes: list[int], need: list[int], room: list[int], node_limit: int
) -> int | None: ...
def classes(
    key: tuple[tuple[tuple[int, int], ...], ...],
) -> tuple[list[list[tuple[int, int]]], list[list[int]]]: ...
def weigh(
    dists: list[dict[int, int]],
    cell_counts: list[dict[int, list[int]]] | None,
    outside: int,
    mines_left: int,
    ways: Callable[[int, int], int],
    bits: int = 0,
) -> Weights | None: ...

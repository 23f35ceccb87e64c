"""Types of the compiled counting kernel (``counting.pyx``) for mypy."""

from collections.abc import Callable
from typing import overload

MAX_CELLS: int

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
) -> list[tuple[int, ...]] | None: ...
def classes(
    key: tuple[tuple[tuple[int, int], ...], ...],
) -> tuple[list[list[tuple[int, int]]], list[list[int]]]: ...
def weigh(
    dists: list[dict[int, int]],
    cell_counts: list[dict[int, list[int]]] | None,
    outside: int,
    mines_left: int,
    ways: Callable[[int, int], int],
) -> tuple[int, int, list[list[int]] | None] | None: ...

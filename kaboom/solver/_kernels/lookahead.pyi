"""Types of the compiled lookahead kernel (``lookahead.pyx``) for mypy."""

from collections.abc import Callable

def living_lows(
    weights: dict[tuple[int, int], int],
    total: int,
    out_open: bool,
    around: Callable[[tuple[int, int]], frozenset[tuple[int, int]]],
    index: dict[tuple[int, int], list[tuple[tuple[int, int], ...]]],
    clicked: tuple[int, int],
) -> list[tuple[int, tuple[int, int]]] | None: ...

"""Types of the compiled kernel (``kaboom/solver/_kernels.pyx``) for mypy."""

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar, overload

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
def weigh(
    dists: list[dict[int, int]],
    cell_counts: list[dict[int, list[int]]] | None,
    outside: int,
    mines_left: int,
    ways: Callable[[int, int], int],
) -> tuple[int, int, list[list[int]] | None] | None: ...
class _Grouped(Protocol):
    @property
    def cells(self) -> Iterable[tuple[int, int]]: ...
    @property
    def mines(self) -> int: ...

def reduce(
    constraints: list[_Grouped], max_rounds: int, stop_at_safe: bool
) -> tuple[
    list[tuple[frozenset[tuple[int, int]], int]], set[tuple[int, int]], set[tuple[int, int]],
    bool,
]: ...
def living_lows(
    weights: dict[tuple[int, int], int],
    total: int,
    out_open: bool,
    around: Callable[[tuple[int, int]], frozenset[tuple[int, int]]],
    index: dict[tuple[int, int], list[tuple[tuple[int, int], ...]]],
    clicked: tuple[int, int],
) -> list[tuple[int, tuple[int, int]]] | None: ...
_Con = TypeVar("_Con", bound=tuple[tuple[tuple[int, int], ...], int])

def components(
    constraints: Iterable[_Con],
) -> list[tuple[tuple[tuple[int, int], ...], list[_Con]]]: ...
def pocket_places(
    width: int, height: int, state: bytes | bytearray, pair_walls: int, box_walls: int
) -> list[tuple[int, int, int, tuple[tuple[int, int], ...]]]: ...
def classes(
    key: tuple[tuple[tuple[int, int], ...], ...],
) -> tuple[list[list[tuple[int, int]]], list[list[int]]]: ...

class Closure:
    mines_decided: int
    covered: int
    def __init__(self, width: int, height: int, flat: bytes) -> None: ...
    def advance(self, flat: bytes) -> bool: ...
    def take(self) -> tuple[list[int], list[tuple[int, bool]], list[int]]: ...
    def live(self, j: int) -> tuple[list[int], int]: ...
    def linked(self, seeds: list[int]) -> list[tuple[list[int], list[int]]]: ...
    def live_numbers(self) -> list[int]: ...
    def undecided(self) -> tuple[list[int], list[int]]: ...

class WinSearch:
    nodes: int
    def __init__(
        self, mine: list[int], shows: list[list[int]], layouts: int, node_limit: int
    ) -> None: ...
    def after(self, cell: int, state: int, floor: float) -> float | None: ...
def shown_of(width: int, height: int, mines: Iterable[int]) -> bytes: ...
def flood(board: bytearray, shown: bytes, width: int, height: int, start: int) -> int: ...
def undecided_around(
    width: int, height: int, flat: bytes, known: Iterable[tuple[int, int]]
) -> list[int]: ...
def layout_masks(
    width: int,
    height: int,
    layouts: list[frozenset[tuple[int, int]]],
    cells: list[tuple[int, int]],
) -> tuple[list[int], list[list[int]]]: ...

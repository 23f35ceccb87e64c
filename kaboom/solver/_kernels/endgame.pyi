"""Types of the compiled endgame kernel (``endgame.pyx``) for mypy."""

class WinSearch:
    nodes: int
    def __init__(
        self, mine: list[int], shows: list[list[int]], layouts: int, node_limit: int
    ) -> None: ...
    def after(self, cell: int, state: int, floor: float) -> float | None: ...

def layout_masks(
    width: int,
    height: int,
    layouts: list[frozenset[tuple[int, int]]],
    cells: list[tuple[int, int]],
) -> tuple[list[int], list[list[int]]]: ...

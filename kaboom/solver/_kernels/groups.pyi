"""Types of the compiled group-method kernel (``groups.pyx``) for mypy."""

from collections.abc import Iterable
from typing import Protocol

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

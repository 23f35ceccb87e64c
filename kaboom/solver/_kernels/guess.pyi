"""Types of the compiled guess kernel (``guess.pyx``) for mypy."""

from collections.abc import Iterable

def undecided_around(
    width: int, height: int, flat: bytes, known: Iterable[tuple[int, int]]
) -> list[int]: ...

"""Types of the compiled 50/50 kernel (``fifty.pyx``) for mypy."""

def pocket_places(
    width: int, height: int, state: bytes | bytearray, pair_walls: int, box_walls: int
) -> list[tuple[int, int, int, tuple[tuple[int, int], ...]]]: ...

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Where a 50/50 may form, compiled: the scan of the board for :mod:`kaboom.solver.fifty`."""


cdef int[12] _PAIR_SIDES = [-1, -1, -1, 0, -1, 1, 2, -1, 2, 0, 2, 1]  # (dx, dy) ...
cdef int[8] _BOX_CORNERS = [-1, -1, 2, -1, -1, 2, 2, 2]


def pocket_places(int width, int height, const unsigned char[::1] state, int pair_walls,
                  int box_walls):
    """Where a 50/50 may form (:func:`kaboom.solver.fifty.pockets`): ``state`` holds each cell
    by flat index, 0 open, 1 undecided, 2 a known mine, 3 known safe (both covered).

    A pair of undecided cells side by side (kind 0: ``(x + 1, y)``, kind 1: ``(x, y +
    1)``), or a 2x2 block of them (kind 2), whose distinguishing cells (the six beside
    the pair's ends, the block's four outer corners) are none open and at most
    ``pair_walls`` (``box_walls``) covered but not known mines: those are the missing
    walls.  Returns ``(x, y, kind, missing)`` by row, column and kind, ``missing`` in
    the order of the offsets above."""
    cdef int x, y, k, t, nx, ny, sides, blocked, walls, limit
    cdef int* offsets
    cdef unsigned char c
    if width < 0 or height < 0 or state.shape[0] != width * height:
        raise ValueError(f"{state.shape[0]} cells of state for a {width}x{height} board")
    out = []
    for y in range(height):
        for x in range(width):
            if state[y * width + x] != 1:
                continue
            for k in range(3):
                if k == 0:
                    if x + 1 >= width or state[y * width + x + 1] != 1:
                        continue
                elif k == 1:
                    if y + 1 >= height or state[(y + 1) * width + x] != 1:
                        continue
                elif (x + 1 >= width or y + 1 >= height or state[y * width + x + 1] != 1
                      or state[(y + 1) * width + x] != 1
                      or state[(y + 1) * width + x + 1] != 1):
                    continue
                if k == 2:
                    sides, offsets, limit = 4, &_BOX_CORNERS[0], box_walls
                else:
                    sides, offsets, limit = 6, &_PAIR_SIDES[0], pair_walls
                blocked = walls = 0
                for t in range(sides):
                    nx, ny = _side(offsets, k, t)
                    nx += x
                    ny += y
                    if 0 <= nx < width and 0 <= ny < height:
                        c = state[ny * width + nx]
                        if c == 0:
                            blocked += 1
                        elif c != 2:
                            walls += 1
                if blocked or walls > limit:
                    continue
                missing = []
                for t in range(sides):
                    nx, ny = _side(offsets, k, t)
                    nx += x
                    ny += y
                    if 0 <= nx < width and 0 <= ny < height:
                        c = state[ny * width + nx]
                        if c == 1 or c == 3:
                            missing.append((nx, ny))
                out.append((x, y, k, tuple(missing)))
    return out


cdef inline (int, int) _side(int* offsets, int kind, int t) noexcept:
    """The ``t``-th distinguishing offset of a pocket of this kind (a vertical pair's
    are a horizontal pair's turned: (k, dy) for dy in (-1, 2) for k in (-1, 0, 1))."""
    if kind == 1:
        return offsets[2 * t + 1], offsets[2 * t]
    return offsets[2 * t], offsets[2 * t + 1]

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The board's geometry and zeroed arrays, shared by the kernels that walk a board by flat
index ``y * width + x`` (inline: compiled into each module that cimports them)."""

from cpython.array cimport array


cdef inline Py_ssize_t flat_index(int x, int y, int width, int height) except -1:
    """The flat index of cell ``(x, y)``; a ``ValueError`` off the board."""
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"({x}, {y}) is off a {width}x{height} board")
    return <Py_ssize_t>y * width + x


cdef inline int neighbours(Py_ssize_t i, int width, int height, Py_ssize_t* out) noexcept:
    """Writes the flat indices of cell ``i``'s neighbours, row-major, into ``out`` (room
    for 8); returns how many: the closure's table, the layout's numbers and the flood
    fill all walk them."""
    cdef int x = i % width, y = i // width, dx, dy, t = 0
    for dy in range(-1, 2):
        if 0 <= y + dy < height:
            for dx in range(-1, 2):
                if (dx or dy) and 0 <= x + dx < width:
                    out[t] = (y + dy) * width + x + dx
                    t += 1
    return t


cdef inline int[::1] array_int(int n):
    return array("i", bytes(4 * n))


cdef inline signed char[::1] array_byte(int n):
    return array("b", bytes(n))

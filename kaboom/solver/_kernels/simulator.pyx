# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The simulator's board, compiled: each cell's number and the flood fill of an opened
zero, for :mod:`kaboom.solver.simulator`."""

from libc.stdlib cimport free, malloc

from kaboom.solver._kernels.board cimport neighbours


def shown_of(int width, int height, object mines):
    """What each cell of a ``width`` x ``height`` board shows once opened, by flat index:
    its number of neighbouring mines as a digit, ``*`` for a mine in ``mines`` (flat
    indices).  The simulator lays a board a game, a bench millions of them."""
    cdef Py_ssize_t n = <Py_ssize_t>width * height
    cdef bytearray out = bytearray(b"0") * n
    cdef unsigned char[::1] shown = out
    cdef int t, k
    cdef Py_ssize_t i
    cdef Py_ssize_t around[8]
    for i in mines:
        if not 0 <= i < n:
            raise ValueError(f"mine {i} is off a {width}x{height} board")
        k = neighbours(i, width, height, around)
        for t in range(k):
            shown[around[t]] += 1
    for i in mines:
        shown[i] = b"*"[0]
    return bytes(out)


def flood(unsigned char[::1] board, const unsigned char[::1] shown, int width, int height,
          Py_ssize_t start):
    """Opens covered cell ``start`` of ``board`` (``#`` covered, by flat index) to what
    ``shown`` holds and, from each ``0`` it opens, the covered cells around; returns how
    many it opened.  Flags and open cells are left as they are."""
    cdef Py_ssize_t n = <Py_ssize_t>width * height
    cdef unsigned char covered = b"#"[0], zero = b"0"[0]
    cdef Py_ssize_t i, j, top, opened
    cdef int t, k
    cdef Py_ssize_t around[8]
    if board.shape[0] != n or shown.shape[0] != n:
        raise ValueError(f"a {width}x{height} board has {n} cells")
    if not 0 <= start < n or board[start] != covered:
        return 0
    cdef Py_ssize_t* stack = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
    if stack == NULL:
        raise MemoryError()
    board[start] = shown[start]  # a cell is opened as it is pushed, so pushed once
    stack[0], top, opened = start, 1, 1
    while top:
        top -= 1
        i = stack[top]
        if board[i] != zero:
            continue
        k = neighbours(i, width, height, around)
        for t in range(k):
            j = around[t]
            if board[j] == covered:
                board[j] = shown[j]
                opened += 1
                stack[top] = j
                top += 1
    free(stack)
    return opened

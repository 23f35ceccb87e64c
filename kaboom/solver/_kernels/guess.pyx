# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Each cell's undecided neighbours, compiled: the count a guess orders its candidates
by, for :mod:`kaboom.solver.guess`."""

from kaboom.solver._kernels.board cimport flat_index, neighbours


def undecided_around(int width, int height, const unsigned char[::1] flat, object known):
    """How many undecided covered neighbours each cell has, by flat index: covered
    (``#``, ``F`` or ``?`` in ``flat``) and not among the ``known`` cells, ``(x, y)``.
    A guess orders its candidates by it; numpy's eight shifted sums cost more than the
    rest of a guess's ordering on an Expert board."""
    cdef Py_ssize_t n = <Py_ssize_t>width * height, i
    cdef int t, k, x, y, total
    cdef Py_ssize_t around[8]
    cdef unsigned char c
    if flat.shape[0] != n:
        raise ValueError(f"a {width}x{height} board has {n} cells")
    cdef bytearray undecided_ = bytearray(n)
    cdef unsigned char[::1] undecided = undecided_
    for i in range(n):
        c = flat[i]
        undecided[i] = c == b"#"[0] or c == b"F"[0] or c == b"?"[0]
    for x, y in known:
        undecided[flat_index(x, y, width, height)] = 0
    out = [0] * n
    for i in range(n):
        k = neighbours(i, width, height, around)
        total = 0
        for t in range(k):
            total += undecided[around[t]]
        out[i] = total
    return out

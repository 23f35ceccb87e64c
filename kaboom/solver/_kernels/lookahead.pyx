# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The lookahead's search for the lowest living cells, compiled, for
:mod:`kaboom.solver.lookahead`."""


def living_lows(dict weights, object total, bint out_open, object around, dict index,
                object clicked):
    """The two lowest mine weights, with their cells, among the cells of ``weights``
    (cell to mine weight, of ``total`` layouts) that are neither certain mines nor
    *dead* (:func:`kaboom.solver.lookahead._living_lows` says what dead is): a list of up to
    two ``(weight, cell)``, lowest first (then by cell), or ``None`` when none is
    living and the outside cells (undecided when ``out_open``) are not open either.

    ``around(cell)`` gives a cell's undecided covered neighbours, ``index`` each cell's
    numbers (as their cells), ``clicked`` the cell whose click is weighed."""
    cdef list lows = []
    for w, c in sorted([(w, c) for c, w in weights.items() if w < total]):
        if not _dead(c, weights, total, out_open, around, index, clicked):
            lows.append((w, c))
            if len(lows) == 2:
                break
    return lows if lows or out_open else None


cdef inline bint _open_cell(dict weights, object total, bint out_open, object c) except -1:
    w = weights.get(c)
    if w is None:
        return out_open
    return 0 < w < total


cdef bint _dead(object c, dict weights, object total, bint out_open, object around,
                dict index, object clicked) except -1:
    """No undecided neighbour, or exactly the undecided cells of one number (any
    number holding them all holds the first one found)."""
    cdef set near = set(), cells_left
    cdef Py_ssize_t size
    for n in around(c):
        if n != clicked and _open_cell(weights, total, out_open, n):
            near.add(n)
    if not near:
        return True
    size = len(near)
    for cells in index.get(next(iter(near)), ()):
        if len(cells) >= size:
            cells_left = set()
            for x in cells:
                if _open_cell(weights, total, out_open, x):
                    cells_left.add(x)
            if cells_left == near:
                return True
    return False

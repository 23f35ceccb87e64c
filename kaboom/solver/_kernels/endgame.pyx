# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The endgame's exact win-probability search and the tables it reads, compiled, for
:mod:`kaboom.solver.endgame`."""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc

from kaboom.solver._kernels.bits cimport __builtin_popcountll, any_both, count_both
from kaboom.solver._kernels.board cimport flat_index, neighbours


cdef class WinSearch:
    """The exact win-probability search over a set of equally likely layouts.

    A set of layouts is a bitset of ``words`` 64-bit words.  For each cell, ``mine`` holds
    the layouts that mine it and ``shows`` one bitset per number it can show.  Values
    are memoised by bitset; two bounds prune without changing the result (see
    :class:`kaboom.solver.endgame.Endgame`, which builds it).
    """

    cdef int words, cells, nvals_max
    cdef uint64_t* mine      # mine[c * words + w]
    cdef uint64_t* shows     # shows[(c * nvals_max + k) * words + w]
    cdef int* nvals          # numbers cell c can show
    cdef long nodes, node_limit
    cdef bint aborted
    cdef dict memo

    def __cinit__(self, list mine, list shows, int layouts, long node_limit):
        cdef int c, k
        self.words = (layouts + 63) // 64
        self.cells = len(mine)
        self.nvals_max = max([len(s) for s in shows] + [1])
        self.mine = <uint64_t*>malloc((self.cells * self.words + 1) * sizeof(uint64_t))
        self.shows = <uint64_t*>malloc(
            (self.cells * self.nvals_max * self.words + 1) * sizeof(uint64_t))
        self.nvals = <int*>malloc((self.cells + 1) * sizeof(int))
        if not self.mine or not self.shows or not self.nvals:
            raise MemoryError
        self.node_limit = node_limit
        self.nodes = 0
        self.aborted = False
        self.memo = {}
        for c in range(self.cells):
            _fill(self.mine + c * self.words, mine[c], self.words)
            self.nvals[c] = len(shows[c])
            for k in range(len(shows[c])):
                _fill(self.shows + (c * self.nvals_max + k) * self.words, shows[c][k],
                      self.words)

    def __dealloc__(self):
        free(self.mine)
        free(self.shows)
        free(self.nvals)

    def after(self, int cell, object state, double floor):
        """The win probability of clicking ``cell`` in ``state`` (a Python int bitset)
        and playing best after; ``None`` past the node limit."""
        cdef uint64_t* s = <uint64_t*>malloc(self.words * sizeof(uint64_t))
        cdef double got
        try:
            if not s:
                raise MemoryError
            _fill(s, state, self.words)
            got = self._after(cell, s, floor)
            return None if self.aborted else got
        finally:
            free(s)

    @property
    def nodes(self):
        return self.nodes

    cdef double _win(self, uint64_t* state):
        cdef int c, k, n, mines, distinct, count = 0, i, j
        cdef double best, got
        cdef int* order
        cdef int* weight
        cdef uint64_t* m
        key = PyBytes_FromStringAndSize(<char*>state, self.words * 8)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        if self.nodes > self.node_limit:
            self.aborted = True
            return 0.0
        n = count_both(state, state, self.words)
        order = <int*>malloc((self.cells + 1) * sizeof(int))
        weight = <int*>malloc((self.cells + 1) * sizeof(int))
        try:
            if not order or not weight:  # out of memory: give up, as past the node limit
                self.aborted = True
                return 0.0
            for c in range(self.cells):
                mines = count_both(state, self.mine + c * self.words, self.words)
                if mines == 0:
                    # a certainly safe cell that still tells something: play it first
                    distinct = 0
                    for k in range(self.nvals[c]):
                        m = self.shows + (c * self.nvals_max + k) * self.words
                        if any_both(state, m, self.words):
                            distinct += 1
                    if distinct > 1:
                        best = self._after(c, state, -1.0)
                        if not self.aborted:
                            self.memo[key] = best
                        return best
                elif mines < n:
                    # insertion by mines, then cell order: safest first
                    i = count
                    while i > 0 and weight[i - 1] > mines:
                        order[i] = order[i - 1]
                        weight[i] = weight[i - 1]
                        i -= 1
                    order[i] = c
                    weight[i] = mines
                    count += 1
            best = 0.0 if count else 1.0
            for j in range(count):
                if <double>(n - weight[j]) / n <= best:
                    break
                got = self._after(order[j], state, best)
                if self.aborted:
                    return 0.0
                if got > best:
                    best = got
            self.memo[key] = best
            return best
        finally:
            free(order)
            free(weight)

    cdef double _after(self, int cell, uint64_t* state, double floor):
        cdef int k, w, n, part_n
        cdef double left, got = 0.0, share
        cdef uint64_t* m
        cdef uint64_t* part = <uint64_t*>malloc(self.words * sizeof(uint64_t))
        try:
            if not part:  # out of memory: give up, as past the node limit
                self.aborted = True
                return 0.0
            n = count_both(state, state, self.words)
            left = <double>(n - count_both(state, self.mine + cell * self.words, self.words)) / n
            for k in range(self.nvals[cell]):
                m = self.shows + (cell * self.nvals_max + k) * self.words
                part_n = 0
                for w in range(self.words):
                    part[w] = state[w] & m[w]
                    part_n += __builtin_popcountll(part[w])
                if part_n:
                    share = <double>part_n / n
                    got += share * self._win(part)
                    if self.aborted:
                        return 0.0
                    left -= share
                    if got + left <= floor:
                        return got
            return got
        finally:
            free(part)


cdef void _fill(uint64_t* out, object bits, int words):
    cdef int w
    for w in range(words):
        out[w] = <uint64_t>(bits & 0xFFFFFFFFFFFFFFFF)
        bits >>= 64


def layout_masks(int width, int height, list layouts, list cells):
    """For :class:`kaboom.solver.endgame.Endgame`: per cell of ``cells``, the layouts (a bitset,
    bit ``i`` for ``layouts[i]``, each an iterable of mined cells ``(x, y)``) that mine
    it, and per number it shows in some layout, ascending, the layouts in which it
    shows it.  One pass over each layout's mines and each cell's neighbours."""
    cdef Py_ssize_t n = <Py_ssize_t>width * height, nl = len(layouts), nc = len(cells)
    cdef Py_ssize_t i, k, words = max(1, (nl + 63) // 64), row
    cdef int x, y, t, v
    cdef uint64_t bit
    cdef int* stamp = <int*>calloc(n + 1, sizeof(int))       # i + 1: layout i mines it
    cdef Py_ssize_t* place = <Py_ssize_t*>malloc((nc + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* near = <Py_ssize_t*>malloc((8 * nc + 1) * sizeof(Py_ssize_t))
    cdef int* nearn = <int*>malloc((nc + 1) * sizeof(int))
    cdef uint64_t* bits = <uint64_t*>calloc(nc * 10 * words + 1, sizeof(uint64_t))
    try:
        if not (stamp and place and near and nearn and bits):
            raise MemoryError()
        for k in range(nc):
            x, y = cells[k]
            place[k] = flat_index(x, y, width, height)
            nearn[k] = neighbours(place[k], width, height, near + 8 * k)
        for i in range(nl):
            for x, y in layouts[i]:
                stamp[flat_index(x, y, width, height)] = <int>(i + 1)
            bit = (<uint64_t>1) << (i & 63)
            for k in range(nc):
                if stamp[place[k]] == i + 1:
                    v = 9  # row 9: the layouts that mine it
                else:
                    v = 0
                    for t in range(nearn[k]):
                        v += stamp[near[8 * k + t]] == i + 1
                bits[(k * 10 + v) * words + (i >> 6)] |= bit
        mine = [_as_int(bits + (k * 10 + 9) * words, words) for k in range(nc)]
        shows = []
        for k in range(nc):
            row = k * 10
            shows.append([_as_int(bits + (row + v) * words, words) for v in range(9)
                          if any_both(bits + (row + v) * words, bits + (row + v) * words, words)])
        return mine, shows
    finally:
        free(stamp)
        free(place)
        free(near)
        free(nearn)
        free(bits)


cdef object _as_int(uint64_t* m, Py_ssize_t words):
    """The bitset as a Python int, written out byte by byte (whatever the machine's
    byte order)."""
    cdef bytes out = PyBytes_FromStringAndSize(NULL, words * 8)
    cdef unsigned char* p = <unsigned char*>PyBytes_AS_STRING(out)
    cdef Py_ssize_t w
    cdef int b
    for w in range(words):
        for b in range(8):
            p[8 * w + b] = (m[w] >> (8 * b)) & 0xFF
    return int.from_bytes(out, "little")

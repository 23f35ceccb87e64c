# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The frontier tracker's core, compiled: the single-number closure it keeps up to date as
cells open (:class:`Closure`) and the split of constraints into components
(:func:`components`), for :mod:`kaboom.solver.frontier`."""

from array import array

from kaboom.solver._kernels.board cimport array_byte, array_int, neighbours
from kaboom.solver.errors import InvalidPositionError


cdef enum:
    COVERED = -1
    OTHER = 9


cdef class Closure:
    """One board's cells and the single-number closure, kept up to date as cells open.

    Every open number ``j`` keeps ``free[j]`` (its undecided covered neighbours) and
    ``need[j]`` (the mines among them); when ``need`` is 0 or ``free`` the number
    decides them, which updates the numbers around them in turn.  Cells are flat
    indices ``y * width + x``.  :class:`kaboom.solver.frontier.FrontierTracker` wraps it.
    """

    cdef int width, height, n
    cdef signed char[::1] code   # -1 covered, 0-8 an open number, 9 anything else
    cdef signed char[::1] dec    # per covered cell: -1 undecided, 0 safe, 1 mine
    cdef signed char[::1] need
    cdef signed char[::1] free
    cdef signed char[::1] near   # open numbers next to the cell
    cdef signed char[::1] fresh
    cdef signed char[::1] dirty
    cdef int[::1] nb             # nb[8 * i + t], t < nbn[i]
    cdef signed char[::1] nbn
    cdef int[::1] queue
    cdef signed char[::1] queued
    cdef int qlen
    cdef list changed            # numbers whose undecided part changed since taken
    cdef list decided            # cells decided since taken, as (cell, mine)
    cdef list opened             # decided cells opened since taken
    cdef bytes flat
    cdef public int mines_decided
    cdef public int covered

    def __init__(self, int width, int height, bytes flat):
        cdef int i, t
        cdef Py_ssize_t around[8]
        if width < 1 or height < 1 or len(flat) != width * height:
            raise ValueError(f"{len(flat)} cells for a {width}x{height} board")
        self.width, self.height, self.n = width, height, width * height
        n = self.n
        self.code = array_byte(n)
        self.dec = array_byte(n)
        self.need = array_byte(n)
        self.free = array_byte(n)
        self.near = array_byte(n)
        self.fresh = array_byte(n)
        self.dirty = array_byte(n)
        self.queued = array_byte(n)
        self.nb = array_int(8 * n)
        self.nbn = array_byte(n)
        self.queue = array_int(n + 1)
        self.qlen = 0
        self.changed = []
        self.decided = []
        self.opened = []
        for i in range(n):
            self.nbn[i] = neighbours(i, width, height, around)
            for t in range(self.nbn[i]):
                self.nb[8 * i + t] = <int>around[t]
        self.flat = flat
        self.mines_decided = 0
        self.covered = 0
        for i in range(n):
            self.code[i] = _code(flat[i])
            self.dec[i] = -1
            if self.code[i] == COVERED:
                self.covered += 1
        for i in range(n):
            if 0 <= self.code[i] <= 8:
                for t in range(self.nbn[i]):
                    self.near[self.nb[8 * i + t]] += 1
        for i in range(n):
            if 0 <= self.code[i] <= 8:
                self._count(i)
        self._propagate()
        self._agree()

    def advance(self, bytes flat):
        """Moves to the board ``flat``; ``False`` (nothing changed) when it does not
        follow by opening cells."""
        cdef int i, k, t
        cdef signed char a, b
        cdef list opened = []
        cdef const unsigned char[:] new = flat
        cdef const unsigned char[:] old = self.flat
        for i in range(self.n):
            if new[i] != old[i]:
                a = _code(old[i])
                b = _code(new[i])
                if a != COVERED or b == OTHER:
                    return False
                if b != COVERED:
                    opened.append(i)
        self.flat = flat
        for i in opened:
            if self.dec[i] == 1:
                raise InvalidPositionError(
                    f"({i % self.width}, {i // self.width}) is open but the numbers make it a mine"
                )
            self.fresh[i] = 1
            self.code[i] = _code(new[i])
            self.covered -= 1
            for t in range(self.nbn[i]):
                self.near[self.nb[8 * i + t]] += 1
        for i in opened:
            if self.dec[i] == -1:  # an undecided cell left its numbers' undecided parts
                for t in range(self.nbn[i]):
                    k = self.nb[8 * i + t]
                    if 0 <= self.code[k] <= 8 and not self.fresh[k]:
                        self.free[k] -= 1
                        self._touch(k)
            else:  # a decided (safe) cell: its decision goes
                self.opened.append(i)
            self.dec[i] = -1
        for i in opened:
            self._count(i)
            self.fresh[i] = 0
        self._propagate()
        self._agree()
        return True

    def take(self):
        """``(numbers, decided, opened)`` since the last call: the numbers whose
        undecided part changed, the cells decided as ``(cell, mine)``, and the decided
        cells opened (a flood opens hundreds of cells that were never decided)."""
        out = (self.changed, self.decided, self.opened)
        for i in self.changed:
            self.dirty[i] = 0
        self.changed, self.decided, self.opened = [], [], []
        return out

    def live(self, int j):
        """The undecided cells of number ``j`` (row-major) and the mines among them."""
        cdef int t, c
        cells = []
        for t in range(self.nbn[j]):
            c = self.nb[8 * j + t]
            if self.code[c] == COVERED and self.dec[c] == -1:
                cells.append(c)
        return cells, self.need[j]

    def linked(self, list seeds):
        """The numbers with undecided cells reachable from ``seeds``, per component
        (numbers linked through shared undecided cells): ``(numbers, cells)``, both
        sorted, ``cells`` the component's undecided cells."""
        cdef int s, j, c, k, t, u
        cdef signed char[::1] seen = array_byte(self.n)  # 1: a number, 2: a cell
        groups = []
        for s in seeds:
            if seen[s] or not (0 <= self.code[s] <= 8) or self.free[s] == 0:
                continue
            seen[s] = 1
            stack = [s]
            members = []
            cells = []
            while stack:
                j = stack.pop()
                members.append(j)
                for t in range(self.nbn[j]):
                    c = self.nb[8 * j + t]
                    if self.code[c] != COVERED or self.dec[c] != -1:
                        continue
                    if not seen[c]:
                        seen[c] = 2
                        cells.append(c)
                    for u in range(self.nbn[c]):
                        k = self.nb[8 * c + u]
                        if not seen[k] and 0 <= self.code[k] <= 8 and self.free[k] > 0:
                            seen[k] = 1
                            stack.append(k)
            members.sort()
            cells.sort()
            groups.append((members, cells))
        return groups

    def live_numbers(self):
        """Every open number with undecided cells, row-major."""
        return [i for i in range(self.n) if 0 <= self.code[i] <= 8 and self.free[i] > 0]

    def undecided(self):
        """``(near, outside)``: the undecided covered cells next to an open number and
        next to none, row-major."""
        cdef int i
        near, outside = [], []
        for i in range(self.n):
            if self.code[i] == COVERED and self.dec[i] == -1:
                (near if self.near[i] else outside).append(i)
        return near, outside

    # ------------------------------------------------------------------ internals
    cdef int _count(self, int j) except -1:
        """Counts number ``j``'s undecided cells and the mines it still needs."""
        cdef int t, c, free = 0, need = self.code[j]
        for t in range(self.nbn[j]):
            c = self.nb[8 * j + t]
            if self.code[c] == COVERED:
                if self.dec[c] == -1:
                    free += 1
                elif self.dec[c] == 1:
                    need -= 1
        self.free[j] = free
        self.need[j] = need
        self._check(j)
        self._touch(j)
        return 0

    cdef int _check(self, int j) except -1:
        if self.need[j] < 0 or self.need[j] > self.free[j]:
            raise InvalidPositionError(
                f"the number at ({j % self.width}, {j // self.width}) cannot be satisfied"
            )
        return 0

    cdef int _agree(self) except -1:
        """Raises when two numbers have the same undecided cells but need different
        counts of mines among them; only numbers changed since :meth:`take` can."""
        cdef int j
        for j in self.changed:
            self._twins(j)
        return 0

    cdef int _twins(self, int j) except -1:
        """Raises when a number other than ``j`` has exactly ``j``'s undecided cells and
        needs another count of mines: it shares ``j``'s first undecided cell, has as many
        undecided cells, and touches each of ``j``'s."""
        cdef int t, u, c, k, first = -1, w = self.width
        cdef bint same
        if not (0 <= self.code[j] <= 8) or self.free[j] == 0:
            return 0
        for t in range(self.nbn[j]):
            c = self.nb[8 * j + t]
            if self.code[c] == COVERED and self.dec[c] == -1:
                first = c
                break
        for u in range(self.nbn[first]):
            k = self.nb[8 * first + u]
            if (k == j or not (0 <= self.code[k] <= 8) or self.free[k] != self.free[j]
                    or self.need[k] == self.need[j]):
                continue
            same = True
            for t in range(self.nbn[j]):
                c = self.nb[8 * j + t]
                if (self.code[c] == COVERED and self.dec[c] == -1
                        and (abs(c % w - k % w) > 1 or abs(c // w - k // w) > 1)):
                    same = False
                    break
            if same:
                k = max(j, k)
                raise InvalidPositionError(
                    f"the numbers around ({k % w}, {k // w}) contradict each other")
        return 0

    cdef void _touch(self, int j):
        if not self.dirty[j]:
            self.dirty[j] = 1
            self.changed.append(j)
        if not self.queued[j]:
            self.queued[j] = 1
            self.queue[self.qlen] = j
            self.qlen += 1

    cdef int _propagate(self) except -1:
        cdef int j, t, c, k, u
        cdef signed char mine
        while self.qlen:
            self.qlen -= 1
            j = self.queue[self.qlen]
            self.queued[j] = 0
            if self.free[j] == 0 or 0 < self.need[j] < self.free[j]:
                continue
            mine = 1 if self.need[j] else 0
            for t in range(self.nbn[j]):
                c = self.nb[8 * j + t]
                if self.code[c] != COVERED or self.dec[c] != -1:
                    continue
                self.dec[c] = mine
                self.mines_decided += mine
                self.decided.append((c, mine == 1))
                for u in range(self.nbn[c]):
                    k = self.nb[8 * c + u]
                    if 0 <= self.code[k] <= 8:
                        self.free[k] -= 1
                        self.need[k] -= mine
                        self._check(k)
                        self._touch(k)
        return 0


cdef inline signed char _code(unsigned char ch):
    if ch == 35 or ch == 70 or ch == 63:  # '#', 'F', '?'
        return COVERED
    if 48 <= ch <= 56:
        return ch - 48
    return OTHER


def components(object constraints):
    """Splits constraints (``(cells, mines)`` named tuples, ``cells`` not empty) into
    independent groups: cells linked through shared numbers.  Returns ``(cells,
    constraints)`` per group, its cells row-major and its constraints in the order
    given, the groups by their first cell, row-major."""
    cdef dict ids = {}
    cdef list cells = [], cons = list(constraints), out = [], members
    cdef Py_ssize_t n, i, j, first, r, width = 1
    cdef int[::1] parent, group_of
    for con in cons:
        if not con[0]:
            raise ValueError(f"a constraint without cells: {con!r}")
        for c in con[0]:
            if c[0] < 0 or c[1] < 0:
                raise ValueError(f"a cell off the board: {c!r}")
            if c not in ids:
                ids[c] = len(cells)
                cells.append(c)
                if c[0] >= width:
                    width = c[0] + 1
    n = len(cells)
    parent = array_int(n)
    for i in range(n):
        parent[i] = i
    for con in cons:
        members = list(con[0])
        first = _find(parent, ids[members[0]])
        for j in range(1, len(members)):
            r = _find(parent, ids[members[j]])
            if r != first:
                parent[r] = first
    group_of = array("i", [-1]) * n
    keys = []  # per group: its cells as y * width + x
    for i in range(n):
        r = _find(parent, i)
        if group_of[r] < 0:
            group_of[r] = len(out)
            out.append([])
            keys.append([])
        c = cells[i]
        keys[group_of[r]].append(c[1] * width + c[0])
    for con in cons:
        r = _find(parent, ids[con[0][0]])
        out[group_of[r]].append(con)
    everything = []
    for j in range(len(out)):
        row = sorted(keys[j])
        everything.append((row[0], tuple([(k % width, k // width) for k in row]), out[j]))
    everything.sort(key=_first)
    return [(cs, group) for _, cs, group in everything]


def _first(item):
    return item[0]


cdef Py_ssize_t _find(int[::1] parent, Py_ssize_t c):
    """The root of ``c``, shortening the path to it."""
    cdef Py_ssize_t root = c, up
    while parent[root] != root:
        root = parent[root]
    while c != root:
        up = parent[c]
        parent[c] = root
        c = up
    return root

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The solver's hot loop, compiled: the search over cell classes behind every exact count.

:mod:`kaboom.solver.counting` turns a component's constraints into *classes* (cells that lie
in exactly the same constraints, which only their number of mines tells apart) and
calls :func:`search`: a depth-first search that gives each class a mine count, checks
each constraint as soon as its last class is placed, and either adds up the solutions
by total mine count (with, per class, how many of them its mines account for) or lists
the class assignments.  Weights are 128-bit: a component's solutions fit while it has
at most 120 cells; a larger one is reported as too big, like one past the node limit.
"""

from array import array

cimport cython
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

cdef extern from *:
    ctypedef unsigned long long u128 "unsigned __int128"

ctypedef unsigned long long u64

cdef extern from *:
    int __builtin_popcountll(unsigned long long) noexcept nogil
    int __builtin_ctzll(unsigned long long) noexcept nogil

MAX_CELLS = 120


cdef struct Search:
    int n               # classes, in search order
    int* start          # constraints of class i: con[start[i]:start[i + 1]]
    int* con
    int* size
    u128* binom         # binom[i * stride + k] = C(size[i], k)
    int stride
    int* need           # mines still to place, per constraint
    int* room           # cells still unassigned, per constraint
    int* ks             # the current assignment
    u128* totals        # by mine count (and by the split constraint's mines, when split)
    u128* counts        # counts[m * n + i]: sum over m-mine solutions of weight * ks[i]
    int* split          # per class: 1 when its cells are in the split constraint
    int layer           # totals and counts per mines of the split constraint
    long nodes
    long node_limit
    bint listing
    int* out            # listed assignments, n ints each
    long out_len
    long out_cap        # assignments out has room for, doubled as needed up to out_limit
    long out_limit
    bint overflow
    bint no_memory


cdef bint _grow(Search* s) noexcept nogil:
    """Doubles the room for listed assignments, up to the caller's limit; False at the
    limit or when memory runs out (then ``no_memory`` says so)."""
    cdef long cap
    cdef int* more
    if s.out_cap >= s.out_limit:
        return False
    cap = min(2 * s.out_cap, s.out_limit)
    more = <int*>realloc(s.out, (cap * s.n + 1) * sizeof(int))
    if not more:
        s.no_memory = True
        return False
    s.out = more
    s.out_cap = cap
    return True


cdef void _place(Search* s, int i, int mines, u128 weight) noexcept nogil:
    cdef int j, k, low, high, c, t
    cdef u128* row
    if s.overflow:
        return
    if i == s.n:
        if s.listing:
            if s.out_len == s.out_cap and not _grow(s):
                s.overflow = True
                return
            for j in range(s.n):
                s.out[s.out_len * s.n + j] = s.ks[j]
            s.out_len += 1
            return
        k = 0
        if s.layer:
            for j in range(s.n):
                if s.split[j]:
                    k += s.ks[j]
            mines += k * s.layer
        s.totals[mines] += weight
        row = s.counts + mines * s.n
        for j in range(s.n):
            if s.ks[j]:
                row[j] += weight * s.ks[j]
        return
    s.nodes += 1
    if s.nodes > s.node_limit:
        s.overflow = True
        return
    for t in range(s.start[i], s.start[i + 1]):
        s.room[s.con[t]] -= s.size[i]
    low = 0
    high = s.size[i]
    for t in range(s.start[i], s.start[i + 1]):
        c = s.con[t]
        if s.need[c] - s.room[c] > low:
            low = s.need[c] - s.room[c]
        if s.need[c] < high:
            high = s.need[c]
    for k in range(low, high + 1):
        for t in range(s.start[i], s.start[i + 1]):
            s.need[s.con[t]] -= k
        s.ks[i] = k
        _place(s, i + 1, mines + k, weight * s.binom[i * s.stride + k])
        for t in range(s.start[i], s.start[i + 1]):
            s.need[s.con[t]] += k
        if s.overflow:
            break
    s.ks[i] = 0
    for t in range(s.start[i], s.start[i + 1]):
        s.room[s.con[t]] += s.size[i]


cdef tuple _tallied(Search* s, int first, int total_cells):
    """``(totals, counts)`` of the solutions counted from ``s.totals[first]`` on."""
    cdef int k, i, j, n = s.n
    totals = {}
    counts = {}
    for k in range(total_cells + 1):
        if s.totals[first + k]:
            totals[k] = _int(s.totals[first + k])
            row = []
            for i in range(n):
                each = _int(s.counts[(first + k) * n + i] / <u128>s.size[i])
                for j in range(s.size[i]):
                    row.append(each)
            counts[k] = row
    return totals, counts


cdef object _int(u128 v):
    return (<object>(<u64>(v >> 64)) << 64) | <object>(<u64>v)


def tally(list cons_of, list sizes, list need, list room, long node_limit, int split=-1):
    """Counts the solutions over classes.

    ``cons_of[i]`` lists the constraints of class ``i`` (classes in search order),
    ``sizes[i]`` its cells, ``need[j]``/``room[j]`` constraint ``j``'s mines and cells.
    Returns ``(totals, counts)``: ``totals[m]`` the number of ``m``-mine solutions,
    ``counts[m][c]`` how many of them mine cell ``c``, the cells numbered class by
    class (a class's cells are mined equally often); ``None`` past ``node_limit``
    search nodes or more than 120 cells.

    With ``split``, constraint ``split`` is not checked (its ``need`` is not read) and
    the solutions are counted apart by its mines: a list of ``(totals, counts)`` for 0
    to ``room[split]`` mines, the same as a search with each as its ``need`` (whose
    nodes are among this search's, so those too stay within ``node_limit``).
    """
    return _search(cons_of, sizes, need, room, node_limit, 0, split)


def assignments(list cons_of, list sizes, list need, list room, long node_limit, long limit):
    """Lists the solutions as mines per class (arguments as :func:`tally`); ``None`` past
    ``limit`` assignments, ``node_limit`` search nodes or 120 cells."""
    return _search(cons_of, sizes, need, room, node_limit, limit, -1)


cdef _search(list cons_of, list sizes, list need, list room, long node_limit, long listing,
             int split):
    cdef Search s
    cdef int i, j, k, t, total_cells = sum(sizes), n = len(sizes), ncons = len(need)
    cdef int stride = (max(sizes) if sizes else 0) + 1
    cdef int layers = 1
    cdef u128 b
    _check_search(cons_of, sizes, need, room, split)
    if split >= 0:
        layers = room[split] + 1
    if total_cells > MAX_CELLS:
        return None
    s.n = n
    s.stride = stride
    s.nodes = 0
    s.node_limit = node_limit
    s.listing = listing > 0
    s.out_len = 0
    s.out_limit = listing
    s.out_cap = min(listing, 256)  # grown while listing: a caller's limit may be huge
    s.no_memory = False
    s.overflow = False
    s.start = <int*>malloc((n + 1) * sizeof(int))
    s.con = <int*>malloc((sum(len(c) for c in cons_of) + 1) * sizeof(int))
    s.size = <int*>malloc((n + 1) * sizeof(int))
    s.binom = <u128*>malloc((n * stride + 1) * sizeof(u128))
    s.need = <int*>malloc((ncons + 1) * sizeof(int))
    s.room = <int*>malloc((ncons + 1) * sizeof(int))
    s.ks = <int*>malloc((n + 1) * sizeof(int))
    s.layer = total_cells + 1 if split >= 0 else 0
    s.totals = <u128*>malloc((layers * (total_cells + 1)) * sizeof(u128))
    s.counts = <u128*>malloc((layers * (total_cells + 1) * n + 1) * sizeof(u128))
    s.split = <int*>malloc((n + 1) * sizeof(int))
    s.out = <int*>malloc((s.out_cap * n + 1) * sizeof(int))
    try:
        if (not s.start or not s.con or not s.size or not s.binom or not s.need or not s.room
                or not s.ks or not s.totals or not s.counts or not s.split or not s.out):
            raise MemoryError
        t = 0
        for i in range(n):
            s.start[i] = t
            s.split[i] = 0
            for j in cons_of[i]:
                if j == split:
                    s.split[i] = 1
                    continue
                s.con[t] = j
                t += 1
            s.size[i] = sizes[i]
            s.ks[i] = 0
            b = 1
            for k in range(stride):
                s.binom[i * stride + k] = b if k <= sizes[i] else 0
                b = b * (sizes[i] - k) // (k + 1) if k < sizes[i] else 0
        s.start[n] = t
        for j in range(ncons):
            s.need[j] = need[j]
            s.room[j] = room[j]
        for k in range(layers * (total_cells + 1)):
            s.totals[k] = 0
        for k in range(layers * (total_cells + 1) * n):
            s.counts[k] = 0
        with nogil:
            _place(&s, 0, 0, 1)
        if s.no_memory:
            raise MemoryError
        if s.overflow:
            return None
        if s.listing:
            return [tuple(s.out[a * n + i] for i in range(n)) for a in range(s.out_len)]
        found = [_tallied(&s, v * (total_cells + 1), total_cells) for v in range(layers)]
        return found if split >= 0 else found[0]
    finally:
        free(s.split)
        free(s.start)
        free(s.con)
        free(s.size)
        free(s.binom)
        free(s.need)
        free(s.room)
        free(s.ks)
        free(s.totals)
        free(s.counts)
        free(s.out)


# ---------------------------------------------------------------------- classes
cdef _check_search(list cons_of, list sizes, list need, list room, int split):
    """Refuses arguments the search would read or write past its memory with (it runs
    without bounds checks): a ValueError, not a crashed process."""
    cdef Py_ssize_t n = len(sizes), ncons = len(need), split_cells = 0
    if len(cons_of) != n or len(room) != ncons:
        raise ValueError("cons_of and sizes, need and room must have equal lengths")
    if split >= ncons or split < -1:
        raise ValueError(f"split {split} is not a constraint of {ncons}")
    for i in range(n):
        if sizes[i] < 0:
            raise ValueError(f"class {i} has {sizes[i]} cells")
        for j in cons_of[i]:
            if not 0 <= j < ncons:
                raise ValueError(f"class {i} names constraint {j} of {ncons}")
            if j == split:
                split_cells += sizes[i]
    if split >= 0 and room[split] < split_cells:
        raise ValueError(f"the split constraint's room {room[split]} is less than its"
                         f" classes' {split_cells} cells")


def classes(tuple key):
    """The cells of the constraints whose cells are ``key`` in classes, in search
    order, and the constraints (indices into ``key``) of each class
    (:func:`kaboom.solver.counting._classes_of` says why).

    Cells that lie in exactly the same constraints form one class, its cells in the
    order first met; classes go breadth-first through shared constraints, starting
    from the largest signature not yet reached (the first such, on ties)."""
    cdef dict cell_cons = {}, by_sig = {}
    cdef list sigs, con_sigs, order = [], queue, js
    cdef Py_ssize_t n, i, i2, j, head, start
    cdef tuple sig
    for j in range(len(key)):
        for c in <tuple>key[j]:
            js = cell_cons.get(c)
            if js is None:
                cell_cons[c] = [j]
            else:
                js.append(j)
    for c, js in cell_cons.items():
        sig = tuple(js)
        members = by_sig.get(sig)
        if members is None:
            by_sig[sig] = [c]
        else:
            members.append(c)
    sigs = list(by_sig)
    n = len(sigs)
    con_sigs = [[] for _ in range(len(key))]
    for i in range(n):
        for j in <tuple>sigs[i]:
            (<list>con_sigs[j]).append(i)
    cdef signed char[::1] seen = array_byte(n)
    for _, start in sorted([(-len(<tuple>sigs[i]), i) for i in range(n)]):
        if seen[start]:
            continue
        queue = [start]
        seen[start] = 1
        head = 0
        while head < len(queue):
            i = queue[head]
            head += 1
            order.append(i)
            for j in <tuple>sigs[i]:
                for i2 in <list>con_sigs[j]:
                    if not seen[i2]:
                        seen[i2] = 1
                        queue.append(i2)
    return [by_sig[sigs[i]] for i in order], [list(sigs[i]) for i in order]


# ---------------------------------------------------------------------- combining
@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
def weigh(list dists, list cell_counts, long outside, long mines_left, object ways):
    """Exact layout weights of independent components with ``outside`` unconstrained
    cells and ``mines_left`` mines among them all (Python integers throughout).

    ``dists[i]`` maps a mine count of component ``i`` to its solutions, and
    ``cell_counts[i][k]`` (when given) lists how many of its ``k``-mine solutions mine
    each of its cells; ``ways(n, k)`` is ``C(n, k)``.  Returns ``(weight, outside_mine,
    mine)``: the layouts, those that mine one given outside cell, and per component
    the layouts that mine each of its cells (without ``cell_counts``: only the first;
    then 0 and ``None``); or ``None`` when no layout fits.
    """
    cdef Py_ssize_t n = len(dists), i, t, k, k2, idx, top
    dense = [_dense(d) for d in dists]
    # prefix[i]: the mine-count distribution of the components before i
    prefix = [[1]]
    for i in range(n):
        prefix.append(_convolve(prefix[i], dense[i], mines_left))
    everything = prefix[n]
    top = len(everything)
    # binoms[t] = C(outside, mines_left - t), the ways to put the rest outside when t mines
    # lie in the components: one binomial, then a step each, C(n, k - 1) = C(n, k) * k /
    # (n - k + 1) (a fresh C(64000, 32000) costs 90 ms; a step, microseconds)
    binoms = [0] * top
    lo, hi = max(0, mines_left - outside), min(top - 1, mines_left)
    if lo <= hi:
        b = ways(outside, mines_left - lo)
        binoms[lo] = b
        for t in range(lo + 1, hi + 1):
            k = mines_left - t + 1
            b = b * k // (outside - k + 1)
            binoms[t] = b
    weight = 0
    outside_mine = 0
    for t in range(top):
        w = everything[t]
        if not w or not binoms[t]:
            continue
        weight += w * binoms[t]
        if cell_counts is not None and mines_left - t >= 1:
            # C(outside - 1, k - 1) = C(outside, k) * k / outside: one given cell mined
            outside_mine += w * (binoms[t] * (mines_left - t) // outside)
    if not weight:
        return None
    if cell_counts is None:
        return weight, outside_mine, None
    # later[j]: the layouts of the components after i and the outside when j mines lie
    # in the components up to i; from the last component back, one step each,
    # later_i[j] = sum over c of dense[i][c] * later_(i+1)[j + c], starting from binoms.
    # (Convolving the components before and after each one cost n * top^2 big-integer
    # products: minutes for a 256x256 board with hundreds of small components.)
    later = binoms
    mine = [None] * n
    for i in range(n - 1, -1, -1):
        pre = <list>prefix[i]
        acc = None
        for k, row in (<dict>cell_counts[i]).items():
            if acc is None:
                acc = [0] * len(row)
            f = 0  # layouts of the rest of the board when this component has k mines
            for k2 in range(min(len(pre), len(later) - <Py_ssize_t>k)):
                w = pre[k2]
                if w:
                    b = later[k + k2]
                    if b:
                        f += w * b
            if f:
                for idx in range(len(<list>row)):
                    v = (<list>row)[idx]
                    if v:
                        acc[idx] += v * f
        mine[i] = [] if acc is None else acc
        if i:  # the steps before read it below len(prefix[i]) only
            later = _correlate(dense[i], later, len(pre))
    return weight, outside_mine, mine


@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
cdef list _dense(dict dist):
    """A mine-count distribution as a list by mine count."""
    out = [0] * (max(dist) + 1 if dist else 0)
    for k, w in dist.items():
        out[k] = w
    return out


@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
cdef list _correlate(list d, list row, Py_ssize_t size):
    """``out[j] = sum over c of d[c] * row[j + c]`` for ``j < size``."""
    cdef Py_ssize_t n = len(row), nd = len(d), j, c
    size = min(size, n)
    out = [0] * size
    for c in range(nd):
        x = d[c]
        if not x:
            continue
        for j in range(min(size, n - c)):
            y = row[j + c]
            if y:
                out[j] += x * y
    return out


cdef list _convolve(list a, list b, long cap):
    """The distribution of the sum of two independent mine counts, up to ``cap``."""
    cdef Py_ssize_t na = len(a), nb = len(b), i, j, size
    size = min(na + nb - 1, cap + 1)
    if size <= 0:
        return []
    out = [0] * size
    for i in range(min(na, size)):
        x = a[i]
        if not x:
            continue
        for j in range(min(nb, size - i)):
            y = b[j]
            if y:
                out[i + j] += x * y
    return out


# ---------------------------------------------------------------------- the board
cdef Py_ssize_t _flat(int x, int y, int width, int height) except -1:
    """The flat index of cell ``(x, y)``; a ``ValueError`` off the board."""
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"({x}, {y}) is off a {width}x{height} board")
    return <Py_ssize_t>y * width + x


cdef inline int _around(Py_ssize_t i, int width, int height, Py_ssize_t* out) noexcept:
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


# ---------------------------------------------------------------------- the closure
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
            self.nbn[i] = _around(i, width, height, around)
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
        cdef int i
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


cdef int[::1] array_int(int n):
    return array("i", bytes(4 * n))


cdef signed char[::1] array_byte(int n):
    return array("b", bytes(n))


# ---------------------------------------------------------------------- components
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


# ---------------------------------------------------------------------- pockets
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


# ---------------------------------------------------------------------- the lookahead
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


# ---------------------------------------------------------------------- the group method
# Each group is a bitset over the component's cells (``words`` 64-bit words), kept in
# growable arrays with an open-addressing table that finds a group by its cells.  A group
# replaced or folded away is marked dead and stays in the arrays (its index is stable);
# the table skips it.

cdef struct Groups:
    int words
    int n, cap          # groups stored (alive or dead), room for
    uint64_t* mask      # mask[g * words + w]
    int* mines
    int* size           # cells in the group
    char* alive
    int* slot           # group ids by hash, -1 empty; slots a power of two, > 2 * cap
    int slots


cdef void _groups_none(Groups* t) noexcept:
    """Nothing allocated yet: safe to pass to :func:`_groups_free`."""
    t.mask = NULL
    t.mines = t.size = t.slot = NULL
    t.alive = NULL


cdef int _groups_init(Groups* t, int words, int cap) except -1:
    t.words, t.n, t.cap = words, 0, cap
    t.mask = <uint64_t*>malloc(<size_t>cap * words * sizeof(uint64_t))
    t.mines = <int*>malloc(cap * sizeof(int))
    t.size = <int*>malloc(cap * sizeof(int))
    t.alive = <char*>malloc(cap)
    t.slot = NULL
    if not (t.mask and t.mines and t.size and t.alive):
        raise MemoryError()
    _new_table(t)
    return 0


cdef int _new_table(Groups* t) except -1:
    """An empty table of ids, more than twice ``t.cap`` slots (a power of two)."""
    free(t.slot)
    t.slots = 4
    while t.slots <= 2 * t.cap:
        t.slots *= 2
    t.slot = <int*>malloc(t.slots * sizeof(int))
    if t.slot == NULL:
        raise MemoryError()
    memset(t.slot, -1, t.slots * sizeof(int))
    return 0


cdef void _slot_in(Groups* t, int g) noexcept:
    """Enters group ``g`` in the table, at the first free slot from its hash."""
    cdef size_t k = _hash_of(t.mask + <size_t>g * t.words, t.words) & (t.slots - 1)
    while t.slot[k] >= 0:
        k = (k + 1) & (t.slots - 1)
    t.slot[k] = g


cdef void _groups_free(Groups* t) noexcept:
    free(t.mask)
    free(t.mines)
    free(t.size)
    free(t.alive)
    free(t.slot)
    _groups_none(t)


cdef inline size_t _hash_of(uint64_t* m, int words) noexcept:
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL
    cdef int w
    for w in range(words):
        h = (h ^ m[w]) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
    return <size_t>h


cdef inline bint _same(uint64_t* a, uint64_t* b, int words) noexcept:
    cdef int w
    for w in range(words):
        if a[w] != b[w]:
            return False
    return True


cdef int _find_group(Groups* t, uint64_t* m) noexcept:
    """The living group with cells ``m``, or -1."""
    cdef size_t k = _hash_of(m, t.words) & (t.slots - 1)
    cdef int g
    while True:
        g = t.slot[k]
        if g < 0:
            return -1
        if t.alive[g] and _same(t.mask + <size_t>g * t.words, m, t.words):
            return g
        k = (k + 1) & (t.slots - 1)


cdef int _grow_groups(Groups* t) except -1:
    """Doubles the room; the table is rebuilt with the living groups only."""
    cdef int cap = 2 * t.cap, g
    cdef void* p
    p = realloc(t.mask, <size_t>cap * t.words * sizeof(uint64_t))
    if p == NULL:
        raise MemoryError()
    t.mask = <uint64_t*>p
    p = realloc(t.mines, cap * sizeof(int))
    if p == NULL:
        raise MemoryError()
    t.mines = <int*>p
    p = realloc(t.size, cap * sizeof(int))
    if p == NULL:
        raise MemoryError()
    t.size = <int*>p
    p = realloc(t.alive, cap)
    if p == NULL:
        raise MemoryError()
    t.alive = <char*>p
    t.cap = cap
    _new_table(t)
    for g in range(t.n):
        if t.alive[g]:
            _slot_in(t, g)
    return 0


cdef int _add_group(Groups* t, uint64_t* m, int mines) except -1:
    """Adds ``mines`` of cells ``m``: 1 if it is new, 0 if empty or already there.
    ``m`` must not point into ``t`` (adding may move its arrays)."""
    cdef int size = _count(m, m, t.words), g
    if mines < 0 or mines > size:
        raise InvalidPositionError("the numbers contradict each other")
    if size == 0:
        return 0
    g = _find_group(t, m)
    if g >= 0:
        if t.mines[g] != mines:
            raise InvalidPositionError("the numbers contradict each other")
        return 0
    if t.n == t.cap:
        _grow_groups(t)
    g = t.n
    t.n += 1
    memcpy(t.mask + <size_t>g * t.words, m, t.words * sizeof(uint64_t))
    t.mines[g], t.size[g], t.alive[g] = mines, size, 1
    _slot_in(t, g)
    return 1


def reduce(list constraints, int max_rounds, bint stop_at_safe):
    """The group method's fixpoint (:func:`kaboom.solver.groups.reduce_groups`, which documents
    the rules) over constraints (anything with ``cells`` and ``mines``).

    Returns ``(groups, safe, mines, trivial)``: the groups left as ``(cells, mines)``
    with ``cells`` a frozenset, the cells proven safe and mines (sets), and whether the
    pair rules were never needed.  Raises :class:`InvalidPositionError` when groups
    contradict.
    """
    cdef dict index = {}
    cdef list cells = []
    cdef Groups t
    cdef int words, i, g, rounds
    cdef bint trivial = True, changed
    cdef uint64_t* m
    cdef uint64_t* safe
    cdef uint64_t* mines
    for con in constraints:
        for c in con.cells:
            if c not in index:
                index[c] = len(cells)
                cells.append(c)
    words = max(1, (len(cells) + 63) // 64)
    _groups_none(&t)
    m = <uint64_t*>calloc(3 * words, sizeof(uint64_t))
    if m == NULL:
        raise MemoryError()
    safe, mines = m + words, m + 2 * words
    try:
        _groups_init(&t, words, max(8, 2 * len(constraints)))
        for con in constraints:
            memset(m, 0, words * sizeof(uint64_t))
            for c in con.cells:
                i = index[c]
                m[i >> 6] |= (<uint64_t>1) << (i & 63)
            _add_group(&t, m, con.mines)
        for rounds in range(max_rounds):
            changed = _settle_groups(&t, safe, mines)
            if stop_at_safe and _any(safe, safe, words):
                break
            trivial = False
            changed |= _pair_groups(&t, len(cells))
            if not changed:
                break
        else:
            _settle_groups(&t, safe, mines)
        left = [
            (frozenset([cells[i] for i in _members(t.mask + <size_t>g * words, words)]),
             t.mines[g])
            for g in range(t.n) if t.alive[g]
        ]
        return (left, set([cells[i] for i in _members(safe, words)]),
                set([cells[i] for i in _members(mines, words)]), trivial)
    finally:
        free(m)
        _groups_free(&t)


cdef list _members(uint64_t* m, int words):
    """The indices of the set bits, ascending."""
    cdef list out = []
    cdef int w
    cdef uint64_t b
    for w in range(words):
        b = m[w]
        while b:
            out.append(64 * w + __builtin_ctzll(b))
            b &= b - 1
    return out


cdef bint _settle_groups(Groups* t, uint64_t* safe, uint64_t* mines) except -1:
    """Decides all-safe and all-mine groups and folds decided cells into the rest."""
    cdef int words = t.words, w, g, n
    cdef bint changed = False, found
    cdef Groups old
    cdef uint64_t* g_mask
    cdef uint64_t* buf = <uint64_t*>malloc(3 * words * sizeof(uint64_t))
    cdef uint64_t* new_safe = buf
    cdef uint64_t* new_mines = buf + words
    cdef uint64_t* rest = buf + 2 * words
    if buf == NULL:
        raise MemoryError()
    try:
        while True:
            memset(buf, 0, 2 * words * sizeof(uint64_t))
            found = False
            for g in range(t.n):
                if not t.alive[g]:
                    continue
                g_mask = t.mask + <size_t>g * words
                if t.mines[g] == 0:
                    found = True
                    for w in range(words):
                        new_safe[w] |= g_mask[w]
                elif t.mines[g] == t.size[g]:
                    found = True
                    for w in range(words):
                        new_mines[w] |= g_mask[w]
            if not found:
                return changed
            if _any(new_safe, new_mines, words):
                raise InvalidPositionError("the numbers contradict each other")
            changed = True
            for w in range(words):
                safe[w] |= new_safe[w]
                mines[w] |= new_mines[w]
            old = t[0]
            try:
                _groups_init(t, words, old.cap)
                for g in range(old.n):
                    if not old.alive[g]:
                        continue
                    g_mask = old.mask + <size_t>g * words
                    n = 0
                    for w in range(words):
                        rest[w] = g_mask[w] & ~(new_safe[w] | new_mines[w])
                        n += __builtin_popcountll(g_mask[w] & new_mines[w])
                    _add_group(t, rest, old.mines[g] - n)
            finally:
                _groups_free(&old)
    finally:
        free(buf)


cdef bint _pair_groups(Groups* t, int ncells) except -1:
    """One pass of the subset and overlap rules over groups that share a cell."""
    cdef int words = t.words, n = t.n, a, b, w, c, k, g, o, i
    cdef bint changed = False
    cdef int* start = <int*>calloc(ncells + 1, sizeof(int))
    cdef int* member = NULL
    cdef int* mark = NULL
    cdef int* order = NULL
    cdef Groups found
    cdef uint64_t* buf = <uint64_t*>malloc(2 * words * sizeof(uint64_t))
    cdef uint64_t* am
    cdef uint64_t* bm
    cdef uint64_t bits
    _groups_none(&found)
    if start == NULL or buf == NULL:
        free(start)
        free(buf)
        raise MemoryError()
    try:
        # the groups of each cell, as one array sliced by start[c]..start[c + 1]
        for g in range(n):
            if t.alive[g]:
                am = t.mask + <size_t>g * words
                for w in range(words):
                    bits = am[w]
                    while bits:
                        start[64 * w + __builtin_ctzll(bits) + 1] += 1
                        bits &= bits - 1
        for c in range(ncells):
            start[c + 1] += start[c]
        member = <int*>malloc((start[ncells] + 1) * sizeof(int))
        mark = <int*>malloc((n + 1) * sizeof(int))
        if member == NULL or mark == NULL:
            raise MemoryError()
        for g in range(n):
            mark[g] = -1
            if t.alive[g]:
                am = t.mask + <size_t>g * words
                for w in range(words):
                    bits = am[w]
                    while bits:
                        c = 64 * w + __builtin_ctzll(bits)
                        bits &= bits - 1
                        member[start[c]] = g
                        start[c] += 1
        for c in range(ncells, 0, -1):
            start[c] = start[c - 1]
        start[0] = 0
        # what each pair that shares a cell implies, collected before any is added
        _groups_init(&found, words, 16)
        for a in range(n):
            if not t.alive[a]:
                continue
            for w in range(words):
                bits = t.mask[<size_t>a * words + w]
                while bits:
                    c = 64 * w + __builtin_ctzll(bits)
                    bits &= bits - 1
                    for k in range(start[c], start[c + 1]):
                        b = member[k]
                        if b > a and mark[b] != a:
                            mark[b] = a
                            _combine_groups(t, a, b, &found, buf)
        for g in range(found.n):
            if _add_group(t, found.mask + <size_t>g * words, found.mines[g]):
                changed = True
        if not changed:
            return False
        # A group that has a proper sub-group is replaced by the difference, the
        # smallest sub-groups first.
        n = t.n
        order = <int*>malloc(n * sizeof(int))
        if order == NULL:
            raise MemoryError()
        k = 0
        for c in range(1, ncells + 1):
            for g in range(n):
                if t.alive[g] and t.size[g] == c:
                    order[k] = g
                    k += 1
        for i in range(k):
            g = order[i]
            if not t.alive[g]:
                continue
            for o in range(t.n):
                if o == g or not t.alive[o] or t.size[o] <= t.size[g]:
                    continue
                am = t.mask + <size_t>g * words
                bm = t.mask + <size_t>o * words
                for w in range(words):
                    if am[w] & ~bm[w]:
                        break
                else:
                    for w in range(words):
                        buf[w] = bm[w] & ~am[w]
                    t.alive[o] = 0
                    _add_group(t, buf, t.mines[o] - t.mines[g])
        return True
    finally:
        free(start)
        free(member)
        free(mark)
        free(order)
        free(buf)
        _groups_free(&found)


cdef int _combine_groups(Groups* t, int a, int b, Groups* found, uint64_t* buf) except -1:
    """Adds to ``found`` what groups ``a`` and ``b`` imply together (``buf``: scratch of
    two masks); the same cells implied with two counts contradict (:func:`_add_group`)."""
    cdef int words = t.words, w, ma = t.mines[a], mb = t.mines[b]
    cdef int inter = 0, only_a, only_b
    cdef uint64_t* am = t.mask + <size_t>a * words
    cdef uint64_t* bm = t.mask + <size_t>b * words
    cdef uint64_t* da = buf
    cdef uint64_t* db = buf + words
    for w in range(words):
        inter += __builtin_popcountll(am[w] & bm[w])
        da[w] = am[w] & ~bm[w]
        db[w] = bm[w] & ~am[w]
    only_a, only_b = t.size[a] - inter, t.size[b] - inter
    if only_a == 0:  # a inside b
        _add_group(found, db, mb - ma)
    elif only_b == 0:
        _add_group(found, da, ma - mb)
    elif mb - only_b == ma:  # b's mines outside a fill a's count: a - b is safe
        _add_group(found, da, 0)
        _add_group(found, db, mb - ma)
    elif ma - only_a == mb:
        _add_group(found, db, 0)
        _add_group(found, da, ma - mb)
    return 0


# ---------------------------------------------------------------------- the endgame
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize


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
        cdef int c, k, w
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
        cdef int c, k, w, n, mines, distinct, count = 0, i, j
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
        n = _count(state, state, self.words)
        order = <int*>malloc((self.cells + 1) * sizeof(int))
        weight = <int*>malloc((self.cells + 1) * sizeof(int))
        try:
            if not order or not weight:  # out of memory: give up, as past the node limit
                self.aborted = True
                return 0.0
            for c in range(self.cells):
                mines = _count(state, self.mine + c * self.words, self.words)
                if mines == 0:
                    # a certainly safe cell that still tells something: play it first
                    distinct = 0
                    for k in range(self.nvals[c]):
                        m = self.shows + (c * self.nvals_max + k) * self.words
                        if _any(state, m, self.words):
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
            n = _count(state, state, self.words)
            left = <double>(n - _count(state, self.mine + cell * self.words, self.words)) / n
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




cdef inline int _count(uint64_t* a, uint64_t* b, int words) noexcept:
    cdef int w, n = 0
    for w in range(words):
        n += __builtin_popcountll(a[w] & b[w])
    return n


cdef inline bint _any(uint64_t* a, uint64_t* b, int words) noexcept:
    cdef int w
    for w in range(words):
        if a[w] & b[w]:
            return True
    return False


cdef void _fill(uint64_t* out, object bits, int words):
    cdef int w
    for w in range(words):
        out[w] = <uint64_t>(bits & 0xFFFFFFFFFFFFFFFF)
        bits >>= 64


# ---------------------------------------------------------------------- the simulator
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
        k = _around(i, width, height, around)
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
        k = _around(i, width, height, around)
        for t in range(k):
            j = around[t]
            if board[j] == covered:
                board[j] = shown[j]
                opened += 1
                stack[top] = j
                top += 1
    free(stack)
    return opened


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
        undecided[_flat(x, y, width, height)] = 0
    out = [0] * n
    for i in range(n):
        k = _around(i, width, height, around)
        total = 0
        for t in range(k):
            total += undecided[around[t]]
        out[i] = total
    return out


# ---------------------------------------------------------------------- the endgame's tables
def layout_masks(int width, int height, list layouts, list cells):
    """For :class:`kaboom.solver.endgame.Endgame`: per cell of ``cells``, the layouts (a bitset,
    bit ``i`` for ``layouts[i]``, each an iterable of mined cells ``(x, y)``) that mine
    it, and per number it shows in some layout, ascending, the layouts in which it
    shows it.  One pass over each layout's mines and each cell's neighbours."""
    cdef Py_ssize_t n = <Py_ssize_t>width * height, nl = len(layouts), nc = len(cells)
    cdef Py_ssize_t i, k, at, words = max(1, (nl + 63) // 64), row
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
            place[k] = _flat(x, y, width, height)
            nearn[k] = _around(place[k], width, height, near + 8 * k)
        for i in range(nl):
            for x, y in layouts[i]:
                stamp[_flat(x, y, width, height)] = <int>(i + 1)
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
                          if _any(bits + (row + v) * words, bits + (row + v) * words, words)])
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

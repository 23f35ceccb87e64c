# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact counting, compiled: the search over cell classes behind every exact count.

:mod:`kaboom.solver.counting` turns a component's constraints into *classes* (cells that lie
in exactly the same constraints, which only their number of mines tells apart:
:func:`classes`) and calls :func:`tally` or :func:`assignments`: a depth-first search that
gives each class a mine count, checks each constraint as soon as its last class is
placed, and either adds up the solutions by total mine count (with, per class, how many
of them its mines account for) or lists the class assignments.  Weights are 128-bit: a
component's solutions fit while it has at most 120 cells; a larger one is reported as
too big, like one past the node limit.  :func:`weigh` combines the components' counts
into exact layout weights.
"""

cimport cython
from libc.stdlib cimport free, malloc, realloc

from kaboom.solver._kernels.board cimport array_byte

cdef extern from *:
    ctypedef unsigned long long u128 "unsigned __int128"

ctypedef unsigned long long u64

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

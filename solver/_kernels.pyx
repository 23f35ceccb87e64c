# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The solver's hot loop, compiled: the search over cell classes behind every exact count.

:mod:`solver.counting` turns a component's constraints into *classes* (cells that lie
in exactly the same constraints, which only their number of mines tells apart) and
calls :func:`search`: a depth-first search that gives each class a mine count, checks
each constraint as soon as its last class is placed, and either adds up the solutions
by total mine count (with, per class, how many of them its mines account for) or lists
the class assignments.  Weights are 128-bit: a component's solutions fit while it has
at most 120 cells; a larger one is reported as too big, like one past the node limit.
"""

from libc.stdlib cimport free, malloc

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
    u128* totals        # by mine count
    u128* counts        # counts[m * n + i]: sum over m-mine solutions of weight * ks[i]
    long nodes
    long node_limit
    bint listing
    int* out            # listed assignments, n ints each
    long out_len
    long out_cap
    bint overflow


cdef void _place(Search* s, int i, int mines, u128 weight) noexcept nogil:
    cdef int j, k, low, high, c, t
    cdef u128* row
    if s.overflow:
        return
    if i == s.n:
        if s.listing:
            if s.out_len == s.out_cap:
                s.overflow = True
                return
            for j in range(s.n):
                s.out[s.out_len * s.n + j] = s.ks[j]
            s.out_len += 1
            return
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


cdef object _int(u128 v):
    return (<object>(<u64>(v >> 64)) << 64) | <object>(<u64>v)


def search(list cons_of, list sizes, list need, list room, long node_limit, long listing=0):
    """Searches the class assignments.

    ``cons_of[i]`` lists the constraints of class ``i`` (classes in search order),
    ``sizes[i]`` its cells, ``need[j]``/``room[j]`` constraint ``j``'s mines and cells.
    Counting (``listing == 0``) returns ``(totals, counts)``: ``totals[m]`` the number of
    ``m``-mine solutions, ``counts[m][i]`` the sum over them of class ``i``'s mines;
    listing returns up to ``listing`` assignments (tuples of mines per class).  Returns
    ``None`` past ``node_limit`` search nodes, more than ``listing`` assignments or
    more than 120 cells.
    """
    cdef Search s
    cdef int i, j, k, t, total_cells = sum(sizes), n = len(sizes), ncons = len(need)
    cdef int stride = (max(sizes) if sizes else 0) + 1
    cdef u128 b
    if total_cells > MAX_CELLS:
        return None
    s.n = n
    s.stride = stride
    s.nodes = 0
    s.node_limit = node_limit
    s.listing = listing > 0
    s.out_len = 0
    s.out_cap = listing
    s.overflow = False
    s.start = <int*>malloc((n + 1) * sizeof(int))
    s.con = <int*>malloc((sum(len(c) for c in cons_of) + 1) * sizeof(int))
    s.size = <int*>malloc((n + 1) * sizeof(int))
    s.binom = <u128*>malloc((n * stride + 1) * sizeof(u128))
    s.need = <int*>malloc((ncons + 1) * sizeof(int))
    s.room = <int*>malloc((ncons + 1) * sizeof(int))
    s.ks = <int*>malloc((n + 1) * sizeof(int))
    s.totals = <u128*>malloc((total_cells + 1) * sizeof(u128))
    s.counts = <u128*>malloc(((total_cells + 1) * n + 1) * sizeof(u128))
    s.out = <int*>malloc((listing * n + 1) * sizeof(int))
    try:
        t = 0
        for i in range(n):
            s.start[i] = t
            for j in cons_of[i]:
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
        for k in range(total_cells + 1):
            s.totals[k] = 0
        for k in range((total_cells + 1) * n):
            s.counts[k] = 0
        with nogil:
            _place(&s, 0, 0, 1)
        if s.overflow:
            return None
        if s.listing:
            return [tuple(s.out[a * n + i] for i in range(n)) for a in range(s.out_len)]
        totals = {}
        counts = {}
        for k in range(total_cells + 1):
            if s.totals[k]:
                totals[k] = _int(s.totals[k])
                counts[k] = [_int(s.counts[k * n + i]) for i in range(n)]
        return totals, counts
    finally:
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

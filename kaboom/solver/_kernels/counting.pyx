# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact counting, compiled: the search over cell classes behind every exact count.

:mod:`kaboom.solver.counting` turns a component's constraints into *classes* (cells that lie
in exactly the same constraints, which only their number of mines tells apart:
:func:`classes`) and calls :func:`tally` or :func:`assignments`: a depth-first search that
gives each class a mine count, checks each constraint as soon as its last class is
placed, and either adds up the solutions by total mine count (with, per class, how many
of them its mines account for) or lists the class assignments.  Weights are 128-bit: up
to 120 cells they cannot overflow; past that every sum and product is checked, and a
component whose weights do not fit is reported as too big, like one past the node
limit.  :func:`weigh` combines the components' counts into exact layout weights.
"""

cimport cython
from libc.stdlib cimport free, malloc, realloc

from kaboom.solver._kernels.board cimport array_byte

cdef extern from *:
    ctypedef unsigned long long u128 "unsigned __int128"
    # GCC's checked arithmetic, generic over the operands' type
    bint add_overflows "__builtin_add_overflow"(u128 a, u128 b, u128* out) nogil
    bint mul_overflows "__builtin_mul_overflow"(u128 a, u128 b, u128* out) nogil

ctypedef unsigned long long u64

MAX_CELLS = 120
"""Cells up to which no weight can overflow 128 bits (a component's solutions number at
most 2**cells, each count of them times at most 8): the search runs unchecked."""

MAX_SEARCH_BYTES = 64 << 20
"""The most the tables of one search may take (a 16-byte weight per total mine count
and class, per split value): a larger component is reported as too big at once."""


cdef struct Search:
    int n               # classes, in search order
    int* start          # constraints of class i: con[start[i]:start[i + 1]]
    int* con
    int* size
    u128* binom         # binom[i * stride + k] = C(size[i], k)
    int* fits           # per class: the largest k whose C(size, k) fits 128 bits
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
    bint checked        # weights may overflow: every sum and product is checked
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


cdef void _add_checked(Search* s, u128* to, u128 weight, u128 times) noexcept nogil:
    """``*to += weight * times``, or ``overflow`` set when it does not fit."""
    cdef u128 product
    if mul_overflows(weight, times, &product) or add_overflows(to[0], product, to):
        s.overflow = True


cdef void _leaf(Search* s, int mines, u128 weight) noexcept nogil:
    """Records the assignment in ``s.ks``: listed, or added to the tallies."""
    cdef int j, k = 0
    cdef u128* row
    if s.listing:
        if s.out_len == s.out_cap and not _grow(s):
            s.overflow = True
            return
        for j in range(s.n):
            s.out[s.out_len * s.n + j] = s.ks[j]
        s.out_len += 1
        return
    if s.layer:
        for j in range(s.n):
            if s.split[j]:
                k += s.ks[j]
        mines += k * s.layer
    row = s.counts + mines * s.n
    if s.checked:
        _add_checked(s, s.totals + mines, weight, 1)
        for j in range(s.n):
            if s.ks[j]:
                _add_checked(s, row + j, weight, s.ks[j])
        return
    s.totals[mines] += weight
    for j in range(s.n):
        if s.ks[j]:
            row[j] += weight * s.ks[j]


cdef void _place(Search* s, int i, int mines, u128 weight) noexcept nogil:
    cdef int k, low, high, c, t
    cdef u128 next_weight
    if s.overflow:
        return
    if i == s.n:
        _leaf(s, mines, weight)
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
        if not s.checked:
            _place(s, i + 1, mines + k, weight * s.binom[i * s.stride + k])
        elif k > s.fits[i] or mul_overflows(weight, s.binom[i * s.stride + k], &next_weight):
            s.overflow = True
        else:
            _place(s, i + 1, mines + k, next_weight)
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
    search nodes, when a weight does not fit 128 bits or the tables
    :data:`MAX_SEARCH_BYTES`.

    With ``split``, constraint ``split`` is not checked (its ``need`` is not read) and
    the solutions are counted apart by its mines: a list of ``(totals, counts)`` for 0
    to ``room[split]`` mines, the same as a search with each as its ``need`` (whose
    nodes are among this search's, so those too stay within ``node_limit``).
    """
    return _search(cons_of, sizes, need, room, node_limit, 0, split, -1)


def assignments(list cons_of, list sizes, list need, list room, long node_limit, long limit,
                long max_cells=-1):
    """Lists the solutions as mines per class (arguments as :func:`tally`); ``None`` past
    ``limit`` assignments, ``node_limit`` search nodes or ``max_cells`` cells (when not
    negative)."""
    return _search(cons_of, sizes, need, room, node_limit, limit, -1, max_cells)


cdef _search(list cons_of, list sizes, list need, list room, long node_limit, long listing,
             int split, long max_cells):
    cdef Search s
    cdef int i, j, k, t, total_cells = sum(sizes), n = len(sizes), ncons = len(need)
    cdef int stride = (max(sizes) if sizes else 0) + 1
    cdef int layers = 1
    cdef bint tallying = listing == 0
    _check_search(cons_of, sizes, need, room, split)
    if split >= 0:
        layers = room[split] + 1
    if 0 <= max_cells < total_cells:
        return None
    if tallying and 16 * layers * (total_cells + 1) * (n + 1) > MAX_SEARCH_BYTES:
        return None
    s.n = n
    s.checked = tallying and total_cells > MAX_CELLS
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
    s.fits = <int*>malloc((n + 1) * sizeof(int))
    s.need = <int*>malloc((ncons + 1) * sizeof(int))
    s.room = <int*>malloc((ncons + 1) * sizeof(int))
    s.ks = <int*>malloc((n + 1) * sizeof(int))
    s.layer = total_cells + 1 if split >= 0 else 0
    # listing adds up nothing: the tallies are left unused
    s.totals = <u128*>malloc(((layers * (total_cells + 1)) if tallying else 1) * sizeof(u128))
    s.counts = <u128*>malloc(((layers * (total_cells + 1) * n) if tallying else 0) * sizeof(u128)
                             + sizeof(u128))
    s.split = <int*>malloc((n + 1) * sizeof(int))
    s.out = <int*>malloc((s.out_cap * n + 1) * sizeof(int))
    try:
        if (not s.start or not s.con or not s.size or not s.binom or not s.fits or not s.need
                or not s.room or not s.ks or not s.totals or not s.counts or not s.split
                or not s.out):
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
            _binomials(s.binom + i * stride, stride, sizes[i], s.fits + i)
        s.start[n] = t
        for j in range(ncons):
            s.need[j] = need[j]
            s.room[j] = room[j]
        if tallying:
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
        free(s.fits)
        free(s.need)
        free(s.room)
        free(s.ks)
        free(s.totals)
        free(s.counts)
        free(s.out)


cdef void _binomials(u128* row, int stride, int size, int* fits) noexcept:
    """``row[k] = C(size, k)`` for ``k < stride`` (0 past ``size``), and in ``fits`` the
    largest ``k`` whose value fits 128 bits (a class of hundreds of cells, the mine
    count's constraint over every cell left, has some that do not: the rest are 0)."""
    cdef int k
    cdef u128 b = 1, product
    fits[0] = min(size, stride - 1)
    for k in range(stride):
        row[k] = b if k <= fits[0] else 0
        if k < fits[0]:
            if mul_overflows(b, size - k, &product):
                fits[0] = k
            else:
                b = product // (k + 1)


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


def reachable(list cons_of, list sizes, list need, list room, long node_limit):
    """The numbers of mines the solutions over classes can hold, as a bitmask (bit ``m``
    set: some solution has ``m`` mines); ``None`` past ``node_limit`` search nodes.
    Arguments as :func:`tally`.

    The same search, remembering from each class on what it found for the mines still
    needed by the constraints that earlier classes began: the rest of the search
    depends on nothing else.  Where solutions are too many to visit one by one (a
    frontier of 2,000 cells, a long wall of 1s), their totals are a few hundred such
    states, and that is all that proofs and the bounds of a component need."""
    _check_search(cons_of, sizes, need, room, -1)
    return _Reach(cons_of, sizes, need, room, node_limit).run()


cdef class _Reach:
    """:func:`reachable`'s search."""

    cdef list cons_of, sizes, need, room, open_at
    cdef dict memo
    cdef long nodes, node_limit
    cdef Py_ssize_t n

    def __init__(self, list cons_of, list sizes, list need, list room, long node_limit):
        cdef Py_ssize_t i, j, ncons = len(need)
        self.cons_of, self.sizes = cons_of, sizes
        self.need, self.room = list(need), list(room)
        self.n = len(sizes)
        self.node_limit = node_limit
        self.nodes = 0
        self.memo = {}
        # open_at[i]: the constraints of classes before i that classes from i on share
        first = [self.n] * ncons
        last = [-1] * ncons
        for i in range(self.n):
            for j in cons_of[i]:
                first[j] = min(first[j], i)
                last[j] = max(last[j], i)
        self.open_at = [[j for j in range(ncons) if first[j] < i <= last[j]]
                        for i in range(self.n)]

    def run(self):
        try:
            return self._from(0)
        except _TooMany:
            return None

    cdef object _from(self, Py_ssize_t i):
        cdef long k, low, high, size
        cdef Py_ssize_t c
        if i == self.n:
            return 1
        need, room = self.need, self.room
        key = (i, *[need[c] for c in <list>self.open_at[i]])
        found = self.memo.get(key)
        if found is not None:
            return found
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise _TooMany
        size = self.sizes[i]
        cons = <list>self.cons_of[i]
        for c in cons:
            room[c] -= size
        low, high = 0, size
        for c in cons:
            low = max(low, need[c] - room[c])
            high = min(high, need[c])
        found = 0
        for k in range(low, high + 1):
            for c in cons:
                need[c] -= k
            found |= self._from(i + 1) << k
            for c in cons:
                need[c] += k
        for c in cons:
            room[c] += size
        self.memo[key] = found
        return found


class _TooMany(Exception):
    """:func:`reachable`'s search went past its node limit."""


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


cdef class Weights:
    """What :func:`weigh` found: the layouts (``weight``), those that mine one given
    outside cell (``outside_mine``), per component those that mine each of its cells
    (``mine``, ``None`` when not asked), all divided by ``2 ** shift``; and the tables
    they came from, which a draw of layouts reads: ``prefix[i][j]``, the ways for the
    components before ``i`` to hold ``lows[i] + j`` mines, and ``binoms[j]``, the ways for
    the outside cells to hold the rest when the components hold ``lows[-1] + j`` (also
    divided by ``2 ** shift``)."""

    cdef readonly object weight
    cdef readonly object outside_mine
    cdef readonly list mine
    cdef readonly long shift
    cdef readonly list prefix
    cdef readonly list lows
    cdef readonly list binoms


@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
def weigh(list dists, list cell_counts, long outside, long mines_left, object ways,
          long bits=0):
    """Layout weights of independent components with ``outside`` unconstrained cells and
    ``mines_left`` mines among them all (Python integers throughout).

    ``dists[i]`` maps a mine count of component ``i`` to its solutions, and
    ``cell_counts[i][k]`` (when given) lists how many of its ``k``-mine solutions mine
    each of its cells; ``ways(n, k)`` is ``C(n, k)``.  Returns the :class:`Weights`, or
    ``None`` when no layout fits.

    Exact with ``bits`` 0.  Otherwise every outside binomial is cut to its leading bits,
    the smallest keeping ``bits`` of them (the others more): every weight is a sum of
    products, each with one binomial and otherwise exact, so each is within a factor
    ``1 - 2 ** (1 - bits)`` of the exact one, and zero only when that is (the outside
    cell's, whose binomials are smaller by up to ``outside`` times, within ``1 - outside
    * 2 ** (1 - bits)``).  On a 256x256 board the binomials run to 40,000 bits; cut, the
    combination takes a fraction of the time.
    """
    cdef Py_ssize_t n = len(dists), i, t, k, k2, idx, top, lo_i, r
    cdef Weights out = Weights.__new__(Weights)
    dense = []
    lows = [0]
    for i in range(n):
        if not dists[i]:
            return None
        lo_i = min(dists[i])
        dense.append(_dense(dists[i], lo_i))
        lows.append(lows[i] + lo_i)
    # prefix[i]: the mine-count distribution of the components before i, from lows[i]
    prefix = [[1]]
    for i in range(n):
        if lows[i + 1] > mines_left:
            return None
        prefix.append(_convolve(prefix[i], dense[i], mines_left - lows[i + 1]))
    everything = prefix[n]
    base = lows[n]
    top = len(everything)
    binoms = _binomials_outside(top, base, outside, mines_left, ways)
    # C(outside - 1, r - 1) = C(outside, r) * r / outside: one given outside cell mined
    mined = [binoms[idx] * (mines_left - base - idx) // outside
             if binoms[idx] and mines_left - base - idx >= 1 else 0
             for idx in range(top)] if cell_counts is not None else None
    out.shift = 0
    if bits > 0:
        smallest = min([b for b in binoms if b], default=0)
        if smallest.bit_length() > bits:
            out.shift = smallest.bit_length() - bits
            binoms = [b >> out.shift for b in binoms]
            if mined is not None:
                mined = [b >> out.shift for b in mined]
    weight = 0
    outside_mine = 0
    for idx in range(top):
        w = everything[idx]
        if not w or not binoms[idx]:
            continue
        weight += w * binoms[idx]
        if mined is not None:
            outside_mine += w * mined[idx]
    if not weight:
        return None
    out.weight, out.outside_mine, out.mine = weight, outside_mine, None
    out.prefix, out.lows, out.binoms = prefix, lows, binoms
    if cell_counts is not None:
        out.mine = _mine_weights(dense, prefix, lows, binoms, cell_counts)
    return out


cdef list _binomials_outside(Py_ssize_t top, Py_ssize_t base, long outside, long mines_left,
                             object ways):
    """``C(outside, mines_left - base - j)`` for ``j < top``: the ways to put the rest
    outside when ``base + j`` mines lie in the components.  One binomial, then a step
    each, ``C(n, r - 1) = C(n, r) * r / (n - r + 1)`` (a fresh C(64000, 32000) costs 90
    ms; a step, microseconds)."""
    cdef Py_ssize_t lo, hi, j, r
    binoms = [0] * top
    lo, hi = max(0, mines_left - outside - base), min(top - 1, mines_left - base)
    if lo <= hi:
        b = ways(outside, mines_left - base - lo)
        binoms[lo] = b
        for j in range(lo + 1, hi + 1):
            r = mines_left - base - j + 1
            b = b * r // (outside - r + 1)
            binoms[j] = b
    return binoms


@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
cdef list _mine_weights(list dense, list prefix, list lows, list binoms, list cell_counts):
    """Per component, the layouts that mine each of its cells.

    ``later[j]``: the layouts of the components after ``i`` and the outside when
    ``lows[i + 1] + j`` mines lie in the components up to ``i``; from the last component
    back, one step each, ``later_i[j] = sum over c of dense[i][c] * later_(i+1)[j + c]``,
    starting from the binomials.  (Convolving the components before and after each one
    cost n * top^2 big-integer products: minutes for a 256x256 board with hundreds of
    small components.)"""
    cdef Py_ssize_t n = len(dense), i, k2, idx, shift
    later = binoms
    mine = [None] * n
    for i in range(n - 1, -1, -1):
        pre = <list>prefix[i]
        acc = None
        for k, row in (<dict>cell_counts[i]).items():
            if acc is None:
                acc = [0] * len(row)
            shift = k - (lows[i + 1] - lows[i])  # k mines here: later's index is j + shift
            f = 0  # layouts of the rest of the board when this component has k mines
            for k2 in range(min(len(pre), len(later) - shift)):
                w = pre[k2]
                if w:
                    b = later[k2 + shift]
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
    return mine


@cython.boundscheck(True)  # Python lists of callers' making: IndexError, not a crash
cdef list _dense(dict dist, Py_ssize_t low):
    """A mine-count distribution as a list by mine count, from ``low``."""
    out = [0] * (max(dist) + 1 - low)
    for k, w in dist.items():
        out[k - low] = w
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
    """The distribution of the sum of two independent mine counts (each list from its
    lowest), up to ``cap`` more than their lowest."""
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

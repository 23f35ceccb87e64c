# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The group method's fixpoint, compiled: groups as bitsets over their component's cells,
for :mod:`kaboom.solver.groups`."""

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from kaboom.solver._kernels.bits cimport __builtin_ctzll, __builtin_popcountll, any_both, count_both
from kaboom.solver.errors import InvalidPositionError


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
    cdef int size = count_both(m, m, t.words), g
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
    cdef int words, i, rounds
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
            if stop_at_safe and any_both(safe, safe, words):
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
            if any_both(new_safe, new_mines, words):
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

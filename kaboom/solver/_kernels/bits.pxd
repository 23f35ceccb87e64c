# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Bitsets of 64-bit words, shared by the group method and the endgame (inline: compiled
into each module that cimports them)."""

from libc.stdint cimport uint64_t


cdef extern from *:
    int __builtin_popcountll(unsigned long long) noexcept nogil
    int __builtin_ctzll(unsigned long long) noexcept nogil


cdef inline int count_both(uint64_t* a, uint64_t* b, int words) noexcept:
    """The bits set in both ``a`` and ``b`` (``count_both(a, a, words)``: in ``a``)."""
    cdef int w, n = 0
    for w in range(words):
        n += __builtin_popcountll(a[w] & b[w])
    return n


cdef inline bint any_both(uint64_t* a, uint64_t* b, int words) noexcept:
    """Whether a bit is set in both ``a`` and ``b``."""
    cdef int w
    for w in range(words):
        if a[w] & b[w]:
            return True
    return False

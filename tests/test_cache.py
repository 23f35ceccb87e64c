"""Bounded caches: a cap per cache and one shared by all, or a number of entries; least
recently used first."""

from __future__ import annotations

import gc

from kaboom.solver.cache import CachePool, RecentCache, SizedCache


def _cache(pool: CachePool, cap: int) -> SizedCache[str, bytes]:
    return SizedCache(len, cap, pool)


def test_per_cache_cap_evicts_least_recently_used() -> None:
    cache = _cache(CachePool(1000), 30)
    cache["a"], cache["b"], cache["c"] = b"x" * 10, b"x" * 10, b"x" * 10
    assert cache["a"]  # a is now the most recent
    cache["d"] = b"x" * 10
    assert set(cache) == {"a", "c", "d"} and cache.used == 30
    cache["huge"] = b"x" * 31  # larger than the cap: not kept, nothing evicted for it
    assert "huge" not in cache and set(cache) == {"a", "c", "d"}
    assert cache.get("c") == b"x" * 10 and cache.get("b") is None  # c is now the most recent
    cache["e"] = b"x" * 10
    assert set(cache) == {"c", "d", "e"}


def test_recent_cache_keeps_the_most_recently_used_entries() -> None:
    cache: RecentCache[str, int] = RecentCache(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1 and cache.get("z") is None  # a is now the most recent
    cache["c"] = 3
    assert dict(cache) == {"a": 1, "c": 3}


def test_pool_evicts_across_caches_cold_first() -> None:
    pool = CachePool(40)
    cold, warm = _cache(pool, 100), _cache(pool, 100)
    cold["1"], cold["2"] = b"x" * 10, b"x" * 10
    warm["1"], warm["2"] = b"x" * 10, b"x" * 10
    warm["3"] = b"x" * 10  # over the pool's 40: the coldest entry of any cache goes
    assert set(cold) == {"2"} and set(warm) == {"1", "2", "3"}
    assert pool.used == 40 == cold.used + warm.used


def test_a_dropped_cache_gives_its_share_back() -> None:
    pool = CachePool(100)
    cache = _cache(pool, 100)
    cache["a"] = b"x" * 60
    del cache
    gc.collect()
    assert pool.used == 0
    other = _cache(pool, 100)
    other["b"] = b"x" * 90
    assert pool.used == 90 and set(other) == {"b"}

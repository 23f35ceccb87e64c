"""Caches of computed results, the least recently used entries dropped first: bounded by
the estimated memory of what they hold, one budget for many of them; or by entries.

A game's engines keep per-component results between moves (a click changes a few
components; the rest are reused).  Counting entries is no bound when one entry may be
a few bytes or tens of megabytes, and a bound per game is no bound on a server holding
many games, so every :class:`SizedCache` has its own cap *and* draws on a shared
:class:`CachePool`: past the pool's total, the least recently used entry of any cache
goes, so cold games lose their caches first.  A :class:`RecentCache` keeps a number of
entries, for a process's own small ones looked up so often that a lookup must cost no
more than a dict's.  Nothing correct depends on a cache.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

__all__ = ["CachePool", "RecentCache", "SizedCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class CachePool:
    """A memory budget (bytes, estimated) shared by caches; evicts least recently used."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        """The budget, in estimated bytes, over every cache drawing on the pool."""
        self.used = 0
        """Estimated bytes its caches hold now."""
        self.lock = threading.RLock()
        """Held by a cache while it reads or changes its entries: the threads of a
        server share the pool."""
        self._order: OrderedDict[tuple[int, Hashable], int] = OrderedDict()
        self._caches: dict[int, weakref.ref[SizedCache[Any, Any]]] = {}

    def _touch(self, cache_id: int, key: Hashable) -> None:
        self._order.move_to_end((cache_id, key))

    def _add(self, cache: SizedCache[Any, Any], key: Hashable, size: int) -> None:
        self._caches.setdefault(id(cache), weakref.ref(cache))
        self._order[(id(cache), key)] = size
        self.used += size
        while self.used > self.max_bytes and self._order:
            (cache_id, old), _ = next(iter(self._order.items()))
            ref = self._caches.get(cache_id)
            owner = ref() if ref is not None else None
            if owner is None:
                self._forget(cache_id, old)
            else:
                owner._evict(old)

    def _forget(self, cache_id: int, key: Hashable) -> None:
        self.used -= self._order.pop((cache_id, key), 0)

    def _drop(self, cache_id: int) -> None:
        with self.lock:
            for cid, key in [k for k in self._order if k[0] == cache_id]:
                self._forget(cid, key)
            self._caches.pop(cache_id, None)


class SizedCache(MutableMapping[K, V], Generic[K, V]):
    """An LRU mapping holding at most ``max_bytes`` (as ``size_of`` estimates them) and
    drawing on ``pool`` (a private one when none is given).  An entry larger than the
    cap is not kept at all."""

    def __init__(
        self, size_of: Callable[[V], int], max_bytes: int, pool: CachePool | None = None
    ) -> None:
        self.size_of = size_of
        self.max_bytes = max_bytes
        self.pool = pool or CachePool(max_bytes)
        self.used = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        weakref.finalize(self, self.pool._drop, id(self))

    def __getitem__(self, key: K) -> V:
        with self.pool.lock:
            value, _ = self._data[key]
            self._data.move_to_end(key)
            self.pool._touch(id(self), key)
            return value

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value of ``key``, now the most recently used, or ``default`` (without the
        exception a miss costs ``Mapping.get``)."""
        with self.pool.lock:
            found = self._data.get(key)
            if found is None:
                return default
            self._data.move_to_end(key)
            self.pool._touch(id(self), key)
            return found[0]

    def __setitem__(self, key: K, value: V) -> None:
        size = self.size_of(value)
        with self.pool.lock:
            if key in self._data:
                self._evict(key)
            if size > self.max_bytes or size > self.pool.max_bytes:
                return
            while self._data and self.used + size > self.max_bytes:
                self._evict(next(iter(self._data)))
            self._data[key] = (value, size)
            self.used += size
            self.pool._add(self, key, size)

    def __delitem__(self, key: K) -> None:
        with self.pool.lock:
            if key not in self._data:
                raise KeyError(key)
            self._evict(key)

    def _evict(self, key: K) -> None:
        _, size = self._data.pop(key)
        self.used -= size
        self.pool._forget(id(self), key)

    def __iter__(self) -> Iterator[K]:
        with self.pool.lock:
            return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self.pool.lock:
            for key in list(self._data):
                self._evict(key)


class RecentCache(OrderedDict[K, V]):
    """An LRU mapping of at most ``entries`` entries, whatever their size."""

    def __init__(self, entries: int) -> None:
        super().__init__()
        self.entries = entries

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value of ``key``, now the most recently used, or ``default``."""
        found = super().get(key)
        if found is None:
            return default
        self.move_to_end(key)
        return found

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        if len(self) > self.entries:
            self.popitem(last=False)

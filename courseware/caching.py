"""The site's one caching facility: every per-process cache of the student's path is made here.

A cache is a `LocalCache`: a least-recently-used map from cachetools, bounded in **bytes** (each
entry's size is measured when it is stored) and guarded by a lock, since gunicorn's threads
share a process. Each is registered under its name with its bound and the reason it is kept,
so `bounds()` adds up what a worker can hold, `clear_all()` empties them all (tests, a deploy
check) and docs/BENCHMARKS.md states the total beside what each one was measured to buy.

`Layered` puts Django's shared cache (Redis when `REDIS_URL` is set, else the process's
LocMemCache) under a `LocalCache`: a value drawn once is found by the other servers, and the
copy kept here saves unpickling it on every request. The shared cache is an optimisation: an
error or a damaged value there is a miss, never an error page.

Invalidation is by key, never by a call a writer must remember: every key names what its value
was drawn from (a row's `page_stamp`, a template version's content hash, a digest of the
section's facts), so a write makes the next request look under a new key and the old entry is
only ever evicted. What a cache may be keyed on is said where each one is made.

Where a key cannot name the rows it was drawn from (a page drawn from an attempt's responses,
saved answers, variants and overrides; statistics kept over a quiz's grades), it names a
`Stamp` (`courseware/stamps.py`, re-exported here): a version number on an owner row that
every write to a watched row raises in the writer's own transaction, through the ORM's
signals and the watched models' `StampedQuerySet`, so no writer has to remember it.

Pure memoisation of immutable input (parsed units, expressions, LaTeX of a text) is left to
`functools.lru_cache` in the engine and `content`, which import no Django; bounded by count there.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from django.core.cache import cache

_MISSING = object()


@dataclass(frozen=True)
class Bound:
    name: str
    max_bytes: int
    why: str


def deep_size(value: Any, _depth: int = 0) -> int:
    """An estimate of the bytes `value` holds: `sys.getsizeof` over strings, tuples, lists,
    dicts and dataclass-like objects' `__dict__`, a few levels deep (what a cached page,
    section or question view is made of). Shared objects are counted once per reference, which
    over-counts: a bound over this estimate is a safe one."""
    size = sys.getsizeof(value)
    if _depth > 6 or isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return size
    if isinstance(value, dict):
        return size + sum(
            deep_size(k, _depth + 1) + deep_size(v, _depth + 1) for k, v in value.items()
        )
    if isinstance(value, (tuple, list, set, frozenset)):
        return size + sum(deep_size(item, _depth + 1) for item in value)
    attributes = getattr(value, "__dict__", None)
    if attributes is not None:
        return size + deep_size(attributes, _depth + 1)
    return size


class LocalCache:
    """A per-process LRU map bounded in bytes; thread-safe."""

    def __init__(self, name: str, *, max_bytes: int, why: str, sizeof=deep_size):
        self.bound = Bound(name, max_bytes, why)
        self._sizeof = sizeof
        self._entries: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=self._entry_size)
        self._lock = threading.Lock()

    def _entry_size(self, entry: tuple[Any, int]) -> int:
        return entry[1]

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            entry = self._entries.get(key, _MISSING)
        return default if entry is _MISSING else entry[0]

    def set(self, key: Hashable, value: Any, *, value_size: int | None = None) -> None:
        """Keep `value` (evicting the least recently used); a value larger than the whole bound
        is not kept. `value_size`: its size as this cache measures it, when already measured."""
        size = (self._sizeof(value) if value_size is None else value_size) + deep_size(key)
        if size > self.bound.max_bytes:
            return
        with self._lock:
            self._entries[key] = (value, size)

    __setitem__ = set

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def add(self, key: Hashable, value: Any) -> bool:
        """Keep `value` unless `key` is held already; whether it was kept."""
        size = self._sizeof(value) + deep_size(key)
        if size > self.bound.max_bytes:
            return False
        with self._lock:
            if key in self._entries:
                return False
            self._entries[key] = (value, size)
            return True

    def get_or_build(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value under `key`, or `build()` kept under it (built outside the lock: two
        threads may both build a missing value, and the second one's is kept)."""
        value = self.get(key, _MISSING)
        if value is _MISSING:
            value = build()
            self.set(key, value)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        """The keys held now (a copy: the cache may change meanwhile)."""
        with self._lock:
            return iter(list(self._entries))

    @property
    def current_bytes(self) -> int:
        return int(self._entries.currsize)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class Layered:
    """A `LocalCache` over Django's shared cache, with the shared entries under `version`
    (bump it when what is stored changes shape) for `seconds`."""

    def __init__(
        self,
        name: str,
        *,
        max_bytes: int,
        version: int,
        seconds: int,
        why: str,
        valid: Callable[[Any], bool] = lambda value: value is not None,
    ):
        self.local = local_cache(name, max_bytes=max_bytes, why=why)
        self.version, self.seconds, self.valid = version, seconds, valid

    def get(self, key: str) -> Any:
        value = self.local.get(key)
        if value is not None:
            return value
        try:
            value = cache.get(key, version=self.version)
        except Exception:  # noqa: BLE001 - an unreadable shared value is a miss, never a 500
            return None
        if value is None or not self.valid(value):
            return None
        self.local.set(key, value)
        return value

    def set(self, key: str, value: Any, *, local_keys=()) -> None:
        """Keep `value` here and in the shared cache under `key`, and here also under each of
        `local_keys` (a name only this process uses; its size is measured once)."""
        size = self.local._sizeof(value)
        for name in (key, *local_keys):
            self.local.set(name, value, value_size=size)
        try:
            cache.set(key, value, self.seconds, version=self.version)
        except Exception:  # noqa: BLE001,S110 - the shared cache is an optimisation
            pass


_REGISTRY: dict[str, LocalCache] = {}
_REGISTRY_LOCK = threading.Lock()


def local_cache(name: str, *, max_bytes: int, why: str, sizeof=deep_size) -> LocalCache:
    """The per-process cache called `name` (made on first use; one per name)."""
    with _REGISTRY_LOCK:
        held = _REGISTRY.get(name)
        if held is None:
            held = _REGISTRY[name] = LocalCache(name, max_bytes=max_bytes, why=why, sizeof=sizeof)
        return held


def memoize(name: str, *, max_bytes: int, why: str, sizeof=deep_size):
    """Decorate a function of hashable arguments whose result depends on them alone: its
    results are kept in the `LocalCache` `name` (an exception is not kept).
    `fn.__wrapped__` is the function itself."""

    def decorator(function):
        store = local_cache(name, max_bytes=max_bytes, why=why, sizeof=sizeof)

        def wrapper(*args):
            return store.get_or_build(args, lambda: function(*args))

        wrapper.__wrapped__ = function
        wrapper.__name__ = function.__name__
        wrapper.__doc__ = function.__doc__
        wrapper.cache = store
        wrapper.cache_clear = store.clear
        return wrapper

    return decorator


def caches() -> list[LocalCache]:
    with _REGISTRY_LOCK:
        return list(_REGISTRY.values())


def bounds() -> list[Bound]:
    """Every registered cache's bound; their sum is what the caches may hold per process."""
    return [held.bound for held in caches()]


def clear_all() -> None:
    """Empty every per-process cache (tests whose rolled-back rows reuse ids; never needed for
    correctness in a server, where keys name what values were drawn from)."""
    for held in caches():
        held.clear()


# The version stamps (`courseware.stamps`) are part of this facility.
from courseware.stamps import (  # noqa: E402
    Stamp,
    StampedQuerySet,
    batch,
    ids_of,
    stamp,
    stamps,
    watched_models,
)

__all__ = [
    "Bound",
    "Layered",
    "LocalCache",
    "Stamp",
    "StampedQuerySet",
    "batch",
    "bounds",
    "caches",
    "clear_all",
    "deep_size",
    "ids_of",
    "local_cache",
    "memoize",
    "stamp",
    "stamps",
    "watched_models",
]

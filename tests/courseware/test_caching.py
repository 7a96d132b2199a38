"""The one caching facility (`courseware.caching`): every cache is bounded in bytes, least
recently used first out, registered with its bound, and a damaged or absent shared cache is a
miss."""

from __future__ import annotations

import threading

from courseware import caching


def _cache(max_bytes: int) -> caching.LocalCache:
    # Not registered: a test's cache must not join the site's list of bounds.
    return caching.LocalCache("test", max_bytes=max_bytes, why="test", sizeof=len)


def test_a_cache_never_holds_more_bytes_than_its_bound():
    store = _cache(10_000)
    for number in range(200):
        store.set(f"k{number}", "x" * 500)
        assert store.current_bytes <= 10_000
    assert 10 <= len(store) < 20
    assert store.get("k199") == "x" * 500
    assert store.get("k0") is None  # the oldest went first


def test_the_least_recently_used_entry_leaves_first():
    store = _cache(3 * (300 + caching.deep_size("k0")))
    for key in ("k0", "k1", "k2"):
        store.set(key, "y" * 300)
    assert store.get("k0") is not None  # now the most recently used
    store.set("k3", "y" * 300)
    assert "k0" in store and "k3" in store
    assert "k1" not in store


def test_a_value_larger_than_the_whole_bound_is_not_kept_and_evicts_nothing():
    store = _cache(1_000)
    store.set("small", "z" * 100)
    store.set("huge", "z" * 5_000)
    assert "huge" not in store
    assert store.get("small") == "z" * 100
    assert store.add("huge", "z" * 5_000) is False


def test_add_keeps_the_first_value():
    store = _cache(10_000)
    assert store.add("k", "first") is True
    assert store.add("k", "second") is False
    assert store.get("k") == "first"


def test_get_or_build_builds_once_and_keeps_a_falsy_value():
    store = _cache(10_000)
    calls = []
    for _ in range(3):
        assert store.get_or_build("k", lambda: calls.append(1) or "") == ""
    assert calls == [1]


def test_memoize_computes_once_per_argument_and_registers_its_bound():
    calls = []

    @caching.memoize("test memo", max_bytes=4096, why="test")
    def double(text):
        calls.append(text)
        return text * 2

    try:
        assert double("ab") == "abab"
        assert double("ab") == "abab"
        assert calls == ["ab"]
        assert double.__wrapped__("c") == "cc"
        double.cache_clear()
        double("ab")
        assert calls == ["ab", "c", "ab"]
        assert any(b.name == "test memo" and b.max_bytes == 4096 for b in caching.bounds())
    finally:
        caching._REGISTRY.pop("test memo", None)  # noqa: SLF001


def test_threads_share_one_cache_without_losing_its_bound():
    store = _cache(50_000)

    def fill(start):
        for number in range(start, start + 500):
            store.set(number, "v" * 200)
            store.get(number - 3)

    threads = [threading.Thread(target=fill, args=(n * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 0 < store.current_bytes <= 50_000


class _Broken:
    def get(self, *args, **kwargs):
        raise ValueError("unpickling failed")

    def set(self, *args, **kwargs):
        raise ConnectionError("the cache is down")


def test_layered_reads_the_shared_cache_once_then_its_own_copy(monkeypatch):
    reads = []

    class Shared(dict):
        def get(self, key, default=None, version=None):
            reads.append(key)
            return super().get((key, version), default)

        def set(self, key, value, timeout=None, version=None):
            self[(key, version)] = value

    shared = Shared()
    monkeypatch.setattr(caching, "cache", shared)
    layered = caching.Layered("test layered", max_bytes=10_000, version=7, seconds=60, why="t")
    try:
        layered.set("k", "value")
        assert shared[("k", 7)] == "value"
        layered.local.clear()  # as if another server had drawn it
        assert layered.get("k") == "value"
        assert layered.get("k") == "value"
        assert reads == ["k"]
    finally:
        caching._REGISTRY.pop("test layered", None)  # noqa: SLF001


def test_layered_keeps_a_process_only_name_beside_the_shared_one_measuring_once(monkeypatch):
    """A question view is shared under its content and kept here under its row's key too
    (presenters/display.py): one measure of its size, each entry counted against the bound,
    and the row's key never sent to the shared cache."""
    stored, measured = {}, []

    class Shared:
        def set(self, key, value, timeout=None, version=None):
            stored[key] = value

    def sizeof(value):
        measured.append(value)
        return 1_000

    monkeypatch.setattr(caching, "cache", Shared())
    layered = caching.Layered(
        "test layered names", max_bytes=10_000, version=1, seconds=60, why="t"
    )
    monkeypatch.setattr(layered.local, "_sizeof", sizeof)
    try:
        layered.set("content", "value", local_keys=("row",))
        assert layered.local.get("content") == layered.local.get("row") == "value"
        assert list(stored) == ["content"]
        assert measured == ["value"]
        assert layered.local.current_bytes >= 2_000
    finally:
        caching._REGISTRY.pop("test layered names", None)  # noqa: SLF001


def test_layered_treats_a_broken_or_foreign_shared_value_as_a_miss(monkeypatch):
    layered = caching.Layered(
        "test layered", max_bytes=10_000, version=1, seconds=60, why="t", valid=lambda v: v == "ok"
    )
    try:
        monkeypatch.setattr(caching, "cache", _Broken())
        layered.set("k", "ok")  # the shared cache is down: kept here, no error
        assert layered.get("k") == "ok"
        layered.local.clear()
        assert layered.get("k") is None

        class Foreign:
            def get(self, *args, **kwargs):
                return "not what we wrote"

        monkeypatch.setattr(caching, "cache", Foreign())
        assert layered.get("k") is None
    finally:
        caching._REGISTRY.pop("test layered", None)  # noqa: SLF001


def test_clear_all_empties_every_registered_cache():
    store = caching.local_cache("test clear", max_bytes=10_000, why="t")
    try:
        store.set("k", "v")
        caching.clear_all()
        assert len(store) == 0
    finally:
        caching._REGISTRY.pop("test clear", None)  # noqa: SLF001


def test_deep_size_counts_the_strings_inside_a_structure():
    page = ("mark", "x" * 10_000, 3)
    assert caching.deep_size(page) >= 10_000
    assert caching.deep_size({"a": ["y" * 2_000]}) >= 2_000


def test_the_student_paths_caches_are_bounded_as_the_architecture_page_says():
    import re
    from pathlib import Path

    from quizzes.presenters import (  # noqa: F401
        display,
        fragments,
        instructor,
        page_memo,
        results_memo,
        slotted,
        student_parts,
    )
    from quizzes.services import (
        analytics,  # noqa: F401
        questions,  # noqa: F401
    )
    from quizzes.services.instructor import items  # noqa: F401
    from quizzes.templatetags import kinds  # noqa: F401

    site = {b.name: b.max_bytes for b in caching.bounds() if not b.name.startswith("test")}
    assert len(site) == 12, sorted(site)
    assert all(b.why for b in caching.bounds())
    page = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    stated = re.search(r"at most \*\*(\d+) MB per worker\*\*", page)
    assert stated is not None
    assert sum(site.values()) == int(stated.group(1)) * 2**20

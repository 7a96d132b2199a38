"""Test helper: correct a catalog figure for the length of a test, as a catalog release would."""

from __future__ import annotations

import dataclasses

from content.physics._lookup import REGISTRIES


def patch_entry(monkeypatch, kind: str, key: str, **changes):
    """Replace catalog entry ``key`` of ``kind`` by a copy with ``changes``; undone at teardown.

    The registry then serves the new entry under every name of the old one, exactly as if the
    catalog data file had been edited."""
    registry = REGISTRIES[kind]
    old = registry._entries[key]
    new = dataclasses.replace(old, **changes)
    monkeypatch.setitem(registry._entries, key, new)
    for folded in registry.names_of(old):
        monkeypatch.setitem(registry._index, folded, new)
    return new

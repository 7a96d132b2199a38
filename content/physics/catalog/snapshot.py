"""Snapshots of catalog entries, so a stored computation can be replayed with the figures it used.

A question variant computes its answers from catalog figures; if a figure is later corrected,
re-reading the catalog would show the new number beside the old answer.  So the engine records
every entry a computation looks up (``recording``), stores them as plain JSON (``snapshot``), and
replays later work against them (``using``): inside ``using``, ``accelerator("H100")``,
``dtype("bf16")`` and every physics function's own look-ups resolve to the stored entries first.

``fingerprint()`` names the state of the whole catalog (a short hash of every entry), the
"catalog version" a snapshot was taken from.  Entries are frozen dataclasses of numbers, text,
tuples and read-only mappings, so JSON round-trips them exactly (floats by ``repr``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from content.physics._lookup import OVERLAY, RECORDING, REGISTRIES

SNAPSHOT_FORMAT = 1


@contextmanager
def recording(*, propagate: bool = True) -> Iterator[dict[tuple[str, str], Any]]:
    """Collect every entry looked up by name inside the block: {(kind, key): entry}.

    A nested recording passes its look-ups to the enclosing one, unless ``propagate`` is False
    (a draw that was rejected); ``keep`` passes them on later."""
    used: dict[tuple[str, str], Any] = {}
    token = RECORDING.set(used)
    try:
        yield used
    finally:
        RECORDING.reset(token)
        if propagate:
            keep(used)


def keep(used: Mapping[tuple[str, str], Any]) -> None:
    """Add ``used`` to the recording in progress, if any."""
    current = RECORDING.get()
    if current is not None:
        current.update(used)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    raise TypeError(f"cannot snapshot a {type(value).__name__}")


def entry_json(entry: Any) -> dict[str, Any]:
    """Every field of a catalog entry as JSON types."""
    return {f.name: _plain(getattr(entry, f.name)) for f in dataclasses.fields(entry)}


def _key(entry: Any) -> str:
    return getattr(entry, "key", None) or entry.name


def snapshot(used: Mapping[tuple[str, str], Any]) -> dict[str, Any]:
    """A JSON-ready snapshot of recorded entries, stamped with the catalog's fingerprint."""
    entries = [
        {"kind": kind, "key": key, "fields": entry_json(entry)}
        for (kind, key), entry in sorted(used.items())
    ]
    return {"format": SNAPSHOT_FORMAT, "fingerprint": fingerprint(), "entries": entries}


def _rebuild(kind: str, key: str, fields: Mapping[str, Any]) -> Any:
    registry = REGISTRIES[kind]
    cls = registry.entry_type
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items() if k in names}
    try:
        return cls(**values)
    except TypeError:
        # A field added to the catalog after the snapshot was taken: only that field comes from
        # today's entry; every figure the snapshot holds is kept.
        return dataclasses.replace(registry.get(key, cls), **values)


def entries(data: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    """The entries of a stored snapshot, rebuilt as catalog dataclasses: {(kind, key): entry}."""
    return {
        (item["kind"], item["key"]): _rebuild(item["kind"], item["key"], item["fields"])
        for item in data.get("entries", ())
    }


def _overlay(rebuilt: Mapping[tuple[str, str], Any]) -> dict[str, dict[str, Any]]:
    overlay: dict[str, dict[str, Any]] = {}
    for (kind, _), entry in rebuilt.items():
        by_name = overlay.setdefault(kind, {})
        for folded in REGISTRIES[kind].names_of(entry):
            by_name[folded] = entry
    return overlay


# Rendering one variant enters its snapshot a dozen times (the prompt, each part, each option):
# the entries are rebuilt once per snapshot object, not once per text. Per thread, and keyed on
# the very objects (a stored snapshot is never changed in place: a regrade stores a new one).
_LAST = threading.local()


def _rebuilt(data: Mapping[str, Any]) -> tuple[dict, dict]:
    memo = getattr(_LAST, "memo", None)
    listed = data.get("entries")
    if memo is not None and memo[0] is data and memo[1] is listed:
        return memo[2], memo[3]
    rebuilt = entries(data)
    overlay = _overlay(rebuilt)
    _LAST.memo = (data, listed, rebuilt, overlay)
    return rebuilt, overlay


@contextmanager
def using(data: Mapping[str, Any] | None) -> Iterator[dict[tuple[str, str], Any]]:
    """Resolve look-ups to a stored snapshot's entries inside the block (the live catalog for
    names it does not hold); ``None`` leaves the live catalog alone.  Yields the rebuilt
    entries."""
    if data is None:
        yield {}
        return
    rebuilt, overlay = _rebuilt(data)
    token = OVERLAY.set(overlay)
    try:
        yield dict(rebuilt)
    finally:
        OVERLAY.reset(token)


def lookup(data: Mapping[str, Any], kind: str, name: str) -> Any:
    """The entry of ``kind`` called ``name`` (key, name or alias) in a snapshot, else the live
    catalog's."""
    with using(data):
        return REGISTRIES[kind].get(name, REGISTRIES[kind].entry_type)


_FINGERPRINT: tuple[tuple[Any, ...], str] | None = None


def fingerprint() -> str:
    """A 16-hex-digit hash of every entry of every catalog: changes when any figure does.

    Cached for as long as the registries hold the very same entry objects (entries are frozen,
    so a changed figure is a replaced entry)."""
    global _FINGERPRINT
    current = tuple(e for kind in sorted(REGISTRIES) for e in REGISTRIES[kind].all())
    cached = _FINGERPRINT
    if (
        cached is not None
        and len(cached[0]) == len(current)
        and all(a is b for a, b in zip(cached[0], current, strict=True))
    ):
        return cached[1]
    digest = hashlib.sha256()
    for kind in sorted(REGISTRIES):
        for entry in REGISTRIES[kind].all():
            text = json.dumps([kind, entry_json(entry)], sort_keys=True, separators=(",", ":"))
            digest.update(text.encode())
    value = digest.hexdigest()[:16]
    _FINGERPRINT = (current, value)
    return value


def digest(data: Mapping[str, Any] | None) -> str:
    """A short hash of a stored snapshot's entries (for cache keys); "live" for none."""
    if not data:
        return "live-" + fingerprint()
    text = json.dumps(data.get("entries", []), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


__all__ = [
    "digest",
    "entries",
    "entry_json",
    "fingerprint",
    "lookup",
    "recording",
    "snapshot",
    "using",
]

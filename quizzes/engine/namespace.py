"""The names a template's expressions see: the shared namespace plus the variant's values."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from content.expressions import default_namespace


@lru_cache(maxsize=1)
def _cached() -> tuple[tuple[str, object], ...]:
    return tuple(default_namespace().items())


def base_names() -> dict[str, object]:
    """A fresh copy of the physics and maths names (built once per process)."""
    return dict(_cached())


def names_for(params: Mapping[str, object], parts: Mapping[str, object] = ()) -> dict[str, object]:
    """The namespace of a variant: base names, then parameters, then ``part_<id>`` values."""
    names = base_names()
    names.update(params)
    names.update({f"part_{part_id}": value for part_id, value in dict(parts).items()})
    return names

"""Name resolution shared by every catalog: aliases, case-insensitivity and helpful KeyErrors.

Names are compared after folding case and dropping spaces, hyphens and underscores, so "RTX 4090",
"rtx-4090" and "rtx4090" are one name.  A miss raises ``KeyError`` that names the closest matches
(``difflib``), because a typo in a question template should say what was meant.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_SEPARATORS = re.compile(r"[\s_\-]+")

# Every registry by kind ("accelerator", "model", ...), for snapshots (``catalog/snapshot.py``).
REGISTRIES: dict[str, Registry] = {}
# While set, look-ups by name record the entry they return: (kind, key) -> entry.
RECORDING: ContextVar[dict[tuple[str, str], Any] | None] = ContextVar(
    "catalog_recording", default=None
)
# While set, look-ups by name hand out a view of their entry that notes each dataclass field
# read from it, as (entry, field); a look-up itself is noted as (entry, None).  The chapter
# renderer cites the source of each field a physics function read (F-10), not every source of
# every entry it was given by name.
READING: ContextVar[list[tuple[Any, str | None]] | None] = ContextVar(
    "catalog_reading", default=None
)


@contextmanager
def reading_fields() -> Iterator[list[tuple[Any, str | None]]]:
    """Note, while the block runs, every entry looked up by name and every field read from it."""
    reads: list[tuple[Any, str | None]] = []
    token = READING.set(reads)
    try:
        yield reads
    finally:
        READING.reset(token)


def read_origin(entry: Any) -> Any:
    """The catalog entry behind a reading view (the entry itself otherwise)."""
    namespace = getattr(entry, "__dict__", None)
    return namespace.get("_read_origin", entry) if isinstance(namespace, dict) else entry


_VIEW_CLASSES: dict[type, type] = {}


def _view_class(cls: type) -> type:
    view = _VIEW_CLASSES.get(cls)
    if view is not None:
        return view
    fields = frozenset(getattr(cls, "__dataclass_fields__", ()))

    def __getattribute__(self, name):  # noqa: N807 - the data model's name
        if name in fields:
            reads = READING.get()
            origin = object.__getattribute__(self, "__dict__").get("_read_origin")
            if reads is not None and origin is not None:
                reads.append((origin, name))
        return object.__getattribute__(self, name)

    def __eq__(self, other):  # noqa: N807
        origin = read_origin(self)
        return type(origin).__eq__(origin, read_origin(other))

    def __hash__(self):  # noqa: N807
        return hash(read_origin(self))

    namespace = {
        "__getattribute__": __getattribute__,
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    view = _VIEW_CLASSES[cls] = type(cls.__name__, (cls,), namespace)
    return view


def _reading_view(entry: Any, reads: list) -> Any:
    """``entry`` as a view that notes its field reads in ``reads`` (a look-up is noted now)."""
    reads.append((entry, None))
    if not hasattr(entry, "__dict__") or not hasattr(type(entry), "__dataclass_fields__"):
        return entry
    view = object.__new__(_view_class(type(entry)))
    view.__dict__.update(entry.__dict__)
    view.__dict__["_read_origin"] = entry
    return view


# While set, look-ups by name resolve here first: kind -> {folded name -> entry}.
OVERLAY: ContextVar[Mapping[str, Mapping[str, Any]] | None] = ContextVar(
    "catalog_overlay", default=None
)


class _MissingMessage:
    """A miss's message, worked out only when it is shown: finding the close matches costs
    far more than the look-up, and most misses are caught and never shown (generating a
    variant tries a derived entry's name in every catalog). Once worked out, it is kept."""

    def __init__(self, registry: Registry, name: str):
        self.registry, self.name = registry, name

    @functools.cached_property
    def text(self) -> str:
        return self.registry.missing_message(self.name)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # KeyError shows its argument's repr
        return repr(str(self))


def normalize(name: str) -> str:
    """Fold a catalog name to the form used for comparison."""
    return _SEPARATORS.sub("", str(name).strip().lower())


class FrozenMap(Mapping[str, Any]):
    """A read-only, hashable mapping, so catalog entries stay immutable and hashable.

    Unlike ``types.MappingProxyType`` it pickles and deep-copies, which the variant store and
    template engine may need.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._data.items(), key=lambda item: item[0])))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self):
        return (FrozenMap, (dict(self._data),))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FrozenMap is read-only")


def freeze(value: Mapping[str, Any] | None) -> FrozenMap:
    """Return ``value`` as a FrozenMap (used in ``__post_init__`` so ``replace`` accepts dicts)."""
    if isinstance(value, FrozenMap):
        return value
    return FrozenMap(value or {})


class Registry(Generic[T]):
    """Entries of one catalog, found by key or alias regardless of case and separators."""

    def __init__(self, kind: str, entries: Iterable[T]) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._index: dict[str, T] = {}
        self._display: dict[str, str] = {}
        for entry in entries:
            key = entry.key if hasattr(entry, "key") else entry.name
            if key in self._entries:
                raise ValueError(f"duplicate {kind} key {key!r}")
            self._entries[key] = entry
            names = [key, getattr(entry, "name", key), *getattr(entry, "aliases", ())]
            for name in names:
                folded = normalize(name)
                owner = self._index.get(folded)
                if owner is not None and owner is not entry:
                    raise ValueError(f"{kind} name {name!r} is ambiguous")
                self._index[folded] = entry
                self._display.setdefault(folded, name)
        REGISTRIES[kind] = self

    @property
    def entry_type(self) -> type:
        """The dataclass of this catalog's entries."""
        return type(next(iter(self._entries.values())))

    def get(self, name: Any, cls: type) -> T:
        """The entry called ``name``; an instance of ``cls`` is returned unchanged."""
        if isinstance(name, cls):
            return name
        if not isinstance(name, str):
            raise TypeError(f"expected a {self.kind} or its name, got {type(name).__name__}")
        folded = normalize(name)
        overlay = OVERLAY.get()
        entry = None
        if overlay is not None:
            entry = overlay.get(self.kind, {}).get(folded)
        if entry is None:
            try:
                entry = self._index[folded]
            except KeyError:
                raise KeyError(_MissingMessage(self, name)) from None
        used = RECORDING.get()
        if used is not None:
            used[(self.kind, getattr(entry, "key", None) or entry.name)] = entry
        reads = READING.get()
        if reads is not None:
            return _reading_view(entry, reads)
        return entry

    def missing_message(self, name: str) -> str:
        close = difflib.get_close_matches(normalize(name), list(self._index), n=8, cutoff=0.5)
        # One suggestion per entry: "H100", "H100-80" and "h100-sxm" are the same part.
        by_entry: dict[int, str] = {}
        for folded in close:
            by_entry.setdefault(id(self._index[folded]), self._display[folded])
        suggestions = list(by_entry.values())[:4]
        message = f"unknown {self.kind} {name!r}"
        if suggestions:
            message += "; did you mean " + ", ".join(repr(s) for s in suggestions) + "?"
        return message + " Known: " + ", ".join(self._entries) + "."

    def all(self) -> tuple[T, ...]:
        return tuple(self._entries.values())

    def names_of(self, entry: T) -> list[str]:
        """The folded names (key, name, aliases) an entry answers to."""
        key = entry.key if hasattr(entry, "key") else entry.name
        names = [key, getattr(entry, "name", key), *getattr(entry, "aliases", ())]
        return [normalize(n) for n in names]

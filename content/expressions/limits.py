"""Argument limits: what every function an expression can call declares it accepts.

The policy bounds the expression itself (its length, its nodes, its numbers); a function it
calls can still spend time and memory that its arguments set (a loop over a warp of ten million
threads). So every callable name the language hands out carries a `Limits` declaration, and
`bounded` wraps the function so the limits are checked before it runs: a value out of bounds is
refused with a message naming the function, the argument and the bound. A callable given
without a declaration is not handed out as is: `unbounded` refuses every call to it (fail
closed), and the test that walks every registered name reports it.

Declaring is one entry per function, with the shared limits below:

    "coalescing_efficiency": Limits(
        stride_elements=Number(1, 2**32, integer=True), element_bytes=Number(0, 128), ...
    ),

`Limits.check` may add a rule over several arguments (a product of two sizes), given the bound
arguments by name and returning a message or None.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# The largest magnitude of a plain quantity: beyond every byte, FLOP or dollar count the book
# has (a frontier training run is about 1e25 FLOP), and far below where floats lose meaning.
MAX_MAGNITUDE = 1e30


class LimitExceeded(ValueError):
    """An argument outside its declared limits (the evaluator reports it as an expression
    error)."""


@dataclass(frozen=True)
class Number:
    """A real number (not a bool) in [low, high]; ``integer``: a whole number."""

    low: float = -MAX_MAGNITUDE
    high: float = MAX_MAGNITUDE
    integer: bool = False

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number, not {_kind(value)}"
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        if self.integer and value != int(value):
            return f"must be a whole number (got {_show(value)})"
        if not self.low <= value <= self.high:
            return f"must be between {_show(self.low)} and {_show(self.high)} (got {_show(value)})"
        return None

    def describe(self) -> str:
        whole = "whole number" if self.integer else "number"
        return f"{whole} from {_show(self.low)} to {_show(self.high)}"


@dataclass(frozen=True)
class Text:
    """A string of at most ``max_length`` characters."""

    max_length: int = 64

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be text, not {_kind(value)}"
        if len(value) > self.max_length:
            return f"must be at most {self.max_length} characters (got {len(value):,})"
        return None

    def describe(self) -> str:
        return f"text of at most {self.max_length} characters"


@dataclass(frozen=True)
class Entry:
    """A catalog entry, or its name (a short text); ``optional``: None too."""

    max_length: int = 64
    optional: bool = False
    # A number is accepted too where the function takes "a count or an entry" (weights_bytes).
    or_number: Number | None = None

    def problem(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if isinstance(value, str):
            return Text(self.max_length).problem(value)
        if self.or_number is not None and isinstance(value, (int, float)):
            return self.or_number.problem(value)
        if isinstance(value, (int, float, list, tuple, dict)) or value is None:
            return f"must be a catalog entry or its name, not {_kind(value)}"
        return None

    def describe(self) -> str:
        return "a catalog entry or its name"


@dataclass(frozen=True)
class Optional:
    """None, or a value within ``inner``."""

    inner: Number | Text

    def problem(self, value: Any) -> str | None:
        return None if value is None else self.inner.problem(value)

    def describe(self) -> str:
        return f"None or {self.inner.describe()}"


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else f"must be True or False, not {_kind(value)}"

    def describe(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class Values:
    """Any number of values (``*args``) up to ``max_count``, each within ``each``."""

    each: Any
    max_count: int = 1000

    def problem(self, value: Any) -> str | None:
        items = list(value.values()) if isinstance(value, Mapping) else list(value)
        if len(items) > self.max_count:
            return f"takes at most {self.max_count:,} values (got {len(items):,})"
        for item in items:
            found = self.each.problem(item)
            if found:
                return found
        return None

    def describe(self) -> str:
        return f"at most {self.max_count:,} values, each {self.each.describe()}"


@dataclass(frozen=True)
class Sequence:
    """A list or tuple of at most ``max_length`` items, each within ``each``."""

    each: Any
    max_length: int = 1000

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, (list, tuple)):
            return f"must be a list, not {_kind(value)}"
        return Values(self.each, self.max_length).problem(value)

    def describe(self) -> str:
        return f"a list of at most {self.max_length:,} items, each {self.each.describe()}"


@dataclass(frozen=True)
class Unchecked:
    """Accepted as given, with the reason it costs nothing (a value only compared or passed
    on to a function that is itself bounded)."""

    reason: str

    def problem(self, value: Any) -> str | None:
        return None

    def describe(self) -> str:
        return f"any value ({self.reason})"


@dataclass(frozen=True)
class Limits:
    """One function's declaration: a limit per parameter, and an optional rule over several
    (``check(arguments) -> message or None``)."""

    params: Mapping[str, Any] = field(default_factory=dict)
    check: Callable[[Mapping[str, Any]], str | None] | None = None

    def __init__(self, check=None, **params: Any) -> None:
        object.__setattr__(self, "params", dict(params))
        object.__setattr__(self, "check", check)


def parameter_names(func: Callable) -> list[str]:
    """The names a declaration for ``func`` must cover (a builtin without a signature: none)."""
    try:
        return list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []


def bounded(name: str, func: Callable, limits: Limits) -> Callable:
    """``func`` with ``limits`` checked before every call; a breach raises ``LimitExceeded``."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        signature = None
    missing = [p for p in (parameter_names(func)) if p not in limits.params]
    if missing:
        return unbounded(name, func, f"no limit declared for {', '.join(missing)}")

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        if signature is None:
            arguments = {"args": args} if args else {}
            arguments.update(kwargs)
        else:
            try:
                arguments = signature.bind(*args, **kwargs).arguments
            except TypeError as exc:
                raise TypeError(f"{name}(): {exc}") from None
        for param, value in arguments.items():
            limit = limits.params.get(param)
            if limit is None:
                raise LimitExceeded(f"{name}: unexpected argument '{param}'")
            problem = limit.problem(value)
            if problem:
                raise LimitExceeded(f"{name}: {param} {problem}")
        if limits.check is not None:
            problem = limits.check(arguments)
            if problem:
                raise LimitExceeded(f"{name}: {problem}")
        return func(*args, **kwargs)

    call.limits = limits  # type: ignore[attr-defined]
    return call


def unbounded(name: str, func: Callable, why: str = "it declares no argument limits") -> Callable:
    """A stand-in for ``func`` that refuses every call: it was handed out without limits."""

    @functools.wraps(func)
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise LimitExceeded(f"{name} cannot be called: {why}")

    refuse.limits = None  # type: ignore[attr-defined]
    return refuse


def bound_all(names: Mapping[str, object], limits: Mapping[str, Limits]) -> dict[str, object]:
    """``names`` with every callable (not a class) wrapped by its declared limits."""
    wrapped: dict[str, object] = {}
    for name, value in names.items():
        if callable(value) and not isinstance(value, type):
            declared = limits.get(name)
            wrapped[name] = (
                bounded(name, value, declared) if declared is not None else unbounded(name, value)
            )
        else:
            wrapped[name] = value
    return wrapped


def _show(value: float) -> str:
    """A bound or a value as people read it: 1,024, 1e+12, 0.5."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        if abs(value) < 1e15:
            return f"{int(value):,}"
    return f"{value:g}"


def _kind(value: Any) -> str:
    return "None" if value is None else f"a {type(value).__name__}"

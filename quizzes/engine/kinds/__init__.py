"""The answer kinds and the registry every caller asks: ``kind_for(part)``, ``kind_named(name)``.

One folder per kind (`numeric/`, `formula/`, `choice/`, ...), each a package holding a
registered `AnswerKind` (``base.py`` says what one provides), its own settings dataclass, its
three templates (``input.html``, ``submitted.html``, ``answer.html``), its ``starter.yaml`` and
its tests.  A new kind is one folder and one line in `KINDS` below; nothing outside the folder
compares kind names.  Django finds the templates through the template directory that holds
this package (``kinds/<name>/input.html``), so the engine itself imports nothing of Django.

An unknown kind name raises `UnknownKind`; the template parser reports it as an issue of the
part's ``kind`` line, so an unknown kind never falls through to another kind's behaviour.
"""

from __future__ import annotations

import importlib

from content.expressions import did_you_mean
from quizzes.engine.kinds.base import (
    MAX_ANSWER_LENGTH,
    AnswerKind,
    AnswerRefused,
    NumberScale,
    Rendered,
    answer_limit,
)

_KINDS: dict[str, AnswerKind] = {}


class UnknownKind(KeyError):
    """A kind name no module registered; the message lists the known ones."""

    def __init__(self, name: object) -> None:
        self.name = name
        known = ", ".join(_KINDS)
        self.message = f"must be one of {known}{did_you_mean(str(name), list(_KINDS))}"
        super().__init__(f"unknown answer kind {name!r}: {self.message}")

    def __str__(self) -> str:
        return self.args[0]


def register(kind_class: type[AnswerKind]) -> type[AnswerKind]:
    """Class decorator: make `kind_class` (one instance) the kind named `kind_class.name`."""
    if kind_class.name in _KINDS:
        raise ValueError(f"answer kind {kind_class.name!r} is registered twice")
    _KINDS[kind_class.name] = kind_class()
    return kind_class


def kind_named(name: str) -> AnswerKind:
    """The kind called `name`; raises UnknownKind."""
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise UnknownKind(name) from None


def kind_for(part) -> AnswerKind:
    """The kind of a parsed part (anything with a ``kind`` name)."""
    return kind_named(part.kind)


def kind_names() -> tuple[str, ...]:
    """Every registered kind name, in registration order."""
    return tuple(_KINDS)


def all_kinds() -> tuple[AnswerKind, ...]:
    return tuple(_KINDS.values())


def max_answer_length(name: str | None) -> int:
    """The longest answer a part of kind `name` accepts (the general limit for None)."""
    if name is None or name not in _KINDS:
        return MAX_ANSWER_LENGTH
    return answer_limit(_KINDS[name])


def too_long_message(text: str, name: str | None) -> str | None:
    """Why `text` is too long for a part of kind `name`, or None when it fits."""
    if name is None or name not in _KINDS:
        return AnswerKind.too_long(_GENERIC, text)
    return _KINDS[name].too_long(text)


def run_grader(grader: str, /, **kwargs):
    """The default ``grade_fn``: run the grader a kind names, under the worker pool's hard
    time and memory limits when that kind says it is bounded (formulas call sympy, which a
    hostile formula can keep busy for minutes; the studio validates inside a web request, so
    the limits apply there too), else in this process."""
    import quizzes.grading as grading

    kind = next((k for k in _KINDS.values() if k.grader == grader), None)
    if kind is None:
        names = ", ".join(repr(k.grader) for k in _KINDS.values() if k.grader)
        raise ValueError(f"grader must be one of {names}, not {grader!r}")
    if kind.bounded:
        return grading.grade_in_pool(grader, **kwargs)
    return grading.GRADERS[grader](**kwargs)


class _Generic(AnswerKind):
    name = ""


_GENERIC = _Generic()


# The kinds, one registration line each, in the order authors see them.
KINDS = (
    "numeric",
    "formula",
    "choice",
    "interval",
    "ordering",
    "matching",
    "roofline_point",
    "explain",
)


def _register_modules() -> None:
    for name in KINDS:
        importlib.import_module(f"{__name__}.{name}")


_register_modules()

__all__ = [
    "MAX_ANSWER_LENGTH",
    "AnswerKind",
    "AnswerRefused",
    "NumberScale",
    "Rendered",
    "UnknownKind",
    "all_kinds",
    "kind_for",
    "kind_named",
    "kind_names",
    "max_answer_length",
    "register",
    "run_grader",
    "too_long_message",
]

"""Plausibility checks: the registry of ``plausible:`` checks a template may declare.

A check is an assertion about the physical world that every variant must satisfy (the weights
and KV cache fit the memory that the stated parallelism gives them, the context is within the
model's window, the part has the link the question sends data over, a module is joined to its
peers by its own fabric, the batch is one a server would run, a price or a gradient lies in the
range the catalog states).  Authors keep variants inside them with ``constraints``; the
validator evaluates every declared check on every variant and reports a broken one with its
seed.  The checks compute from the physics catalog, never from the template's own arithmetic,
so a template cannot agree with itself about something false.

Two rules make the checks hard to forget: ``coverage.missing_checks`` asks for the checks a
template's parameters call for, and a declared ``fits_memory`` implies ``within_context`` on the
same model and context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from content.expressions import evaluate
from quizzes.engine.model import Expr, PlausibleCheck, Template
from quizzes.engine.namespace import names_for
from quizzes.engine.plausible import hardware, memory
from quizzes.engine.plausible.coverage import missing_checks


@dataclass(frozen=True)
class CheckKind:
    """One check of the registry: its arguments and the function that judges a variant.

    ``judge`` receives the evaluated arguments (optional ones filled with their defaults) and
    returns None when the variant is plausible, else a sentence saying what is impossible.
    """

    name: str
    required: tuple[str, ...]
    optional: Mapping[str, Any]
    judge: Callable[[Mapping[str, Any]], str | None]
    meaning: str

    @property
    def arguments(self) -> tuple[str, ...]:
        return (*self.required, *self.optional)


CHECKS: dict[str, CheckKind] = {
    check.name: check
    for check in (
        CheckKind(
            "fits_memory",
            ("model", "accelerator", "dtype", "batch", "context"),
            {"devices": 1, "kv_dtype": None, "level": memory.DEFAULT_LEVEL},
            memory.fits_memory,
            "weights plus the batch's KV cache fit the usable memory of the stated devices",
        ),
        CheckKind(
            "fits_bytes",
            ("bytes", "accelerator"),
            {"devices": 1, "level": memory.DEFAULT_LEVEL, "what": ""},
            memory.fits_bytes,
            "a stated amount of data (an array, a buffer) fits the usable memory",
        ),
        CheckKind(
            "training_fits",
            ("model", "accelerator", "devices"),
            {"bytes_per_param": 16, "sharded": True, "level": memory.TRAINING_LEVEL},
            memory.training_fits,
            "weights, gradients and optimizer state fit each GPU's usable memory",
        ),
        CheckKind(
            "within_context",
            ("model", "context"),
            {"cache_capped": False},
            hardware.within_context,
            "the context is within the model's window (a sliding window caps the cache)",
        ),
        CheckKind(
            "has_link",
            ("accelerator", "link"),
            {},
            hardware.has_link,
            "the accelerator has this scale-up or host link (or ships with this network)",
        ),
        CheckKind(
            "peer_link",
            ("accelerator", "link"),
            {},
            hardware.peer_link,
            "two of these accelerators can be joined by this link (form factor and link agree)",
        ),
        CheckKind(
            "batch_at_most",
            ("batch", "max"),
            {},
            hardware.batch_at_most,
            "the batch is one a real server would run",
        ),
        CheckKind(
            "in_range",
            ("kind", "value"),
            {"accelerator": None, "link": None},
            hardware.in_range,
            "the value lies in the range the catalog states for its kind",
        ),
        CheckKind(
            "idealised",
            ("skips", "because"),
            {},
            hardware.idealised,
            "the template leaves a check out on purpose, and says why",
        ),
    )
}


def judge(name: str, values: Mapping[str, Any]) -> str | None:
    """Apply check ``name`` to its evaluated arguments; None when the variant is plausible."""
    kind = CHECKS[name]
    try:
        return kind.judge({**kind.optional, **values})
    except Exception as exc:  # noqa: BLE001 - a bad argument (unknown model...) is a finding
        return f"cannot be judged: {type(exc).__name__}: {exc}"


def implied_checks(template: Template) -> tuple[PlausibleCheck, ...]:
    """The checks a template's declared ones imply: ``within_context`` for every
    ``fits_memory`` with a context, unless the template declares its own (or idealises it)."""
    declared = {c.check for c in template.plausible}
    idealised = {
        expr.text.strip().strip("'\"")
        for c in template.plausible
        if c.check == "idealised"
        for name, expr in c.arguments
        if name == "skips"
    }
    if "within_context" in declared | idealised:
        return ()
    implied = []
    for check in template.plausible:
        if check.check != "fits_memory":
            continue
        args = dict(check.arguments)
        implied.append(
            PlausibleCheck(
                "within_context",
                (("model", args["model"]), ("context", args["context"])),
                check.line,
            )
        )
    return tuple(implied)


def broken_checks(
    template: Template, params: Mapping[str, object]
) -> list[tuple[PlausibleCheck, str]]:
    """Each declared (or implied) check this variant breaks, with the sentence saying why.

    Raises ``ExpressionError`` (with file and line) when an argument cannot be evaluated.
    """
    names = names_for(params)
    broken = []
    for check in (*template.plausible, *implied_checks(template)):
        values = {name: _evaluate(template, expr, names) for name, expr in check.arguments}
        message = judge(check.check, values)
        if message is not None:
            broken.append((check, message))
    return broken


def _evaluate(template: Template, expr: Expr, names):
    return evaluate(expr.text, names, source=template.source, line=expr.line)


__all__ = ["CHECKS", "CheckKind", "broken_checks", "implied_checks", "judge", "missing_checks"]

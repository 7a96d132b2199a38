"""Plausibility checks: the registry of ``plausible:`` checks a template may declare.

A check is an assertion about the physical world that every variant must satisfy (the weights
and KV cache fit the memory the device reports, the context is within the model's window, the
part has the link the question sends data over, the batch is one a server would run).  Authors
keep variants inside them with ``constraints``; the validator evaluates every declared check on
every variant and reports a broken one with its seed.  The checks compute from the physics
catalog, never from the template's own arithmetic, so a template cannot agree with itself about
something false.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from content import physics
from content.expressions import evaluate
from quizzes.engine.model import PlausibleCheck, Template
from quizzes.engine.namespace import names_for


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


def _fits_memory(args: Mapping[str, Any]) -> str | None:
    m = physics.model(args["model"])
    acc = physics.accelerator(args["accelerator"])
    dt = physics.dtype(args["dtype"])
    kv_dt = physics.dtype(args["kv_dtype"]) if args["kv_dtype"] is not None else dt
    devices = int(args["devices"])
    batch, context = args["batch"], args["context"]
    level = str(args["level"])
    weights = physics.weights_bytes(m, dt)
    kv = physics.kv_cache_bytes(m, context, kv_dt, batch=batch)
    # Usable memory at the stated level: a serving engine's budget unless the template says so.
    if physics.fits(weights + kv, acc, gpus=devices, level=level):
        return None
    capacity = physics.usable_memory_bytes(acc, level) * devices
    on = f"{devices} x {acc.name}" if devices > 1 else f"one {acc.name}"
    return (
        f"{m.name} in {dt.name} ({weights / 1e9:.1f} GB of weights) with a KV cache of "
        f"{kv / 1e9:.1f} GB (batch {batch:g}, context {context:g}) needs "
        f"{(weights + kv) / 1e9:.1f} GB, more than the {capacity / 1e9:.1f} GB usable "
        f"({level} level) of {on}"
    )


def _within_context(args: Mapping[str, Any]) -> str | None:
    m = physics.model(args["model"])
    context = args["context"]
    if context <= m.context_length:
        return None
    return f"a context of {context:g} tokens exceeds {m.name}'s window of {m.context_length}"


# Scale-out networks that ship with each scale-up generation in the vendors' reference systems
# (DGX-1: EDR; DGX A100: HDR 200 Gb/s; DGX H100 and B200: NDR 400 Gb/s ConnectX-7; 800 Gb/s with
# the Blackwell generation; MI300X platforms: 400 Gb/s NICs).  Ethernet of the same speed counts.
_NETWORKS = {
    "nvlink2": ("ib-edr", "eth-100g"),
    "nvlink3": ("ib-edr", "ib-hdr", "eth-100g"),
    "nvlink4": ("ib-ndr", "eth-400g"),
    "nvlink5": ("ib-ndr", "ib-xdr", "eth-400g", "eth-800g"),
    "infinity-fabric": ("ib-ndr", "eth-400g"),
}


def _has_link(args: Mapping[str, Any]) -> str | None:
    acc = physics.accelerator(args["accelerator"])
    ln = physics.link(args["link"])
    own = [key for key in (acc.link, acc.host_link) if key]
    if ln.key in own:
        return None
    if ln.kind == "network" and ln.key in _NETWORKS.get(acc.link or "", ()):
        return None
    has = ", ".join(physics.link(key).name for key in own) or "no catalogued link"
    return f"the {acc.name} has no {ln.name} (it has {has})"


def _batch_at_most(args: Mapping[str, Any]) -> str | None:
    if args["batch"] <= args["max"]:
        return None
    return f"a batch of {args['batch']:g} is more than {args['max']:g}"


CHECKS: dict[str, CheckKind] = {
    check.name: check
    for check in (
        CheckKind(
            "fits_memory",
            ("model", "accelerator", "dtype", "batch", "context"),
            {"devices": 1, "kv_dtype": None, "level": "serving"},
            _fits_memory,
            "weights plus the batch's KV cache fit the devices' usable memory at the stated "
            "level (a serving engine's budget unless the check names another)",
        ),
        CheckKind(
            "within_context",
            ("model", "context"),
            {},
            _within_context,
            "the context (prompt plus generated tokens) is within the model's window",
        ),
        CheckKind(
            "has_link",
            ("accelerator", "link"),
            {},
            _has_link,
            "the accelerator has this scale-up or host link (or ships with this network)",
        ),
        CheckKind(
            "batch_at_most",
            ("batch", "max"),
            {},
            _batch_at_most,
            "the batch is one a real server would run",
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


def broken_checks(
    template: Template, params: Mapping[str, object]
) -> list[tuple[PlausibleCheck, str]]:
    """Each declared check this variant breaks, with the sentence saying why.

    Raises ``ExpressionError`` (with file and line) when an argument cannot be evaluated.
    """
    names = names_for(params)
    broken = []
    for check in template.plausible:
        values = {
            name: evaluate(expr.text, names, source=template.source, line=expr.line)
            for name, expr in check.arguments
        }
        message = judge(check.check, values)
        if message is not None:
            broken.append((check, message))
    return broken


__all__ = ["CHECKS", "CheckKind", "broken_checks", "judge"]

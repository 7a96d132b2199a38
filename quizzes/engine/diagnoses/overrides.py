"""Physics functions as a slip computes them: a roofline on one leg, a ring all-reduce without
its factor, a strided warp without the sector floor.  Each is a namespace override."""

from __future__ import annotations

import math
from collections.abc import Callable

from content import physics


def leg(which: str) -> dict[str, Callable]:
    """The roofline's functions on one leg: "min" (the shorter), "memory" or "compute"."""

    def pick(compute: float, memory: float) -> float:
        if which == "min":
            return min(compute, memory)
        return memory if which == "memory" else compute

    def kernel(flops, moved, acc, dt):
        acc = physics.accelerator(acc)
        return pick(flops / acc.peak(dt), moved / acc.memory_bandwidth)

    def decode(m, acc, dt, batch=1, context=0):
        acc = physics.accelerator(acc)
        moved = physics.weights_bytes(m, dt) + physics.kv_cache_bytes(m, context, dt, batch=batch)
        flops = physics.model_flops_per_token(m) * batch
        return pick(flops / acc.peak(dt), moved / acc.memory_bandwidth)

    def floor_time(m, acc, dt):
        return decode(m, acc, dt)

    def prefill(m, acc, dt, prompt_tokens, batch=1):
        acc = physics.accelerator(acc)
        flops = physics.forward_flops_per_token(m) * prompt_tokens * batch
        return pick(flops / acc.peak(dt), physics.weights_bytes(m, dt) / acc.memory_bandwidth)

    def pass_floor(m, acc, fmt):
        # chapter 03's decode pass (`decode_floor`): the weights a step reads, without the input
        # embedding table, against the FLOPs of that pass
        acc = physics.accelerator(acc)
        try:
            peak = acc.peak(fmt)
        except (KeyError, ValueError):  # a storage-only format: the arithmetic runs in bf16
            peak = acc.peak("bf16")
        return pick(
            physics.decode_flops_per_token(m) / peak,
            physics.decode_weight_bytes(m, fmt) / acc.memory_bandwidth,
        )

    def attainable(acc, dt, intensity):
        acc = physics.accelerator(acc)
        if which == "min":
            return max(acc.peak(dt), intensity * acc.memory_bandwidth)
        return pick(acc.peak(dt), intensity * acc.memory_bandwidth)

    return {
        "kernel_time": kernel,
        "decode_step_time": decode,
        "time_per_token_floor": floor_time,
        "decode_floor": pass_floor,
        "prefill_time": prefill,
        "attainable_flops": attainable,
    }


LEGS = tuple(leg(which) for which in ("min", "memory", "compute"))


def _without_context(function):
    def wrapped(*args, **kwargs):
        if "context" in kwargs:
            kwargs["context"] = 0
        elif len(args) >= 5:
            args = (*args[:4], 0, *args[5:])
        return function(*args, **kwargs)

    return wrapped


def zero_kv() -> dict[str, Callable]:
    """The KV cache left out: its functions give 0 and the step functions see no context."""
    zero = dict.fromkeys(("kv_cache_bytes", "kv_cache_bytes_per_token"), lambda *a, **k: 0.0)
    for name in (
        "decode_step_time",
        "quantized_decode_step_time",
        "decode_tokens_per_second",
        "energy_per_token",
    ):
        if hasattr(physics, name):
            zero[name] = _without_context(getattr(physics, name))
    return zero


def driver_level() -> dict[str, Callable]:
    """Every "does it fit" judged against the driver's total."""
    overrides = {}
    for name in (
        "usable_memory_bytes",
        "fits",
        "min_gpus",
        "spare_memory_bytes",
        "max_batch_for_memory",
    ):
        function = getattr(physics, name, None)
        if function is not None:
            overrides[name] = lambda *a, _f=function, **k: _f(*a, **{**k, "level": "driver"})
    return overrides


def rounded(how: str) -> dict[str, Callable]:
    """GPU counts rounded down ("floor") or not rounded at all ("exact")."""
    op = math.floor if how == "floor" else (lambda x: x)

    def ratio(b, acc, **k):
        # The per-device budget the key divides by: one GPU's alone, or a split's (smaller).
        alone = b / physics.usable_memory_bytes(acc, **k)
        return alone if alone <= 1 else b / physics.usable_memory_bytes(acc, gpus=2, **k)

    return {"min_gpus": lambda b, acc, **k: op(ratio(b, acc, **k))}


NAMED: dict[str, dict[str, Callable]] = {
    # a strided warp thought to use 1/stride of what it moves, at any stride (no sector floor)
    "no-sector-floor": {"coalescing_efficiency": lambda stride, element: 1 / stride},
    # a pipeline's idle slots over its useful ones, (p - 1) / m
    "idle-over-useful": {"pipeline_bubble_fraction": lambda p, m: (p - 1) / m},
    # a ring all-reduce timed as one pass of the buffer, without its 2(n - 1)/n
    "ring-once": {"ring_allreduce_time": lambda b, n, ln: b / physics.link(ln).bandwidth},
    # a matrix product's traffic without the output written back
    "reads-only": {"matmul_bytes": lambda m, n, k, dt: (m * k + k * n) * physics.dtype(dt).bytes},
    # a run of accepted draft tokens taken as k independent chances, 1 + k·a
    "linear-acceptance": {"speculative_expected_tokens": lambda a, k: 1 + k * a},
    # the datasheet's label taken for the memory a program may use
    "label-for-capacity": {
        "usable_memory_bytes": lambda acc, *a, **k: physics.accelerator(acc).memory_label_bytes
    },
}

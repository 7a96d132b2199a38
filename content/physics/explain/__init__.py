"""Worked solutions: ``explain("ridge_point", "H100", "bf16")`` shows the formula, the numbers
substituted with their units, and each intermediate result.

The final ``value`` is always the plain function's own return value (the steps only narrate it),
so an explanation can never disagree with the answer a student is graded against.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import content.physics.cost as _cost
import content.physics.inference as _inference
import content.physics.interconnect as _interconnect
import content.physics.kernels as _kernels
import content.physics.memory as _memory
import content.physics.roofline as _roofline
import content.physics.serving as _serving
from content.physics.explain import inference as _explain_inference
from content.physics.explain import kernels as _explain_kernels
from content.physics.explain import memory as _explain_memory
from content.physics.explain import roofline as _explain_roofline
from content.physics.explain import serving as _explain_serving
from content.physics.explain import transfer as _explain_transfer
from content.physics.explain._steps import Step


@dataclass(frozen=True)
class Explanation:
    """A titled sequence of steps ending in ``value`` (SI base of ``unit``).

    ``value`` is the function's own return value: a number for most, a bool for ``fits`` and
    ``memory_fits`` and an ``Occupancy`` record for ``occupancy`` (``unit`` then names its
    ``warps_per_sm``)."""

    title: str
    steps: tuple[Step, ...]
    value: float
    unit: str


# name -> (the physics function, its narrator, unit of the value)
_EXPLAINERS: dict[str, tuple[Callable, Callable, str]] = {}


def _register(module, narrators, names_units):
    for name, unit in names_units:
        _EXPLAINERS[name] = (getattr(module, name), getattr(narrators, name), unit)


_register(
    _roofline,
    _explain_roofline,
    (
        ("arithmetic_intensity", "FLOP/B"),
        ("ridge_point", "FLOP/B"),
        ("attainable_flops", "FLOP/s"),
        ("kernel_time", "s"),
        ("matmul_flops", "FLOP"),
        ("matmul_bytes", "B"),
    ),
)
_register(
    _inference,
    _explain_inference,
    (
        ("weights_bytes", "B"),
        ("kv_cache_bytes", "B"),
        ("decode_step_time", "s"),
        ("decode_tokens_per_second", "tokens/s"),
        ("prefill_time", "s"),
        ("critical_batch_size", "sequences"),
        ("gpus_needed", "GPUs"),
        ("time_per_token_floor", "s"),
        ("energy_per_token", "J"),
    ),
)
_register(
    _interconnect,
    _explain_transfer,
    (
        ("transfer_time", "s"),
        ("ring_allreduce_time", "s"),
    ),
)
_register(_cost, _explain_transfer, (("cost_per_million_tokens", "$"),))
_register(
    _kernels,
    _explain_kernels,
    (
        ("peak_flops_from_clock", "FLOP/s"),
        ("occupancy", "warps"),
        ("bytes_in_flight", "B"),
        ("coalescing_efficiency", ""),
        ("tile_intensity", "FLOP/B"),
    ),
)
_register(
    _memory,
    _explain_memory,
    (
        ("usable_memory_bytes", "B"),
        ("fits", ""),
        ("memory_fits", ""),
        ("min_gpus", "GPUs"),
        ("spare_memory_bytes", "B"),
    ),
)
_register(
    _serving,
    _explain_serving,
    (
        ("max_batch_for_memory", "sequences"),
        ("max_batch_under_latency", "sequences"),
        ("speculative_expected_tokens", "tokens"),
        ("speculative_speedup", ""),
        ("pipeline_bubble_fraction", ""),
    ),
)
_register(
    _interconnect,
    _explain_serving,
    (("moe_alltoall_bytes", "B"), ("alltoall_time", "s")),
)


def explainable() -> tuple[str, ...]:
    """Names of the functions ``explain`` can narrate."""
    return tuple(sorted(_EXPLAINERS))


def explain(func_name: str, *args, **kwargs) -> Explanation:
    """Run the physics function ``func_name`` with these arguments and narrate how it got there.

    KeyError names the explainable functions when ``func_name`` is not one of them; a bad argument
    raises what the function itself raises.
    """
    try:
        func, narrator, unit = _EXPLAINERS[func_name]
    except KeyError:
        raise KeyError(
            f"no worked solution for {func_name!r}; available: {', '.join(explainable())}"
        ) from None
    value = func(*args, **kwargs)
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    title, steps = narrator(**bound.arguments)
    return Explanation(title, tuple(steps), value, unit)


__all__ = ["Explanation", "Step", "explain", "explainable"]

"""Serving many users: how large a batch fits, how large a batch meets a latency target, what
speculative decoding buys, and how much of a pipeline sits idle.

Decode is modelled as in ``inference``: each step reads every weight and the whole KV cache of the
batch once and does 2 FLOP per active parameter per sequence, at peak rates.  With ``devices`` > 1
the weights and cache are split evenly and the devices' bandwidths and peaks add up
(communication ignored).  Memory is the usable memory at a stated level (``memory.LEVELS``;
"serving", vLLM's budget, by default).
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.inference import (
    _FIT_TOLERANCE,
    ModelLike,
    _compute_peak,
    kv_cache_bytes,
    model_flops_per_token,
    weights_bytes,
)
from content.physics.memory import DEFAULT_UTILIZATION, usable_memory_bytes
from content.physics.roofline import AcceleratorLike, DTypeLike


def _check_devices(devices: int) -> None:
    if devices < 1 or int(devices) != devices:
        raise ValueError("devices must be a whole number of at least 1")


def _kv_per_sequence(m, context, dt, kv_dt) -> float:
    if context <= 0:
        raise ValueError("context must be positive: with no KV cache the batch is unbounded")
    return kv_cache_bytes(m, context, kv_dt or dt, 1)


def max_batch_for_memory(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    context: float,
    devices: int = 1,
    kv_dt: DTypeLike | None = None,
    *,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> int:
    """The largest batch of ``context``-token sequences whose KV cache fits beside the weights:
    floor((devices × usable memory at ``level`` − weights) ÷ KV bytes per sequence); 0 when the
    weights alone do not fit.  At the serving level the budget is vLLM's (utilization × the
    runtime's total); activations inside it are not set aside (paged caches waste little)."""
    _check_devices(devices)
    capacity = usable_memory_bytes(acc, level, utilization=utilization) * devices
    weights = weights_bytes(m, dt)
    per_sequence = _kv_per_sequence(m, context, dt, kv_dt)
    if weights > capacity * (1 + _FIT_TOLERANCE):
        return 0
    return max(0, math.floor((capacity - weights) / per_sequence + _FIT_TOLERANCE))


def max_batch_under_latency(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    context: float,
    target_step_s: float,
    devices: int = 1,
    kv_dt: DTypeLike | None = None,
) -> int:
    """The largest batch whose decode step stays within ``target_step_s`` seconds.

    Step time = max((weights + batch × KV per sequence) ÷ (devices × bandwidth),
    2 × active params × batch ÷ (devices × peak)); both grow with the batch, so the answer is the
    floor of the smaller of the two bounds; 0 when even the weights take longer than the target.
    Memory is not checked: the batch a server can run is the smaller of this and
    ``max_batch_for_memory``.
    """
    _check_devices(devices)
    if target_step_s <= 0:
        raise ValueError("target_step_s must be positive")
    part = accelerator(acc)
    weights = weights_bytes(m, dt)
    per_sequence = _kv_per_sequence(m, context, dt, kv_dt)
    bandwidth = part.memory_bandwidth * devices
    peak = _compute_peak(part, dtype(dt)) * devices
    by_memory = (target_step_s * bandwidth - weights) / per_sequence
    by_compute = target_step_s * peak / model_flops_per_token(m)
    bound = min(by_memory, by_compute)
    if bound < 0:
        return 0
    return math.floor(bound + _FIT_TOLERANCE)


def _check_speculation(acceptance_rate: float, draft_tokens: int) -> None:
    if not 0 <= acceptance_rate <= 1:
        raise ValueError("acceptance_rate must be between 0 and 1")
    if draft_tokens < 0 or int(draft_tokens) != draft_tokens:
        raise ValueError("draft_tokens must be a whole number, 0 or more")


def speculative_expected_tokens(acceptance_rate: float, draft_tokens: int) -> float:
    """Tokens produced per target-model pass when a draft proposes ``draft_tokens`` (k) tokens,
    each accepted independently with probability ``acceptance_rate`` (a):
    (1 − a^(k+1)) ÷ (1 − a), which is k + 1 when a = 1 (Leviathan et al. 2023)."""
    _check_speculation(acceptance_rate, draft_tokens)
    if acceptance_rate == 1:
        return float(draft_tokens + 1)
    return (1 - acceptance_rate ** (draft_tokens + 1)) / (1 - acceptance_rate)


def speculative_speedup(
    acceptance_rate: float, draft_tokens: int, draft_cost_ratio: float
) -> float:
    """Speed-up of speculative decoding over plain decoding: expected tokens per pass ÷
    (k × c + 1), where c is the cost of one draft step relative to one target step.

    Assumes verifying k + 1 tokens costs one target step (true while decode is memory-bound)."""
    if draft_cost_ratio < 0:
        raise ValueError("draft_cost_ratio must not be negative")
    expected = speculative_expected_tokens(acceptance_rate, draft_tokens)
    return expected / (draft_tokens * draft_cost_ratio + 1)


def pipeline_bubble_fraction(stages: int, microbatches: int) -> float:
    """Fraction of a GPipe/1F1B schedule that each stage sits idle: (p − 1) ÷ (m + p − 1) for
    p stages and m microbatches (stages assumed equally fast)."""
    for name, value in (("stages", stages), ("microbatches", microbatches)):
        if value < 1 or int(value) != value:
            raise ValueError(f"{name} must be a whole number of at least 1")
    return (stages - 1) / (microbatches + stages - 1)

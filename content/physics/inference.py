"""LLM inference arithmetic: weight and KV-cache memory, decode and prefill times, GPU counts.

Decoding one token per sequence reads every weight once per step, so at small batch a decode step
is bound by memory bandwidth, not by FLOP/s.  Formulas assume a dense forward pass of 2 FLOP per
active parameter per token, attention FLOPs neglected, the KV cache read once per step, weights and
cache in the same ``dt`` unless stated, and peak rates (the roofline's optimistic bound).
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.dtypes import DType, dtype
from content.physics.catalog.models import Model, model
from content.physics.memory import (
    DEFAULT_UTILIZATION,
    FIT_TOLERANCE,
    min_gpus,
    usable_memory_bytes,
)
from content.physics.roofline import AcceleratorLike, DTypeLike

ModelLike = str | Model

# Kept for callers that imported it from here (serving.py).
_FIT_TOLERANCE = FIT_TOLERANCE


def _params(params: float | ModelLike) -> float:
    if isinstance(params, (int, float)) and not isinstance(params, bool):
        return params
    return model(params).params


def _compute_peak(part: Accelerator, dt: DType) -> float:
    """Peak FLOP/s for a forward pass with weights stored in ``dt``.

    Weight-only formats the part cannot compute in (nf4 anywhere, int4 on H100) are dequantized
    and multiplied at the part's 16-bit tensor rate.
    """
    try:
        return part.peak(dt)
    except KeyError:
        for fallback in ("bf16", "fp16", "fp32"):
            if fallback in part.peak_flops:
                return part.peak_flops[fallback]
        raise


def weights_bytes(params: float | ModelLike, dt: DTypeLike) -> float:
    """Bytes to hold the weights: params × bytes per parameter.

    ``params`` is a count or a model (its total parameters, all experts included).  Ignores
    quantization scales; see ``quantized_weights_bytes``.
    """
    return _params(params) * dtype(dt).bytes


def quantized_weights_bytes(
    m: ModelLike, dt: DTypeLike, group_size: int | None = 128, scale_bytes: float = 2
) -> float:
    """Weights in a group-quantized integer format: params × (bytes + scale_bytes ÷ group_size).

    Integer and codebook formats (int8, int4, nf4) store one ``scale_bytes`` scale (fp16 by
    default) per ``group_size`` weights: int4 with g=128 costs 4.125 bits per parameter.  Float
    formats and ``group_size=None`` carry no per-group scale.
    """
    params = model(m).params
    fmt = dtype(dt)
    if group_size is None or fmt.kind == "float":
        return params * fmt.bytes
    return params * (fmt.bytes + scale_bytes / group_size)


def kv_cache_bytes_per_token(m: ModelLike, dt: DTypeLike) -> float:
    """KV-cache bytes per token of one sequence: 2 (K and V) · layers · n_kv_heads · head_dim ·
    bytes.  Llama-2-13B in fp16: 2·40·40·128·2 = 819,200 bytes.

    Multi-head latent attention caches one latent per token and layer instead of keys and values
    per head: layers · (kv_lora_rank + qk_rope_head_dim) · bytes.  DeepSeek-V3 in bf16:
    61·(512 + 64)·2 = 70,272 bytes.  Scales of a quantized cache are not counted.
    """
    mdl, fmt = model(m), dtype(dt)
    if mdl.kv_lora_rank is not None:
        return mdl.layers * (mdl.kv_lora_rank + mdl.qk_rope_head_dim) * fmt.bytes
    return 2 * mdl.layers * mdl.n_kv_heads * mdl.head_dim * fmt.bytes


def kv_cache_tokens(m: ModelLike, context: float) -> float:
    """Tokens of one sequence the KV cache must hold: the context, capped by the model's sliding
    window (Mistral-7B: min(context, 4096)) when it has one."""
    window = model(m).sliding_window
    return min(context, window) if window else context


def kv_cache_bytes(
    m: ModelLike, tokens: float, dt: DTypeLike, batch: int = 1, *, window: bool = False
) -> float:
    """KV-cache bytes: 2 · layers · n_kv_heads · head_dim · bytes · tokens · batch (per-token
    bytes as ``kv_cache_bytes_per_token``, so latent attention is counted as such).

    ``tokens`` is the context length per sequence.  With ``window=True`` a model with a sliding
    window caches at most that many tokens (``kv_cache_tokens``); by default the whole context
    is counted.  No paging overhead.
    """
    held = kv_cache_tokens(m, tokens) if window else tokens
    return kv_cache_bytes_per_token(m, dt) * held * batch


def model_flops_per_token(m: ModelLike) -> float:
    """2 × active parameters per token, the lookup of the input embedding table included
    (attention's own FLOPs neglected): the plain "2P" of chapters 01-02's first estimates and
    of ``decode_step_time``.  A forward pass multiplies by fewer: ``forward_flops_per_token``."""
    return 2 * model(m).active_params


def forward_flops_per_token(m: ModelLike) -> float:
    """FLOPs one token costs in a forward pass, prefill or decode: 2 × the active parameters it
    multiplies, which leaves out the input embedding table (a lookup reads one row and
    multiplies nothing; the output head is a real matmul and is counted).  Kaplan et al.'s
    C ≈ 2N also leaves the embeddings out.  Llama-3-8B: 2 × (8.03 B − 128,256 × 4,096) =
    15.0 GFLOP, 6.5% below 2P.  The one count behind ``prefill_time`` and
    ``precision.decode_flops_per_token``; attention's own FLOPs neglected."""
    mdl = model(m)
    return 2 * (mdl.active_params - mdl.vocab_size * mdl.d_model)


def decode_step_time(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> float:
    """Seconds for one decode step of ``batch`` sequences at ``context`` tokens each:
    max(bytes read ÷ bandwidth, FLOPs ÷ peak), with bytes read = weights + KV cache of the batch
    and FLOPs = 2 × active params × batch.  One accelerator holding everything; KV in ``dt``.
    """
    part, fmt = accelerator(acc), dtype(dt)
    bytes_read = weights_bytes(m, fmt) + kv_cache_bytes(m, context, fmt, batch)
    flops = model_flops_per_token(m) * batch
    return max(bytes_read / part.memory_bandwidth, flops / _compute_peak(part, fmt))


def decode_tokens_per_second(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> float:
    """Generated tokens per second over the batch: batch ÷ decode step time."""
    return batch / decode_step_time(m, acc, dt, batch, context)


def time_per_token_floor(m: ModelLike, acc: AcceleratorLike, dt: DTypeLike) -> float:
    """The bandwidth floor on latency per token at batch 1: weights ÷ memory bandwidth.

    Llama-2-7B in fp16 on H100 SXM: 13.48 GB ÷ 3.35 TB/s ≈ 4.02 ms.
    """
    return weights_bytes(m, dt) / accelerator(acc).memory_bandwidth


def prefill_time(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, prompt_tokens: float, batch: int = 1
) -> float:
    """Seconds to process the prompt: max(forward FLOPs per token · tokens · batch ÷ peak,
    weights ÷ bandwidth), the FLOPs of ``forward_flops_per_token`` (the input table's lookup
    multiplies nothing, as in a decode pass).  All prompt tokens go through each weight in one
    pass, so prefill is usually compute-bound; attention's quadratic FLOPs are neglected.
    Llama-3-8B, 2,000 tokens on an H100 in bf16: 30.0 TFLOP ÷ 989 TFLOP/s = 30.3 ms.
    """
    part, fmt = accelerator(acc), dtype(dt)
    flops = forward_flops_per_token(m) * prompt_tokens * batch
    return max(flops / _compute_peak(part, fmt), weights_bytes(m, fmt) / part.memory_bandwidth)


def critical_batch_size(
    acc: AcceleratorLike, dt: DTypeLike, compute_dt: DTypeLike | None = None
) -> float:
    """Batch at which weight-bound decode turns compute-bound: ridge point × bytes per param ÷ 2.

    Each weight (``bytes`` bytes of ``dt``) read once per step serves 2 FLOP per sequence, so
    intensity is 2·batch ÷ bytes; setting it equal to the ridge point gives the batch.  The ridge
    is that of ``compute_dt``, the format the arithmetic runs in (default ``dt`` itself, W8A8
    style).  Weight-only formats compute in 16 bits, so the batch shrinks with the bytes: H100
    bf16 295; int4 weights with bf16 arithmetic 295 × 0.5 ÷ 2 ≈ 74.  KV traffic and dequantization
    cost ignored (both make decode turn compute-bound later or earlier respectively).
    """
    part, fmt = accelerator(acc), dtype(dt)
    rate = part.peak(dtype(compute_dt) if compute_dt is not None else fmt)
    return rate / part.memory_bandwidth * fmt.bytes / 2


def gpus_needed(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    context: float = 0,
    batch: int = 1,
    kv_dt: DTypeLike | None = None,
    *,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> int:
    """Accelerators needed to hold weights + KV cache (``batch`` sequences of ``context`` tokens,
    cache in ``kv_dt``, default ``dt``) at memory ``level``:
    min_gpus(weights + kv_cache, acc, level=level)."""
    total = weights_bytes(m, dt) + kv_cache_bytes(m, context, kv_dt or dt, batch)
    return min_gpus(total, acc, level=level, utilization=utilization)


def pipeline_stages(
    m: ModelLike,
    dt: DTypeLike,
    acc: AcceleratorLike,
    headroom: float = 0.9,
    *,
    level: str = "framework",
) -> int:
    """Pipeline stages needed when each accelerator may fill only ``headroom`` of its usable
    memory at ``level`` with weights (the rest for activations and KV cache):
    ceil(weights ÷ (headroom × usable_memory_bytes(acc, level, gpus=stages))), the smallest
    count that holds them (a split's serving budget per device is smaller than one's alone)."""
    if not 0 < headroom <= 1:
        raise ValueError("headroom must be in (0, 1]")
    weights = weights_bytes(m, dt)
    stages = 1
    while weights / (headroom * usable_memory_bytes(acc, level, gpus=stages)) > (
        stages + _FIT_TOLERANCE
    ):
        # Every count of 2 or more gets the same per-device budget, so this jumps straight there.
        usable = headroom * usable_memory_bytes(acc, level, gpus=stages + 1)
        stages = max(stages + 1, math.ceil(weights / usable - _FIT_TOLERANCE))
    return stages


def tensor_parallel_bytes_per_gpu(m: ModelLike, dt: DTypeLike, n: int) -> float:
    """Weight bytes on each of ``n`` tensor-parallel GPUs: weights ÷ n (even split assumed)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return weights_bytes(m, dt) / n


def quantization_speedup(
    m: ModelLike, acc: AcceleratorLike, from_dt: DTypeLike, to_dt: DTypeLike
) -> float:
    """Speed-up of the batch-1 decode floor from storing weights in ``to_dt`` instead of
    ``from_dt``: time_per_token_floor(from) ÷ time_per_token_floor(to) = bytes ratio.

    Holds while decode is memory-bound; dequantization cost and scales are ignored.
    """
    return time_per_token_floor(m, acc, from_dt) / time_per_token_floor(m, acc, to_dt)


def energy_per_token(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> float:
    """Joules per generated token: power × decode step time ÷ batch.

    Assumes the part draws its rated power (TDP) for the whole step; ValueError if unpublished.
    """
    part = accelerator(acc)
    if part.power_watts is None:
        raise ValueError(f"{part.name} has no published power figure")
    return part.power_watts * decode_step_time(m, part, dt, batch, context) / batch

"""The book's one forecast for a decode step: a recipe, checked once against a measurement.

Part 1 turns the floor of a decode step (bytes ÷ datasheet bandwidth) into a forecast in one way,
so that its chapters quote one number for one token:

1. **The recipe** (``decode_recipe_time``): the step's bytes (weights + every sequence's KV
   cache) at the bandwidth a streaming benchmark sustains (STREAM dot), or its FLOPs at the best
   measured matmul rate if that is longer (``forecast.forecast_kernel_time``'s ceilings; the
   datasheet peak where no matmul is measured), plus the launches of
   a plain implementation issued as one CUDA graph (``overhead.time_with_overhead``):
   layers × 12 + 4 kernels (``decode_kernels``).
2. **Its error** (``decode_recipe_error``): the recipe applied to the one published batch-one
   measurement, gpt-fast's compiled Llama-2-7B in bf16 on an A100 80 GB (power-capped at 330 W,
   a 5-token prompt, so no cache), predicts a faster token than was measured, by this fraction.
3. **The forecast** (``decode_forecast_time``): recipe × (1 + error).  The error is one
   empirical calibration, not a modelled cause: part of it is the input (the check's power-capped
   card streams about 1.70 TB/s, below the uncapped card's STREAM figure the recipe uses), the
   rest is what the recipe does not price (kernels ramping up and draining).  At batch it does
   not carry as a point: against TensorRT-LLM's batch-60 run on an A100 the recipe is fast and the
   forecast slow by about as much (``decode_batch_check``), so at batch the book quotes the range
   recipe..forecast (``decode_forecast_range``).

Chapter 00 states the method, chapter 01 derives the recipe's parts, chapter 02 applies it to
larger batches: each quotes this function.
"""

from __future__ import annotations

from content.physics.attention import attention_flops
from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.measured import measurement
from content.physics.catalog.models import model
from content.physics.forecast import achievable_bandwidth, achievable_flops
from content.physics.inference import ModelLike, kv_cache_bytes, weights_bytes
from content.physics.overhead import time_with_overhead
from content.physics.roofline import AcceleratorLike, DTypeLike

# Per decoder block: two norms, QKV projection, rotary embedding, KV-cache write, attention,
# output projection, two residual adds, gate-and-up projection, activation, down projection.
KERNELS_PER_LAYER = 12
# Embedding, final norm, LM head, sampling.
KERNELS_OUTSIDE_LAYERS = 4
CHECK_MEASUREMENT = "decode/gpt-fast-llama-2-7b-bf16"
BATCH_CHECK_MEASUREMENT = "serving/trtllm-llama-2-7b-a100-sxm-80gb-fp16-60x128x2048"
_CHECK_MODEL, _CHECK_PART, _CHECK_DTYPE = "llama-2-7b", "A100", "bf16"


def decode_kernels(m: ModelLike) -> int:
    """Kernels of one decode step of a plain implementation: layers × 12 + 4 (Llama-2-7B: 388)."""
    return model(m).layers * KERNELS_PER_LAYER + KERNELS_OUTSIDE_LAYERS


def _matmul_rate(acc: AcceleratorLike, dt: DTypeLike) -> float:
    """The best measured matmul rate in ``dt`` (fp16 shares bf16's tensor rate), or the datasheet
    peak where none is published.  At the batches Part 1 prices the compute term is a guard: a
    decode step of Llama-2-7B stays memory-bound on an H100 past a batch of 64."""
    name = dtype(dt).name
    for candidate in (name, "bf16") if name == "fp16" else (name,):
        try:
            return achievable_flops(acc, candidate)
        except KeyError:
            continue
    return accelerator(acc).peak(name)


def decode_recipe_time(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int = 1,
    context: float = 0,
    *,
    bandwidth: float | None = None,
) -> float:
    """Seconds for one decode step by the recipe, before its error is applied:
    time_with_overhead(forecast_kernel_time(2 · params · batch + attention FLOPs, weights + KV
    cache of ``batch`` sequences at ``context`` tokens), decode_kernels, "graph").  Llama-2-7B,
    fp16, H100, batch 1, context 0: 13.5 GB ÷ 3.18 TB/s + 388 × 0.58 µs + 15 µs ≈ 4.48 ms.
    ``bandwidth`` (B/s) replaces the STREAM figure, to price the bytes at another measured rate."""
    if isinstance(batch, bool) or int(batch) != batch or batch < 1:
        raise ValueError("batch must be a whole number of at least 1")
    if context < 0:
        raise ValueError("context must not be negative")
    if bandwidth is not None and not bandwidth > 0:
        raise ValueError("bandwidth must be positive")
    flops = 2 * model(m).params * batch
    nbytes = weights_bytes(m, dt)
    if context:
        flops += attention_flops(m, 1, context, batch)
        nbytes += kv_cache_bytes(m, context, dt, batch)
    gpu = max(flops / _matmul_rate(acc, dt), nbytes / (bandwidth or achievable_bandwidth(acc)))
    return time_with_overhead(gpu, decode_kernels(m), "graph")


def decode_recipe_error() -> float:
    """How much faster the recipe's token is than gpt-fast's measured one (Llama-2-7B, bf16,
    A100 80 GB at 330 W, batch one): recipe rate ÷ measured rate − 1, about 0.20."""
    recipe_rate = 1 / decode_recipe_time(_CHECK_MODEL, _CHECK_PART, _CHECK_DTYPE)
    return recipe_rate / measurement(CHECK_MEASUREMENT).value - 1


def decode_forecast_time(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> float:
    """The book's forecast for one decode step: decode_recipe_time × (1 + decode_recipe_error).
    Llama-2-7B, fp16, one H100, batch 1, 1,024 tokens of context: about 5.6 ms."""
    return decode_recipe_time(m, acc, dt, batch, context) * (1 + decode_recipe_error())


def decode_forecast_range(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> tuple[float, float]:
    """(recipe, forecast) seconds for one decode step: the range the book quotes at batch, where
    the batch-one correction is not known to hold (``decode_batch_check``)."""
    return (
        decode_recipe_time(m, acc, dt, batch, context),
        decode_forecast_time(m, acc, dt, batch, context),
    )


def decode_batch_check() -> tuple[float, float]:
    """(recipe error, forecast error) against TensorRT-LLM's batch-60 Llama-2-7B fp16 run on an
    A100 80 GB (128 tokens in, 2,048 out, so a mean context of 1,152): predicted rate ÷ measured
    rate − 1.  About +0.086 for the recipe and −0.095 for the forecast: at batch the batch-one
    correction overshoots by about as much as it corrects."""
    run = measurement(BATCH_CHECK_MEASUREMENT)
    batch, prompt, output = run.shape
    context = prompt + output / 2
    recipe, forecast = decode_forecast_range(_CHECK_MODEL, _CHECK_PART, run.dtype, batch, context)
    return batch / recipe / run.value - 1, batch / forecast / run.value - 1


__all__ = [
    "BATCH_CHECK_MEASUREMENT",
    "decode_batch_check",
    "decode_forecast_range",
    "KERNELS_PER_LAYER",
    "decode_forecast_time",
    "decode_kernels",
    "decode_recipe_error",
    "decode_recipe_time",
]

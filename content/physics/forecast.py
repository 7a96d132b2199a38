"""From floors to forecasts: the fractions of peak that measured kernels reach, and estimates
built from them.

A roofline time is a floor: max(FLOP ÷ peak, bytes ÷ bandwidth) at datasheet rates.  Real kernels
run below both peaks, by amounts that published measurements pin down (``catalog.measured``):
a STREAM kernel sustains 83-95% of an H100's or H200's HBM bandwidth; a large, well-shaped bf16
matrix product about 80% of the tensor-core peak, a small one far less.  A forecast divides each
floor by the fraction measured for work of its kind:

    t ≈ max(F ÷ (η_F · P), M ÷ (η_M · B))

Assumptions: the measured fraction of a similar kernel on the same part transfers (the same
shape, or a STREAM kernel for a streaming read); clocks as in the measurement; launch costs are
``overhead``'s business.  Fractions for parts without a measurement raise KeyError, naming the
parts that have one.
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.measured import MEASUREMENTS, measured_keys, measurement
from content.physics.inference import (
    ModelLike,
    forward_flops_per_token,
    kv_cache_bytes,
    weights_bytes,
)
from content.physics.precision import decode_flops_per_token, decode_weight_bytes
from content.physics.roofline import (
    AcceleratorLike,
    DTypeLike,
    matmul_bytes,
    matmul_flops,
)

STREAM_KERNELS = ("dot", "copy", "triad")


# fp8 variants share the fp8 tensor rate, and measurements are filed under the family's name.
_RATE_FAMILY = {"fp8-e4m3": "fp8", "fp8-e5m2": "fp8"}


def _rate_name(dt: DTypeLike) -> str:
    name = dtype(dt).name
    return _RATE_FAMILY.get(name, name)


def _missing(kind: str, wanted: str) -> KeyError:
    have = sorted({m.part for m in MEASUREMENTS.all() if m.kind == kind and m.part})
    return KeyError(f"no measured {wanted}; measured parts: {', '.join(have)}")


def achievable_bandwidth(acc: AcceleratorLike, kernel: str = "dot") -> float:
    """HBM bytes/s a STREAM ``kernel`` sustains on ``acc`` (catalog "<part>/stream-<kernel>").

    "dot" only reads, like a decode step streaming its weights; "copy" and "triad" also write.
    """
    part = accelerator(acc)
    if kernel not in STREAM_KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(STREAM_KERNELS)}")
    try:
        return measurement(f"{part.key}/stream-{kernel}").value
    except KeyError:
        raise _missing("stream", f"STREAM {kernel} bandwidth for {part.name}") from None


def bandwidth_efficiency(acc: AcceleratorLike, kernel: str = "dot") -> float:
    """Fraction of the datasheet bandwidth a STREAM ``kernel`` sustains: measured ÷ peak.
    H100 SXM dot: 3.18 ÷ 3.35 = 0.95."""
    return achievable_bandwidth(acc, kernel) / accelerator(acc).memory_bandwidth


def achievable_flops(acc: AcceleratorLike, dt: DTypeLike) -> float:
    """The maximum achievable matmul FLOP/s of ``acc`` in ``dt``: the best measured over a search
    of shapes (catalog "<part>/mamf-<dtype>"), 794.5 TFLOP/s for an H100 SXM in bf16."""
    part, name = accelerator(acc), _rate_name(dt)
    try:
        return measurement(f"{part.key}/mamf-{name}").value
    except KeyError:
        raise _missing("mamf", f"maximum achievable {name} matmul for {part.name}") from None


def _square_sizes(part_key: str, dt_name: str) -> list[int]:
    prefix = f"{part_key}/matmul-{dt_name}-"
    sizes = []
    for key in measured_keys(prefix):
        shape = key[len(prefix) :]
        m, _, rest = shape.partition("x")
        if "@" not in shape and rest == f"{m}x{m}":
            sizes.append(int(m))
    return sorted(sizes)


def matmul_efficiency(acc: AcceleratorLike, dt: DTypeLike, m: float, n: float, k: float) -> float:
    """Fraction of the dense peak a measured (m×k)·(k×n) product reaches on ``acc`` in ``dt``.

    A measured shape gives its own fraction.  Otherwise the fraction is interpolated between the
    two measured square products whose FLOP counts bracket 2mnk, linearly in log FLOPs, and held
    at the end values outside them: an estimate, since a skinny product of the same FLOPs can run
    far slower than a square one.  H100 SXM bf16: 0.65% at 256³, 24% at 1024³, 79% at 4096³.
    """
    part, name = accelerator(acc), _rate_name(dt)
    peak = part.peak(dt)
    if (m, n, k) == (int(m), int(n), int(k)):
        try:
            return measurement(f"{part.key}/matmul-{name}-{int(m)}x{int(n)}x{int(k)}").value / peak
        except KeyError:
            pass  # not measured: interpolate below
    sizes = _square_sizes(part.key, name)
    if not sizes:
        raise _missing("matmul", f"{name} matmul for {part.name}")
    target = math.log(matmul_flops(m, n, k))

    def fraction(size: int) -> tuple[float, float]:
        value = measurement(f"{part.key}/matmul-{name}-{size}x{size}x{size}").value
        return math.log(matmul_flops(size, size, size)), value / peak

    low = [s for s in sizes if math.log(matmul_flops(s, s, s)) <= target]
    high = [s for s in sizes if math.log(matmul_flops(s, s, s)) >= target]
    if not low:
        return fraction(sizes[0])[1]
    if not high:
        return fraction(sizes[-1])[1]
    (x0, y0), (x1, y1) = fraction(low[-1]), fraction(high[0])
    return y0 if x1 == x0 else y0 + (y1 - y0) * (target - x0) / (x1 - x0)


def wave_efficiency(
    m: float, n: float, acc: AcceleratorLike, tile_m: int = 128, tile_n: int = 128
) -> float:
    """Share of SM-time doing useful work when an m×n output is cut into tile_m × tile_n tiles
    run in waves of one tile per SM: tiles ÷ (waves × SMs), with tiles = ⌈m/tm⌉·⌈n/tn⌉ and
    waves = ⌈tiles ÷ SMs⌉.  4096² in 128² tiles on 132 SMs: 1024 ÷ (8 × 132) = 0.97.

    One fixed data-parallel tiling; libraries also split along k (split-K, stream-K) or keep
    tiles on persistent blocks, which recover part of what an empty last wave loses.
    """
    part = accelerator(acc)
    if part.kind != "gpu" or part.sm_count is None:
        raise ValueError(f"{part.name} has no published SM count: waves of tiles are a GPU model")
    if min(m, n, tile_m, tile_n) <= 0:
        raise ValueError("matrix and tile sides must be positive")
    tiles = math.ceil(m / tile_m) * math.ceil(n / tile_n)
    waves = math.ceil(tiles / part.sm_count)
    return tiles / (waves * part.sm_count)


def forecast_kernel_time(
    flops: float, bytes_moved: float, acc: AcceleratorLike, dt: DTypeLike, kernel: str = "dot"
) -> float:
    """The roofline time with measured ceilings: max(flops ÷ achievable FLOP/s, bytes ÷
    achievable bandwidth), the first the best measured matmul rate of ``acc`` in ``dt`` (its
    shape search), the second the STREAM ``kernel`` bandwidth.  A best case for well-shaped
    work: it charges neither launches (``overhead``) nor the waves of a small product
    (``forecast_matmul_time``).  1 GB read by an H100: 1e9 ÷ 3.18e12 = 314 µs."""
    if flops < 0 or bytes_moved < 0:
        raise ValueError("flops and bytes_moved must not be negative")
    return max(flops / achievable_flops(acc, dt), bytes_moved / achievable_bandwidth(acc, kernel))


def forecast_time(floor_s: float, fraction: float) -> float:
    """A floor turned into an estimate: floor ÷ achieved fraction (fraction in (0, 1])."""
    if floor_s < 0:
        raise ValueError("floor_s must not be negative")
    if not 0 < fraction <= 1:
        raise ValueError("fraction must be more than 0 and at most 1")
    return floor_s / fraction


def forecast_matmul_time(
    m: float,
    n: float,
    k: float,
    acc: AcceleratorLike,
    dt: DTypeLike,
    tile_m: int = 128,
    tile_n: int = 128,
) -> float:
    """Estimated seconds for an (m×k)·(k×n) product: max(FLOP ÷ (achievable FLOP/s × wave
    efficiency), minimum bytes ÷ achievable STREAM-dot bandwidth).

    The achievable rate is the best of a shape search, whose best shape fills its waves almost
    exactly; multiplying by this shape's wave efficiency charges it for its own last wave.
    H100 SXM, bf16, 4096³: 1.374e11 ÷ (794.5e12 × 0.970) = 178 µs, against 175 µs measured.
    """
    compute = matmul_flops(m, n, k) / (
        achievable_flops(acc, dt) * wave_efficiency(m, n, acc, tile_m, tile_n)
    )
    memory = matmul_bytes(m, n, k, dt) / achievable_bandwidth(acc)
    return max(compute, memory)


def _checked_run(batch: int, prompt_tokens: float, output_tokens: int) -> None:
    if isinstance(batch, bool) or int(batch) != batch or batch < 1:
        raise ValueError("batch must be a whole number of at least 1")
    if prompt_tokens < 1 or output_tokens < 1 or int(output_tokens) != output_tokens:
        raise ValueError("prompt_tokens must be at least 1 and output_tokens a whole number >= 1")


def forecast_batch_generation_time(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int,
    prompt_tokens: float,
    output_tokens: int,
    *,
    kv_dt: DTypeLike | None = None,
    rate_dt: DTypeLike | None = None,
    overlap: bool = True,
    by_kernel: bool = False,
) -> float:
    """Estimated seconds for a static batch of ``batch`` requests, each ``prompt_tokens`` in and
    ``output_tokens`` out, on one ``acc``: one prefill (which emits the first token) plus
    output − 1 decode steps, each charged at measured ceilings.

    Prefill: forward FLOPs per token · prompt · batch against the weights' bytes
    (``inference.prefill_time``'s count, the input table's lookup left out); a decode step:
    the same FLOPs per token × batch against the weights a pass reads
    (``precision.decode_weight_bytes``, all but the input embedding table) + the batch's KV cache
    (in ``kv_dt``, default ``dt``) at the mean context of the steps, prompt + output ÷ 2 (exact
    for the bytes, which grow linearly): the decode count of chapter 03 and ``serving``.  FLOP/s
    is the best measured matmul rate in ``rate_dt`` (default ``dt``; the A100's fp16 and bf16 share
    one tensor rate), bytes/s the STREAM dot rate.  ``overlap=True`` takes the larger of the two
    times per phase (the roofline's perfect overlap), ``False`` their sum (no overlap): a batch
    whose two times are close lands between them.  ``by_kernel=True`` (overrides ``overlap``)
    prices a decode step as ``serving.decode_pass_time_by_kernel`` does, at the measured rates:
    the matmuls take max(arithmetic, weights' read), the attention kernels the caches' read, and
    the two add; prefill is one set of matmuls, max of its two times.  Attention FLOPs, launches,
    sampling and scheduling are not charged.
    """
    _checked_run(batch, prompt_tokens, output_tokens)
    rate = achievable_flops(acc, rate_dt or dt)
    bandwidth = achievable_bandwidth(acc)
    combine = max if overlap else (lambda a, b: a + b)
    weights = weights_bytes(m, dt)
    per_token = forward_flops_per_token(m)
    if by_kernel:
        combine = max
    prefill = combine(per_token * prompt_tokens * batch / rate, weights / bandwidth)
    context = prompt_tokens + output_tokens / 2
    cache = kv_cache_bytes(m, context, kv_dt or dt, batch)
    if by_kernel:
        matmuls = max(
            decode_flops_per_token(m) * batch / rate, decode_weight_bytes(m, dt) / bandwidth
        )
        return prefill + (output_tokens - 1) * (matmuls + cache / bandwidth)
    step = combine(
        decode_flops_per_token(m) * batch / rate,
        (decode_weight_bytes(m, dt) + cache) / bandwidth,
    )
    return prefill + (output_tokens - 1) * step


def forecast_output_throughput(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int,
    prompt_tokens: float,
    output_tokens: int,
    *,
    kv_dt: DTypeLike | None = None,
    rate_dt: DTypeLike | None = None,
    overlap: bool = True,
    by_kernel: bool = False,
) -> float:
    """Output tokens per second of a static batch, as serving benchmarks report it:
    batch × output ÷ ``forecast_batch_generation_time``.  Llama-2-7B in fp16 on an A100 SXM,
    60 requests of 128 in and 2,048 out: 60 × 2048 ÷ 58.2 s ≈ 2,110 tokens/s."""
    seconds = forecast_batch_generation_time(
        m,
        acc,
        dt,
        batch,
        prompt_tokens,
        output_tokens,
        kv_dt=kv_dt,
        rate_dt=rate_dt,
        overlap=overlap,
        by_kernel=by_kernel,
    )
    return batch * output_tokens / seconds


__all__ = [
    "STREAM_KERNELS",
    "achievable_bandwidth",
    "achievable_flops",
    "bandwidth_efficiency",
    "forecast_batch_generation_time",
    "forecast_kernel_time",
    "forecast_matmul_time",
    "forecast_output_throughput",
    "forecast_time",
    "matmul_efficiency",
    "wave_efficiency",
]

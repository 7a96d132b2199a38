"""Serving many users: how large a batch fits, how large a batch meets a latency target, what
speculative decoding buys, how much of a pipeline sits idle, and the serving system around the
model: a request's latency, chunked prefill, paged and prefix-shared KV caches, and the balance
of a prefill/decode-disaggregated deployment.

A decode pass reads the weights a pass reads (``precision.decode_weight_bytes``: every weight
but the input embedding table, of which it reads one row per token) and the whole KV cache of the
batch once, and does 2 FLOP per parameter it multiplies per token
(``precision.decode_flops_per_token``), at peak rates: the count chapter 03 uses for its floors,
so a helper's pass and the book's agree.  Memory fits count the whole checkpoint
(``inference.weights_bytes``).  With ``devices`` > 1 the weights and cache are split evenly and
the devices' bandwidths and peaks add up (communication ignored).  Memory is the usable memory at
a stated level (``memory.LEVELS``; "serving", vLLM's budget, by default).
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.measured import measurement
from content.physics.inference import (
    _FIT_TOLERANCE,
    ModelLike,
    _compute_peak,
    kv_cache_bytes,
    prefill_time,
    weights_bytes,
)
from content.physics.memory import DEFAULT_UTILIZATION, runtime_total_bytes, usable_memory_bytes
from content.physics.precision import decode_flops_per_token, decode_weight_bytes
from content.physics.roofline import AcceleratorLike, DTypeLike


def _decode_pass_time(m, part, fmt, batch: int, context: float) -> float:
    """One decode pass of ``batch`` sequences at ``context`` tokens on one device: max((decode
    weight bytes + the batch's cache) ÷ bandwidth, decode FLOPs per token × batch ÷ peak)."""
    read = decode_weight_bytes(m, fmt) + kv_cache_bytes(m, context, fmt, batch)
    flops = decode_flops_per_token(m) * batch
    return max(read / part.memory_bandwidth, flops / _compute_peak(part, fmt))


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
    runtime's total, less the engine's activation peak and buffers, more of them once the model
    is split: ``usable_memory_bytes(acc, gpus=devices)``); paged caches waste little.  Memory
    only: a default server also stops at ``serving_batch_cap(acc)`` sequences."""
    _check_devices(devices)
    capacity = usable_memory_bytes(acc, level, gpus=devices, utilization=utilization) * devices
    weights = weights_bytes(m, dt)
    per_sequence = _kv_per_sequence(m, context, dt, kv_dt)
    if weights > capacity * (1 + _FIT_TOLERANCE):
        return 0
    return max(0, math.floor((capacity - weights) / per_sequence + _FIT_TOLERANCE))


# vLLM's get_batch_defaults: the larger cap on a GPU whose total is at least 70 GiB and whose
# name does not contain "a100" (the catalog's "vllm-batch-defaults" source).
_LARGE_GPU_BYTES = 70 * 2**30


def serving_batch_cap(acc: AcceleratorLike) -> int:
    """The most sequences a default vLLM server schedules at once on ``acc`` (its default
    ``max_num_seqs``, catalog "vllm/max-num-seqs-large", 1024, on a GPU that reports at least
    70 GiB to programs and is not an A100; "vllm/max-num-seqs", 256, otherwise), whatever memory
    is left.  One engine per model, so a model split over several GPUs has the same cap."""
    part = accelerator(acc)
    large = runtime_total_bytes(part) >= _LARGE_GPU_BYTES and "a100" not in part.name.lower()
    return int(measurement("vllm/max-num-seqs-large" if large else "vllm/max-num-seqs").value)


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

    Step time = max((decode weight bytes + batch × KV per sequence) ÷ (devices × bandwidth),
    decode FLOPs per token × batch ÷ (devices × peak)), the weights a pass reads (all but the
    input embedding table) and the FLOPs it does; both grow with the batch, so the answer is the
    floor of the smaller of the two bounds; 0 when even the weights take longer than the target.
    Memory is not checked: the batch a server can run is the smaller of this and
    ``max_batch_for_memory``.
    """
    _check_devices(devices)
    if target_step_s <= 0:
        raise ValueError("target_step_s must be positive")
    part = accelerator(acc)
    weights = decode_weight_bytes(m, dtype(dt))
    per_sequence = _kv_per_sequence(m, context, dt, kv_dt)
    bandwidth = part.memory_bandwidth * devices
    peak = _compute_peak(part, dtype(dt)) * devices
    by_memory = (target_step_s * bandwidth - weights) / per_sequence
    by_compute = target_step_s * peak / decode_flops_per_token(m)
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


# The serving system: a request's latency, chunked prefill, paged and shared KV caches,
# prefill/decode disaggregation, speculation at batch size B.


def _check_batch(batch: int) -> None:
    if isinstance(batch, bool) or batch < 1 or int(batch) != batch:
        raise ValueError("batch must be a whole number of at least 1")


def _check_tokens(name: str, value: float, *, minimum: float = 1) -> None:
    if isinstance(value, bool) or value < minimum or value != value:
        raise ValueError(f"{name} must be at least {minimum:g}")


def request_latency(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
    output_tokens: int,
    batch: int = 1,
    context: float = 0,
) -> float:
    """Seconds from a request's arrival to its last token, with nothing queued:
    prefill (which emits the first output token) + (output − 1) decode passes of the batch it
    joins, each reading the decode weight bytes and the batch's cache at ``context``.

    Time to first token is the first term, time per output token the step."""
    _check_tokens("output_tokens", output_tokens)
    _check_tokens("prompt_tokens", prompt_tokens)
    step = _decode_pass_time(m, accelerator(acc), dtype(dt), batch, context)
    return prefill_time(m, acc, dt, prompt_tokens) + (output_tokens - 1) * step


def free_prefill_chunk(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int = 1,
    context: float = 0,
    *,
    by_kernel: bool = False,
) -> float:
    """Prompt tokens a memory-bound decode step can absorb before it turns compute-bound:
    the step's memory time (decode weight bytes + the batch's cache) × peak ÷ decode FLOPs per
    token − batch (0 if already compute-bound).

    Chunked prefill (Sarathi-Serve) adds at most this many prompt tokens to each step without
    slowing the users already being served.  ``by_kernel``: the step's kernels run one after
    another, and the caches are read by the attention kernels, which the prompt's matmuls do not
    share; only the weights' read hides arithmetic, so the memory time is the weights' alone
    (eighth review of 03-05, H-1)."""
    _check_batch(batch)
    part, fmt = accelerator(acc), dtype(dt)
    cache = 0 if by_kernel else kv_cache_bytes(m, context, fmt, batch)
    memory = (decode_weight_bytes(m, fmt) + cache) / part.memory_bandwidth
    return max(0.0, memory * _compute_peak(part, fmt) / decode_flops_per_token(m) - batch)


# The most steps `chunked_prefill_ttft` sums one by one.
MAX_PREFILL_CHUNKS = 10_000


def chunked_prefill_ttft(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
    chunk: float,
    batch: int = 1,
    context: float = 0,
    *,
    by_kernel: bool = False,
) -> float:
    """Time to first token of a prompt fed ``chunk`` tokens per decode step of a running batch:
    the sum over ⌈prompt ÷ chunk⌉ steps of max(bytes ÷ bandwidth, FLOPs ÷ peak), where step i
    reads the decode weight bytes, the batch's caches and the i − 1 chunks of this prompt already
    cached, and computes batch + chunk tokens at the decode FLOPs per token.

    The new request pays with its first token; the users already served wait no longer while
    chunk ≤ ``free_prefill_chunk``.  The time is summed step by step, so the steps are capped
    at ``MAX_PREFILL_CHUNKS`` (a million-token prompt in chunks of 100 tokens).  ``by_kernel``:
    each step is priced as ``decode_pass_time_by_kernel`` prices it, the matmuls' bound plus the
    attention kernels' cache read."""
    _check_tokens("prompt_tokens", prompt_tokens)
    _check_tokens("chunk", chunk)
    _check_batch(batch)
    if not math.isfinite(prompt_tokens):
        raise ValueError("prompt_tokens must be finite")
    steps = math.ceil(prompt_tokens / chunk)
    if steps > MAX_PREFILL_CHUNKS:
        raise ValueError(
            f"{steps:,} chunks of {chunk:g} tokens; at most {MAX_PREFILL_CHUNKS:,} are summed"
        )
    part, fmt = accelerator(acc), dtype(dt)
    peak = _compute_peak(part, fmt)
    base = decode_weight_bytes(m, fmt) + kv_cache_bytes(m, context, fmt, batch)
    total = 0.0
    for i in range(steps):
        done = min(i * chunk, prompt_tokens)
        piece = min(chunk, prompt_tokens - done)
        read = base + kv_cache_bytes(m, done, fmt, 1)
        flops = decode_flops_per_token(m) * (batch + piece)
        if by_kernel:
            weights = decode_weight_bytes(m, fmt)
            total += max(weights / part.memory_bandwidth, flops / peak)
            total += (read - weights) / part.memory_bandwidth
        else:
            total += max(read / part.memory_bandwidth, flops / peak)
    return total


def decode_pass_time_by_kernel(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int = 1,
    context: float = 0,
    extra_tokens: float = 0,
) -> float:
    """Roofline time of one decode pass priced kernel by kernel: the matmuls (projections and
    MLP) read the weights and compute every token of the pass, batch + ``extra_tokens`` (prompt
    tokens of a chunk, or a verification pass's extra positions), so they take
    max(weight bytes ÷ bandwidth, tokens × decode FLOPs per token ÷ peak); the attention
    kernels read the batch's caches, ``context`` tokens each, at 4 FLOP per byte or so, and take
    cache bytes ÷ bandwidth.  The kernels run one after another, so their times add.

    Pricing the whole pass as one roofline point (``kernel_time`` of its total FLOPs and bytes)
    lets cache reads hide matmul arithmetic they never run beside (eighth review of 03-05, H-1).
    Attention arithmetic of the extra tokens is left out, as ``decode_flops_per_token`` leaves
    it out."""
    _check_batch(batch)
    _check_tokens("extra_tokens", extra_tokens, minimum=0)
    _check_tokens("context", context, minimum=0)
    part, fmt = accelerator(acc), dtype(dt)
    flops = decode_flops_per_token(m) * (batch + extra_tokens)
    matmuls = max(
        decode_weight_bytes(m, fmt) / part.memory_bandwidth, flops / _compute_peak(part, fmt)
    )
    return matmuls + kv_cache_bytes(m, context, fmt, batch) / part.memory_bandwidth


def paged_kv_waste_fraction(tokens: float, block_tokens: int = 16) -> float:
    """Share of a sequence's paged KV cache that holds no token: the unfilled end of its last
    block, (⌈tokens ÷ block⌉ · block − tokens) ÷ (⌈tokens ÷ block⌉ · block).  vLLM allocates
    16-token blocks by default."""
    _check_tokens("tokens", tokens)
    _check_tokens("block_tokens", block_tokens)
    allocated = math.ceil(tokens / block_tokens) * block_tokens
    return (allocated - tokens) / allocated


def reserved_kv_waste_fraction(tokens: float, reserved_tokens: float) -> float:
    """Share of a contiguous KV reservation that holds no token when a server reserves
    ``reserved_tokens`` (the maximum length) for a sequence that uses ``tokens``."""
    _check_tokens("tokens", tokens)
    if reserved_tokens < tokens:
        raise ValueError("reserved_tokens must be at least tokens")
    return 1 - tokens / reserved_tokens


def prefix_cache_prefill_time(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
    cached_tokens: float,
) -> float:
    """Prefill time when the first ``cached_tokens`` of the prompt hit a prefix cache: only the
    rest is computed, ``prefill_time(prompt − cached)``; the cached KV blocks are reused as
    they are (attention over them is neglected, like all attention FLOPs here)."""
    _check_tokens("prompt_tokens", prompt_tokens)
    if not 0 <= cached_tokens < prompt_tokens:
        raise ValueError("cached_tokens must be at least 0 and below prompt_tokens")
    return prefill_time(m, acc, dt, prompt_tokens - cached_tokens)


def prefill_to_decode_gpu_ratio(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
    output_tokens: int,
    batch: int,
    context: float,
) -> float:
    """GPUs of prefill per GPU of decode that keep a disaggregated system balanced (DistServe,
    Splitwise): prefill GPU-seconds per request ÷ decode GPU-seconds per request =
    prefill_time(prompt) ÷ ((output − 1) × decode pass(batch, context) ÷ batch), the pass
    charged as every serving helper charges it (decode weight bytes and the batch's cache).

    Prefill is charged at one request per pass (compute-bound, so batching prompts does not
    shorten it); decode shares each step among the batch."""
    _check_tokens("output_tokens", output_tokens, minimum=2)
    _check_batch(batch)
    step = _decode_pass_time(m, accelerator(acc), dtype(dt), batch, context)
    decode = (output_tokens - 1) * step / batch
    return prefill_time(m, acc, dt, prompt_tokens) / decode


def speculative_speedup_at_batch(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    acceptance_rate: float,
    draft_tokens: int,
    draft_cost_ratio: float,
    batch: int = 1,
    context: float = 0,
    draft_cache_ratio: float | None = None,
    *,
    by_kernel: bool = False,
) -> float:
    """Speed-up of speculative decoding for a batch of ``batch`` sequences: expected tokens per
    pass × plain pass ÷ (verification pass + k × draft step).

    The verification pass computes (k + 1) × batch positions while reading the weights and
    caches once: max(bytes ÷ bandwidth, decode FLOPs per token × (k + 1) × batch ÷ peak).  The
    draft's cost c (``draft_cost_ratio``) is its share of an empty pass: its weights ÷ the
    weights a pass reads, and its FLOPs likewise.  Its cache is its own: each draft step reads
    ``draft_cache_ratio`` of the batch's cache (1 ÷ layers for a one-layer draft head such as an
    MTP module or EAGLE's; by default c, a draft shaped like a small copy of the model).  So the
    draft step is max((c × weights + f × cache) ÷ bandwidth, c × FLOPs ÷ peak): a long cache
    lengthens the model's pass far more than the draft's, and speculation gains from it.  At
    batch 1 and no context this is ``speculative_speedup``; past the critical batch the
    verification pass is compute-bound and the gain fades, then turns into a loss.

    ``by_kernel``: each pass and draft step is priced as ``decode_pass_time_by_kernel`` prices
    it, the matmuls' max(weights, arithmetic) plus the attention kernels' cache read: the
    (k + 1) × batch positions load the matmuls, which the caches do not keep memory-bound
    (eighth review of 03-05, H-E1)."""
    if draft_cost_ratio < 0:
        raise ValueError("draft_cost_ratio must not be negative")
    if draft_cache_ratio is not None and not 0 <= draft_cache_ratio <= 1:
        raise ValueError("draft_cache_ratio must be between 0 and 1")
    _check_batch(batch)
    expected = speculative_expected_tokens(acceptance_rate, draft_tokens)
    part, fmt = accelerator(acc), dtype(dt)
    c = draft_cost_ratio
    f = c if draft_cache_ratio is None else draft_cache_ratio
    weights = decode_weight_bytes(m, fmt)
    cache = kv_cache_bytes(m, context, fmt, batch)
    flops = decode_flops_per_token(m) * batch
    peak = _compute_peak(part, fmt)
    if by_kernel:
        bw = part.memory_bandwidth
        plain = max(weights / bw, flops / peak) + cache / bw
        verify = max(weights / bw, flops * (draft_tokens + 1) / peak) + cache / bw
        draft = max(c * weights / bw, c * flops / peak) + f * cache / bw
        return expected * plain / (verify + draft_tokens * draft)
    plain = max((weights + cache) / part.memory_bandwidth, flops / peak)
    verify = max((weights + cache) / part.memory_bandwidth, flops * (draft_tokens + 1) / peak)
    draft = max((c * weights + f * cache) / part.memory_bandwidth, c * flops / peak)
    return expected * plain / (verify + draft_tokens * draft)

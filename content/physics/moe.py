"""Serving mixture-of-experts models: which experts a batch touches, what a decode step reads,
the larger critical batch, load imbalance between experts, and node-limited expert dispatch.

Routing is modelled as uniform and independent: each token picks ``top_k`` of ``experts``
routed experts, each expert equally likely.  Real routers prefer some experts (DeepSeek
duplicates its busiest ones, "redundant experts"), which only sharpens the imbalance below.
Shared experts, dense layers, attention and the output head are read by every step whatever the
batch, and of the input embedding table the rows of the batch's tokens (``decode_weight_bytes``,
the one count of what a decode pass reads, which also keeps the tables in 16 bits where a
deployed checkpoint does).
"""

from __future__ import annotations

import math
from statistics import NormalDist

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.models import Model, model
from content.physics.inference import (
    ModelLike,
    _compute_peak,
    critical_batch_size,
    kv_cache_bytes,
)
from content.physics.precision import FormatLike, decode_weight_bytes, format_bits_per_weight
from content.physics.roofline import AcceleratorLike, DTypeLike


def _moe(m: ModelLike) -> Model:
    mdl = model(m)
    if mdl.experts <= 1:
        raise ValueError(f"{mdl.name} is a dense model: it has no routed experts")
    return mdl


def _check_tokens(tokens: float) -> None:
    if isinstance(tokens, bool) or tokens < 0 or tokens != tokens:
        raise ValueError("tokens must not be negative")


def expert_params(m: ModelLike) -> int:
    """Parameters of one routed expert in one layer: 3 · d_model · expert width (gate, up and
    down projections)."""
    mdl = _moe(m)
    return 3 * mdl.d_model * (mdl.moe_ffn_dim or mdl.ffn_dim)


def routed_params(m: ModelLike) -> int:
    """Parameters of all routed experts: expert layers × experts × ``expert_params``.  The rest
    of the model (attention, shared experts, dense layers, embeddings, routers) is read by every
    token."""
    mdl = _moe(m)
    return (mdl.layers - mdl.dense_layers) * mdl.experts * expert_params(mdl)


def experts_touched(tokens: float, experts: int, top_k: int) -> float:
    """Expected number of distinct experts (of one layer) that ``tokens`` tokens route to:
    E · (1 − (1 − k/E)^T), uniform independent routing."""
    _check_tokens(tokens)
    if experts < 1 or not 1 <= top_k <= experts:
        raise ValueError("need experts ≥ 1 and 1 ≤ top_k ≤ experts")
    return experts * (1 - (1 - top_k / experts) ** tokens)


def moe_shared_weight_bytes(m: ModelLike, fmt: FormatLike) -> float:
    """Weight bytes every decode step reads whatever its batch: ``decode_weight_bytes`` (the
    output head in full, one input-embedding row per token, both tables in 16 bits where the
    format keeps them) less the routed experts, in ``fmt``."""
    mdl = _moe(m)
    return decode_weight_bytes(mdl, fmt) - routed_params(mdl) * format_bits_per_weight(fmt) / 8


def moe_decode_weight_bytes(m: ModelLike, dt: FormatLike, batch: int) -> float:
    """Weight bytes one decode step of ``batch`` sequences reads: ``moe_shared_weight_bytes``
    plus the experts the batch touches in each expert layer (``experts_touched(batch)`` ×
    ``expert_params``), in ``dt``.  At batch 1 this is about the active parameters (less the
    input embedding table); as the batch grows it approaches the whole checkpoint."""
    mdl = _moe(m)
    if isinstance(batch, bool) or batch < 1:
        raise ValueError("batch must be at least 1")
    touched = experts_touched(batch, mdl.experts, mdl.experts_per_token)
    experts = (mdl.layers - mdl.dense_layers) * touched * expert_params(mdl)
    return moe_shared_weight_bytes(mdl, dt) + experts * format_bits_per_weight(dt) / 8


def moe_decode_step_time(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, batch: int = 1, context: float = 0
) -> float:
    """One decode step of an MoE model on one accelerator: max((weights the batch touches + KV)
    ÷ bandwidth, 2 · active params · batch ÷ peak)."""
    mdl, part, fmt = _moe(m), accelerator(acc), dtype(dt)
    read = moe_decode_weight_bytes(mdl, fmt, batch) + kv_cache_bytes(mdl, context, fmt, batch)
    flops = 2 * mdl.active_params * batch
    return max(read / part.memory_bandwidth, flops / _compute_peak(part, fmt))


def moe_critical_batch(
    m: ModelLike, acc: AcceleratorLike, dt: DTypeLike, compute_dt: DTypeLike | None = None
) -> float:
    """Batch (tokens per step) at which each routed expert's matmuls turn compute-bound:
    B_crit × experts ÷ top_k.

    Each expert sees only top_k ÷ experts of the batch, so it needs that many times the dense
    critical batch before its weight reads are shared enough: Mixtral ×4, DeepSeek-V3 ×32."""
    mdl = _moe(m)
    return critical_batch_size(acc, dt, compute_dt) * mdl.experts / mdl.experts_per_token


def expert_load_imbalance(tokens: float, experts: int, top_k: int) -> float:
    """Expected load of the busiest expert over the mean load, for ``tokens`` tokens routed
    uniformly: 1 + z_E · σ ÷ μ, with μ = T k ÷ E, σ² = T (k/E)(1 − k/E) and z_E the expected
    largest of E standard normal draws, Φ⁻¹((E − 0.375) ÷ (E + 0.25)) (Blom's approximation).

    The normal approximation to the largest of E binomial loads: within a few percent of a
    simulation once μ is ten tokens or more, and low for smaller μ.  An expert-parallel step
    waits for its busiest GPU, so this is the factor by which uniform routing alone stretches
    it; real routers, which prefer some experts, stretch it more."""
    _check_tokens(tokens)
    if experts < 2 or not 1 <= top_k < experts:
        raise ValueError("need experts ≥ 2 and 1 ≤ top_k < experts")
    if tokens == 0:
        raise ValueError("tokens must be positive")
    p = top_k / experts
    mean = tokens * p
    sd = math.sqrt(tokens * p * (1 - p))
    z = NormalDist().inv_cdf((experts - 0.375) / (experts + 0.25))
    return 1 + z * sd / mean


def node_limited_dispatch_bytes(
    tokens: float, d_model: int, dt: DTypeLike, nodes_per_token: int, nodes: int
) -> float:
    """Bytes a GPU sends across the network in one expert dispatch when each token may reach at
    most ``nodes_per_token`` of ``nodes`` servers and is sent once per server (then forwarded to
    the right GPUs over NVLink), as DeepSeek-V3 routes: tokens × M × d × bytes × (N − 1) ÷ N,
    with M = min(nodes_per_token, nodes) and the tokens bound for the sender's own server left
    off."""
    _check_tokens(tokens)
    if nodes < 1 or nodes_per_token < 1:
        raise ValueError("nodes and nodes_per_token must be at least 1")
    reached = min(nodes_per_token, nodes)
    return tokens * reached * d_model * dtype(dt).bytes * (nodes - 1) / nodes


def all_to_all_pass_time(
    tokens_per_gpu: float,
    micro_batches: int,
    moe_layers: int,
    bench_tokens: float,
    bench_seconds: float,
    latency_share: float,
) -> float:
    """Seconds a decode pass spends in expert all-to-all, scaled from a benchmark that timed one
    dispatch plus one combine (``bench_seconds``) at ``bench_tokens`` tokens per GPU.

    The pass splits its ``tokens_per_gpu`` into ``micro_batches`` and runs both exchanges per
    MoE layer for each.  ``latency_share`` is the part of the benchmark's time that does not
    shrink with fewer tokens: 0 when the kernels are bandwidth-bound (time ∝ bytes, so the
    split costs nothing), 1 when they are latency-bound (every micro-batch pays the benchmark's
    full time).  A benchmark at one shape cannot tell the two apart, so quote both ends."""
    _check_tokens(tokens_per_gpu)
    if micro_batches < 1 or moe_layers < 1 or bench_tokens <= 0 or bench_seconds < 0:
        raise ValueError("need micro_batches, moe_layers ≥ 1, bench_tokens > 0, bench_seconds ≥ 0")
    if not 0 <= latency_share <= 1:
        raise ValueError("latency_share must lie between 0 and 1")
    per_micro_batch = tokens_per_gpu / micro_batches
    scale = latency_share + (1 - latency_share) * per_micro_batch / bench_tokens
    return micro_batches * moe_layers * bench_seconds * scale

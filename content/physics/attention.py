"""Attention on the roofline: its FLOPs, the intensity of decode attention, FlashAttention's HBM
traffic, and how much smaller each attention variant makes the KV cache.

Per layer and head, attention computes scores S = QKᵀ (2·d_qk FLOP per query-key pair) and the
output P·V (2·d_v per pair).  At decode one query meets every cached token, and each token's keys
and values are read once for it: the intensity does not grow with the batch, because every
sequence reads its own cache.  Grouped-query attention lets h ÷ h_kv query heads share one cached
head and multiplies the intensity by that factor; multi-head latent attention (DeepSeek) caches
one latent shared by every head and, in the absorbed form its decode kernels use, scores the
queries against it directly.

Assumptions: FLOPs count QKᵀ and PV only (softmax, masking and projections elsewhere); causal
masking is not exploited by ``attention_flops`` (``causal_attention_flops`` counts only the pairs a
causal decoder needs, about half at prefill); bytes are those of the cache or of Q, K, V, S, P and
O in ``dt``.
"""

from __future__ import annotations

import math

from content.physics.catalog.dtypes import dtype
from content.physics.catalog.models import Model, model
from content.physics.inference import ModelLike, kv_cache_bytes_per_token
from content.physics.roofline import DTypeLike


def _dims(mdl: Model) -> tuple[int, int]:
    """(d_qk, d_v) per head as attention runs at decode: head_dim each, or for latent attention
    in absorbed form the latent (+ rotary key) for scores and the latent for values."""
    if mdl.kv_lora_rank is not None:
        return mdl.kv_lora_rank + mdl.qk_rope_head_dim, mdl.kv_lora_rank
    return mdl.head_dim, mdl.head_dim


def _check_tokens(**counts: float) -> None:
    for name, value in counts.items():
        if value < 0:
            raise ValueError(f"{name} must not be negative")


def attention_flops(
    m: ModelLike, query_tokens: float, context_tokens: float, batch: int = 1
) -> float:
    """FLOPs of QKᵀ and PV over every layer: 2 · layers · heads · (d_qk + d_v) · queries ·
    context · batch.  One decode token of Llama-2-7B at a 4096-token context:
    2·32·32·256·4096 = 2.1 GFLOP, beside 13.5 GFLOP in its weights."""
    _check_tokens(query_tokens=query_tokens, context_tokens=context_tokens, batch=batch)
    mdl = model(m)
    d_qk, d_v = _dims(mdl)
    return 2 * mdl.layers * mdl.n_heads * (d_qk + d_v) * query_tokens * context_tokens * batch


def causal_attention_flops(
    m: ModelLike, query_tokens: float, context_tokens: float, batch: int = 1
) -> float:
    """``attention_flops`` counting only the pairs a causal decoder needs: the queries are the
    last ``query_tokens`` of the context, and each meets its own key and every earlier one, so
    q·(c − q) + q·(q + 1)/2 pairs.  A 1,024-token prompt of Llama-2-7B (q = c = 1,024) does
    1,024·1,025/2 pairs, 0.5005 of the 1,024² ``attention_flops`` counts; one decode token
    (q = 1) meets the whole context, as there."""
    _check_tokens(query_tokens=query_tokens, context_tokens=context_tokens, batch=batch)
    if query_tokens > context_tokens:
        raise ValueError("query_tokens must not exceed context_tokens")
    q, c = query_tokens, context_tokens
    pairs = q * (c - q) + q * (q + 1) / 2
    mdl = model(m)
    d_qk, d_v = _dims(mdl)
    return 2 * mdl.layers * mdl.n_heads * (d_qk + d_v) * pairs * batch


def decode_attention_intensity(m: ModelLike, dt: DTypeLike) -> float:
    """FLOP per byte of KV cache read by decode attention: 2·heads·(d_qk + d_v) per cached token
    and layer ÷ that token's cache bytes per layer.  For ordinary and grouped-query attention
    this is 2·(heads ÷ kv_heads) ÷ bytes: 1 for Llama-2-7B in bf16, 8 for Llama-3-70B; for
    DeepSeek-V3's latent attention 242.  Independent of batch and context."""
    mdl = model(m)
    d_qk, d_v = _dims(mdl)
    flops = 2 * mdl.n_heads * (d_qk + d_v)
    return flops / (kv_cache_bytes_per_token(mdl, dt) / mdl.layers)


def kv_cache_bytes_per_token_mha(m: ModelLike, dt: DTypeLike) -> float:
    """What the same model would cache per token with full multi-head attention (one key and one
    value per query head): layers · heads · (d_k + d_v) · bytes, with d_k = head_dim (+ the
    rotary part for latent attention).  The baseline every reduction is measured against."""
    mdl = model(m)
    d_k = mdl.head_dim + (mdl.qk_rope_head_dim if mdl.kv_lora_rank is not None else 0)
    return mdl.layers * mdl.n_heads * (d_k + mdl.head_dim) * dtype(dt).bytes


def kv_cache_reduction(
    m: ModelLike, dt: DTypeLike = "bf16", baseline_dt: DTypeLike = "bf16"
) -> float:
    """How many times smaller the model's cache is per token than full multi-head attention in
    ``baseline_dt``: MHA bytes ÷ actual bytes in ``dt``.  Grouped-query attention gives
    heads ÷ kv_heads (8 for Llama-3-70B); caching in fp8 doubles it; latent attention gives
    DeepSeek-V3 71."""
    return kv_cache_bytes_per_token_mha(m, baseline_dt) / kv_cache_bytes_per_token(m, dt)


def standard_attention_hbm_bytes(
    seq_len: float, head_dim: float, dt: DTypeLike, *, heads: int = 1, batch: int = 1
) -> float:
    """HBM bytes of attention computed step by step with its N×N matrices in memory (Dao et al.
    2022, Algorithm 0): read Q and K, write S, read S, write P, read P and V, write O:
    (4·N·d + 4·N²) × bytes per head and sequence."""
    _check_tokens(seq_len=seq_len, head_dim=head_dim)
    n, d = seq_len, head_dim
    return (4 * n * d + 4 * n * n) * dtype(dt).bytes * heads * batch


def flash_attention_hbm_bytes(
    seq_len: float,
    head_dim: float,
    dt: DTypeLike,
    *,
    block_rows: int = 128,
    heads: int = 1,
    batch: int = 1,
) -> float:
    """HBM bytes of tiled, fused attention (FlashAttention-2's loop order): each block of
    ``block_rows`` query rows stays on chip while every K and V block streams past it, so Q is
    read once, O written once, and K and V read once per query block:
    (2·N·d + 2·N·d·⌈N ÷ block_rows⌉) × bytes.  No N×N matrix reaches HBM; the traffic is
    Θ(N²d ÷ block_rows), and block_rows is bounded by on-chip memory (Θ(N²d² ÷ M))."""
    _check_tokens(seq_len=seq_len, head_dim=head_dim)
    if block_rows < 1:
        raise ValueError("block_rows must be at least 1")
    n, d = seq_len, head_dim
    return (2 * n * d + 2 * n * d * math.ceil(n / block_rows)) * dtype(dt).bytes * heads * batch


def causal_flash_attention_hbm_bytes(
    seq_len: float,
    head_dim: float,
    dt: DTypeLike,
    *,
    block_rows: int = 128,
    heads: int = 1,
    batch: int = 1,
) -> float:
    """HBM bytes of tiled attention under a causal mask that skips the masked tiles: Q read once,
    O written once, and query block i (of ``block_rows`` rows, key blocks as wide) reads only the
    keys and values up to its own last row, min(N, i·block_rows) of them.  When block_rows
    divides N: (2·N·d + N·d·(N ÷ block_rows + 1)) × bytes; 11·N·d for N = 1024, block_rows = 128,
    against the 18·N·d of ``flash_attention_hbm_bytes``, which reads every key block."""
    _check_tokens(seq_len=seq_len, head_dim=head_dim)
    if block_rows < 1:
        raise ValueError("block_rows must be at least 1")
    n, d = seq_len, head_dim
    full = math.floor(n / block_rows)
    # Blocks 1..full read i·block_rows keys each; a last, partial block reads all N.
    keys_read = block_rows * full * (full + 1) / 2 + (n if n > full * block_rows else 0)
    return (2 * n * d + 2 * d * keys_read) * dtype(dt).bytes * heads * batch


__all__ = [
    "attention_flops",
    "causal_attention_flops",
    "causal_flash_attention_hbm_bytes",
    "decode_attention_intensity",
    "flash_attention_hbm_bytes",
    "kv_cache_bytes_per_token_mha",
    "kv_cache_reduction",
    "standard_attention_hbm_bytes",
]

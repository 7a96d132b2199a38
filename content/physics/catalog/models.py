"""The transformer-model catalog: architecture figures for weight, KV-cache and FLOP arithmetic.

Architecture numbers are the models' published ``config.json`` values.  ``params`` is computed from
them (untied input and output embeddings, attention, gated MLP, RMSNorm weights), which is why
Llama-2-70B has 68.98e9 parameters and not 70e9.  ``active_params`` differs from ``params`` only for
mixture-of-experts models (Mixtral: 2 of 8 experts per token).

Attention variants that shrink the KV cache are fields of the entry: ``n_kv_heads`` below
``n_heads`` is grouped-query attention (1 would be multi-query); ``kv_lora_rank`` marks multi-head
latent attention (DeepSeek-V2/V3), whose cache holds one compressed latent of ``kv_lora_rank``
plus a shared rotary key of ``qk_rope_head_dim`` per token and layer; ``sliding_window`` caps the
tokens each layer attends to (Mistral-7B).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer; ``context_length`` is the trained maximum in tokens."""

    key: str
    name: str
    params: int
    active_params: int
    layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn_dim: int
    vocab_size: int
    context_length: int
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    aliases: tuple[str, ...] = ()
    experts: int = 1
    experts_per_token: int = 1
    notes: str = ""
    # Multi-head latent attention (None for ordinary attention).
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int = 0
    # Mixture-of-experts layout beyond "every layer, experts x ffn_dim": always-on shared
    # experts, the routed experts' own width, and the leading layers that stay dense.
    shared_experts: int = 0
    moe_ffn_dim: int | None = None
    dense_layers: int = 0
    # Tokens each layer attends to (None: the whole context).
    sliding_window: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


_ARCH = (
    "layers",
    "d_model",
    "n_heads",
    "n_kv_heads",
    "head_dim",
    "ffn_dim",
    "vocab_size",
    "context_length",
    "experts",
    "experts_per_token",
)


def _model(
    key,
    name,
    params,
    layers,
    d_model,
    n_heads,
    n_kv_heads,
    ffn_dim,
    vocab,
    context,
    *,
    active=None,
    aliases=(),
    experts=1,
    top_k=1,
    notes="",
    active_src=None,
    head_dim=None,
    **extra,
):
    # Counts are computed from the config (``count_params``), so the config is their source.
    config = f"hf-{key}"
    sources = dict.fromkeys((*_ARCH, "params", "active_params", *extra), config)
    if active_src:
        sources["active_params"] = active_src
    return Model(
        key,
        name,
        params,
        active if active is not None else params,
        layers,
        d_model,
        n_heads,
        n_kv_heads,
        head_dim or d_model // n_heads,
        ffn_dim,
        vocab,
        context,
        sources,
        aliases,
        experts,
        top_k,
        notes,
        **extra,
    )


_MODELS = (
    _model(
        "llama-2-7b",
        "Llama-2-7B",
        6_738_415_616,
        32,
        4096,
        32,
        32,
        11008,
        32000,
        4096,
        aliases=("Llama 2 7B", "llama2-7b"),
    ),
    _model(
        "llama-2-13b",
        "Llama-2-13B",
        13_015_864_320,
        40,
        5120,
        40,
        40,
        13824,
        32000,
        4096,
        aliases=("Llama 2 13B", "llama2-13b"),
    ),
    _model(
        "llama-2-70b",
        "Llama-2-70B",
        68_976_648_192,
        80,
        8192,
        64,
        8,
        28672,
        32000,
        4096,
        aliases=("Llama 2 70B", "llama2-70b"),
        notes="Grouped-query attention, 8 KV heads.",
    ),
    _model(
        "llama-3-8b",
        "Llama-3-8B",
        8_030_261_248,
        32,
        4096,
        32,
        8,
        14336,
        128256,
        8192,
        aliases=("Llama 3 8B", "llama3-8b", "Meta-Llama-3-8B"),
        notes="Llama 3.1 8B has the same weights layout with a 131,072-token context.",
    ),
    _model(
        "llama-3-70b",
        "Llama-3-70B",
        70_553_706_496,
        80,
        8192,
        64,
        8,
        28672,
        128256,
        8192,
        aliases=("Llama 3 70B", "llama3-70b", "Meta-Llama-3-70B"),
    ),
    _model(
        "llama-3.1-405b",
        "Llama-3.1-405B",
        405_853_388_800,
        126,
        16384,
        128,
        8,
        53248,
        128256,
        131072,
        aliases=("Llama 3.1 405B", "llama-405b", "405b"),
    ),
    _model(
        "mistral-7b",
        "Mistral-7B-v0.1",
        7_241_732_096,
        32,
        4096,
        32,
        8,
        14336,
        32000,
        32768,
        aliases=("Mistral 7B", "mistral-7b-v0.1"),
        sliding_window=4096,
        notes="Sliding-window attention of 4096 tokens: each layer attends to the last 4096 "
        "tokens only, so a rolling cache holds at most that many (kv_cache_bytes counts the "
        "whole context unless asked for the window).",
    ),
    _model(
        "mixtral-8x7b",
        "Mixtral-8x7B-v0.1",
        46_702_792_704,
        32,
        4096,
        32,
        8,
        14336,
        32000,
        32768,
        active=12_879_925_248,
        aliases=("Mixtral", "Mixtral 8x7B"),
        experts=8,
        active_src="mixtral-announcement",
        top_k=2,
        notes="8 experts per layer, 2 routed per token: weight memory uses the total, FLOPs "
        "the active count (Mistral quotes 46.7B / 12.9B).",
    ),
    _model(
        "deepseek-v3",
        "DeepSeek-V3",
        671_026_419_200,
        61,
        7168,
        128,
        128,
        18432,
        129280,
        163840,
        active=37_552_297_472,
        aliases=("DeepSeek V3", "deepseek-v3-671b"),
        experts=256,
        top_k=8,
        active_src="deepseek-v3-report",
        head_dim=128,
        kv_lora_rank=512,
        q_lora_rank=1536,
        qk_rope_head_dim=64,
        shared_experts=1,
        moe_ffn_dim=2048,
        dense_layers=3,
        notes="Multi-head latent attention: 128 heads of 128 (plus a shared 64-wide rotary "
        "key) decompressed from a 512-wide latent, which is all the cache holds. 256 routed "
        "experts of width 2048, 8 per token, plus 1 shared expert; the first 3 layers are "
        "dense (width 18432). The report's 671B/37B excludes the 14B multi-token-prediction "
        "module, as these counts do.",
    ),
)

MODELS = Registry("model", _MODELS)


def model(name: str | Model) -> Model:
    """The model called ``name`` (``"llama-2-70b"``, ``"Llama 2 70B"``, ...)."""
    return MODELS.get(name, Model)


def models() -> tuple[Model, ...]:
    """Every catalogued model."""
    return MODELS.all()


def _attention_params(m: Model) -> int:
    """One layer's attention weights: d·hd·(2·heads + 2·kv_heads) for (grouped-query) attention;
    for latent attention the low-rank query (d·r_q + r_q + r_q·h·(hd + r_rope)), the compressed
    key-value (d·(r_kv + r_rope) + r_kv + r_kv·h·2·hd) and the output projection (h·hd·d)."""
    d, h, hd = m.d_model, m.n_heads, m.head_dim
    if m.kv_lora_rank is None:
        return d * hd * (2 * h + 2 * m.n_kv_heads)
    r_q, r_kv, rope = m.q_lora_rank or 0, m.kv_lora_rank, m.qk_rope_head_dim
    query = d * r_q + r_q + r_q * h * (hd + rope) if r_q else d * h * (hd + rope)
    key_value = d * (r_kv + rope) + r_kv + r_kv * h * 2 * hd
    return query + key_value + h * hd * d


def layer_params(m: Model | str, *, active: bool = False) -> int:
    """Parameters of one decoder block: attention + MLP + 2·d (its two norms); no embeddings,
    LM head or final norm.  For a mixture-of-experts model, a routed (MoE) block: all its experts,
    or with ``active=True`` the ones a token uses.  Llama-2-70B: 855,654,400."""
    m = model(m)
    d = m.d_model
    if m.experts > 1:
        routed = m.experts_per_token if active else m.experts
        width = m.moe_ffn_dim or m.ffn_dim
        router = d * m.experts + (m.experts if m.shared_experts else 0)
        mlp = (routed + m.shared_experts) * 3 * d * width + router
    else:
        mlp = 3 * d * m.ffn_dim
    return _attention_params(m) + mlp + 2 * d


def count_params(m: Model, *, active: bool = False) -> int:
    """Parameters implied by the architecture: 2·V·d (embeddings, untied) + d (final norm) +
    layers × (attention + MLP + 2·d norms), the MLP a gated one of 3·d·width.

    Dense layers have one MLP of ``ffn_dim``.  Mixture-of-experts layers (all but the first
    ``dense_layers``) have ``experts`` routed experts of ``moe_ffn_dim`` (default ``ffn_dim``),
    ``shared_experts`` always-on ones and a router of d·experts (plus DeepSeek's per-expert
    bias when there are shared experts).  ``active=True`` counts only the experts a token uses.
    """
    d = m.d_model
    attention = _attention_params(m)
    dense_mlp = 3 * d * m.ffn_dim
    if m.experts > 1:
        routed = m.experts_per_token if active else m.experts
        width = m.moe_ffn_dim or m.ffn_dim
        router = d * m.experts + (m.experts if m.shared_experts else 0)
        moe_mlp = (routed + m.shared_experts) * 3 * d * width + router
        moe_layers = m.layers - m.dense_layers
    else:
        moe_mlp, moe_layers = 0, 0
    dense_layers = m.layers - moe_layers
    layers = m.layers * (attention + 2 * d) + dense_layers * dense_mlp + moe_layers * moe_mlp
    return 2 * m.vocab_size * d + d + layers

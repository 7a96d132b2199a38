"""The transformer-model catalog: architecture figures for weight, KV-cache and FLOP arithmetic.

Architecture numbers are the models' published ``config.json`` values.  ``params`` is computed from
them (untied input and output embeddings, attention, gated MLP, RMSNorm weights), which is why
Llama-2-70B has 68.98e9 parameters and not 70e9.  ``active_params`` differs from ``params`` only for
mixture-of-experts models (Mixtral: 2 of 8 experts per token; DeepSeek-V3: 8 of 256 routed experts
and one shared expert, after three dense layers).  DeepSeek-V3's attention is multi-head latent
attention (MLA): it caches one compressed latent vector and one rotary key per token and layer
instead of K and V per head (``kv_latent_dim``, ``rope_head_dim``).
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
    # Mixture-of-experts layout beyond routed experts: experts every token uses, and leading
    # layers that keep a dense MLP of width ``dense_ffn_dim`` (None: no such layers).
    shared_experts: int = 0
    dense_layers: int = 0
    dense_ffn_dim: int | None = None
    # Multi-head latent attention (None for ordinary attention): the query and key-value
    # compression widths and the decoupled rotary key width, all per layer.
    q_latent_dim: int | None = None
    kv_latent_dim: int | None = None
    rope_head_dim: int | None = None

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
    "shared_experts",
    "dense_layers",
    "dense_ffn_dim",
    "q_latent_dim",
    "kv_latent_dim",
    "rope_head_dim",
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
    params_src=None,
    head_dim=None,
    **layout,
):
    # Counts are computed from the config (``count_params``), so the config is their source.
    config = f"hf-{key}"
    sources = dict.fromkeys((*_ARCH, "params", "active_params"), config)
    for name_ in ("dense_ffn_dim", "q_latent_dim", "kv_latent_dim", "rope_head_dim"):
        if layout.get(name_) is None:  # absent from this architecture: nothing to cite
            del sources[name_]
    if active_src:
        sources["active_params"] = active_src
    if params_src:
        sources["params"] = params_src
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
        **layout,
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
        notes="Sliding-window attention of 4096 tokens caps the KV cache in practice; "
        "kv_cache_bytes does not model the window.",
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
)

_MODELS += (
    _model(
        "deepseek-v3",
        "DeepSeek-V3",
        671_026_419_200,
        61,
        7168,
        128,
        128,
        2048,
        129280,
        163840,
        active=37_552_297_472,
        aliases=("DeepSeek V3", "deepseek-v3-671b"),
        experts=256,
        top_k=8,
        head_dim=128,
        params_src="deepseek-v3",
        active_src="deepseek-v3",
        shared_experts=1,
        dense_layers=3,
        dense_ffn_dim=18432,
        q_latent_dim=1536,
        kv_latent_dim=512,
        rope_head_dim=64,
        notes="256 routed experts (8 per token) and 1 shared expert of width 2048 in layers 4-61, "
        "a dense MLP of width 18432 in layers 1-3; multi-head latent attention caches a "
        "512-wide latent and a 64-wide rotary key per token and layer. Counts exclude the 14B "
        "multi-token-prediction module of the released checkpoint (the paper's 671B and 37B).",
    ),
)

MODELS = Registry("model", _MODELS)


def model(name: str | Model) -> Model:
    """The model called ``name`` (``"llama-2-70b"``, ``"Llama 2 70B"``, ...)."""
    return MODELS.get(name, Model)


def models() -> tuple[Model, ...]:
    """Every catalogued model."""
    return MODELS.all()


def count_params(m: Model, *, active: bool = False) -> int:
    """Parameters implied by the architecture: 2·V·d (embeddings, untied) + d (final norm) +
    layers × (attention + 2·d norms) + the MLPs.

    Attention is d·hd·(2·heads + 2·kv_heads), or for latent attention its down- and
    up-projections (with their norms) and the output projection.  Dense layers hold 3·d·ffn;
    expert layers hold (experts + shared) × 3·d·ffn and a router of d·experts weights (plus one
    bias per expert when there are shared experts, as DeepSeek's gate has).  ``active=True``
    counts only the experts a token uses.
    """
    d = m.d_model
    if m.kv_latent_dim is None:
        attention = d * m.head_dim * (2 * m.n_heads + 2 * m.n_kv_heads)
    else:
        qk = m.head_dim + m.rope_head_dim
        q_lat, kv_lat = m.q_latent_dim, m.kv_latent_dim
        attention = (
            d * q_lat + q_lat + q_lat * m.n_heads * qk
            + d * (kv_lat + m.rope_head_dim) + kv_lat + kv_lat * m.n_heads * 2 * m.head_dim
            + m.n_heads * m.head_dim * d
        )  # fmt: skip
    routed = m.experts_per_token if active else m.experts
    expert_mlp = (routed + m.shared_experts) * 3 * d * m.ffn_dim
    router = d * m.experts if m.experts > 1 else 0
    if m.shared_experts:
        router += m.experts
    dense_mlp = 3 * d * (m.dense_ffn_dim or m.ffn_dim)
    per_layer = attention + 2 * d
    mlps = m.dense_layers * dense_mlp + (m.layers - m.dense_layers) * (expert_mlp + router)
    return 2 * m.vocab_size * d + d + m.layers * per_layer + mlps

"""The transformer-model catalog: architecture figures for weight, KV-cache and FLOP arithmetic.

Architecture numbers are the models' published ``config.json`` values.  ``params`` is computed from
them (untied input and output embeddings, attention, gated MLP, RMSNorm weights), which is why
Llama-2-70B has 68.98e9 parameters and not 70e9.  ``active_params`` differs from ``params`` only for
mixture-of-experts models (Mixtral: 2 of 8 experts per token).
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
):
    # Counts are computed from the config (``count_params``), so the config is their source.
    config = f"hf-{key}"
    sources = dict.fromkeys((*_ARCH, "params", "active_params"), config)
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
        d_model // n_heads,
        ffn_dim,
        vocab,
        context,
        sources,
        aliases,
        experts,
        top_k,
        notes,
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

MODELS = Registry("model", _MODELS)


def model(name: str | Model) -> Model:
    """The model called ``name`` (``"llama-2-70b"``, ``"Llama 2 70B"``, ...)."""
    return MODELS.get(name, Model)


def models() -> tuple[Model, ...]:
    """Every catalogued model."""
    return MODELS.all()


def count_params(m: Model, *, active: bool = False) -> int:
    """Parameters implied by the architecture: 2·V·d (embeddings, untied) + d (final norm) +
    layers × (attention d·hd·(2·heads + 2·kv_heads) + experts × 3·d·ffn + router + 2·d norms).

    ``active=True`` counts only the experts routed per token.
    """
    attention = m.d_model * m.head_dim * (2 * m.n_heads + 2 * m.n_kv_heads)
    experts = m.experts_per_token if active else m.experts
    mlp = experts * 3 * m.d_model * m.ffn_dim
    router = m.d_model * m.experts if m.experts > 1 else 0
    per_layer = attention + mlp + router + 2 * m.d_model
    return 2 * m.vocab_size * m.d_model + m.d_model + m.layers * per_layer

"""Weight formats as checkpoints and tensor cores store them: elements, plus the scales (and zero
points) every group or block of elements carries.

A format stores ``group_size`` elements of ``element`` (a dtype) with one ``scale_bits`` scale and
one ``zero_point_bits`` zero point per group, and, for two-level schemes, ``second_level_bits``
more per element (a per-tensor fp32 scale is negligible and counted as 0).  Bits per weight =
element bits + (scale + zero point) ÷ group + second level.  ``keeps_16bit_embeddings`` says
whether deployed checkpoints leave the input embedding and the output head in 16 bits: every
format here does.  GPTQ and AWQ quantize only the transformer blocks' linear layers; fp8
checkpoints (llm-compressor, vLLM's ``fp8``) target linear layers and ignore ``lm_head``;
NVIDIA's NVFP4 checkpoints quantize "only the linear operators within transformer blocks";
DeepSeek-V3 keeps its embedding and output head in bf16; the embedding table is never a linear
layer.  Both tables are large in models with big vocabularies, and the output head is read in
full at every decode step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class WeightFormat:
    """A stored weight format; ``symmetric`` is the quantizer's default (None: not a choice)."""

    key: str
    name: str
    element: str
    group_size: int
    scale_bits: float
    scale_format: str
    zero_point_bits: float
    second_level_bits: float
    keeps_16bit_embeddings: bool
    symmetric: bool | None
    tensor_core: str | None
    aliases: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


_FIELDS = (
    "element",
    "group_size",
    "scale_bits",
    "scale_format",
    "zero_point_bits",
    "second_level_bits",
    "keeps_16bit_embeddings",
    "symmetric",
)


def _w(key, name, element, group, scale_bits, scale_format, src, **kw) -> WeightFormat:
    sources = dict.fromkeys(_FIELDS, src)
    sources.update(kw.pop("field_sources", {}))
    return WeightFormat(
        key,
        name,
        element,
        group,
        scale_bits,
        scale_format,
        kw.pop("zero_point_bits", 0),
        kw.pop("second_level_bits", 0),
        kw.pop("keeps_16bit_embeddings", False),
        kw.pop("symmetric", None),
        kw.pop("tensor_core", None),
        sources=sources,
        **kw,
    )


_FORMATS = (
    _w(
        "gptq-int4-g128",
        "GPTQ int4, groups of 128",
        "int4",
        128,
        16,
        "fp16",
        "gptqmodel-config",
        zero_point_bits=4,
        keeps_16bit_embeddings=True,
        symmetric=True,
        aliases=("GPTQ",),
        field_sources={"zero_point_bits": "autogptq-config"},
        notes="Symmetric by default (AutoGPTQ and GPTQModel: sym=True), yet the checkpoint layout "
        "stores a packed 4-bit zero point (qzeros) per group anyway, constant at the midpoint.",
    ),
    _w(
        "awq-int4-g128",
        "AWQ int4, groups of 128",
        "int4",
        128,
        16,
        "fp16",
        "autoawq",
        zero_point_bits=4,
        keeps_16bit_embeddings=True,
        symmetric=False,
        aliases=("AWQ",),
        notes="Asymmetric: each group's 4-bit zero point shifts the grid over values that are "
        "not centred on zero.",
    ),
    _w(
        "nf4-bnb",
        "bitsandbytes nf4, blocks of 64",
        "nf4",
        64,
        32,
        "fp32",
        "qlora",
        keeps_16bit_embeddings=True,
        aliases=("nf4 block 64",),
        field_sources={"keeps_16bit_embeddings": "hf-bnb-docs"},
    ),
    _w(
        "nf4-bnb-double",
        "bitsandbytes nf4 with double quantization",
        "nf4",
        64,
        8,
        "fp8 (of 256 blocks, one fp32 scale)",
        "qlora",
        second_level_bits=32 / (64 * 256),
        keeps_16bit_embeddings=True,
        field_sources={"keeps_16bit_embeddings": "hf-bnb-docs"},
        notes="QLoRA's double quantization: the 64-weight blocks' scales are themselves "
        "quantized to 8 bits, with one fp32 scale per 256 of them.",
    ),
    _w(
        "mxfp4",
        "MXFP4 (OCP microscaling)",
        "fp4",
        32,
        8,
        "E8M0 (a power of two)",
        "ocp-mx",
        tensor_core="b200",
        keeps_16bit_embeddings=True,
        field_sources={"keeps_16bit_embeddings": "nvidia-fp4-checkpoints"},
        aliases=("MX FP4",),
        notes="The scale is a bare power of two: applying it adds to each element's exponent.",
    ),
    _w(
        "nvfp4",
        "NVFP4 (NVIDIA Blackwell)",
        "fp4",
        16,
        8,
        "E4M3, plus one fp32 scale per tensor",
        "nvfp4-blog",
        tensor_core="b200",
        keeps_16bit_embeddings=True,
        field_sources={"keeps_16bit_embeddings": "nvidia-fp4-checkpoints"},
        notes="Smaller blocks and a scale with a mantissa track local magnitudes more closely "
        "than MXFP4, for a quarter of a bit more per element.",
    ),
    _w(
        "mxfp8",
        "MXFP8 (OCP microscaling, E4M3 elements)",
        "fp8-e4m3",
        32,
        8,
        "E8M0 (a power of two)",
        "ocp-mx",
        tensor_core="b200",
        keeps_16bit_embeddings=True,
        field_sources={"keeps_16bit_embeddings": "llm-compressor-fp8-70b"},
    ),
    _w(
        "fp8-block-128",
        "fp8 with one fp32 scale per 128 × 128 block (DeepSeek-V3's weights)",
        "fp8-e4m3",
        128 * 128,
        32,
        "fp32",
        "deepseek-v3-report",
        keeps_16bit_embeddings=True,
        notes="DeepSeek-V3 scales activations per 1 × 128 tile and weights per 128 × 128 "
        "block, and keeps E4M3 for every tensor, gradients included.",
    ),
)

WEIGHT_FORMATS = Registry("weight-format", _FORMATS)


def weight_format(name: str | WeightFormat) -> WeightFormat:
    """The weight format called ``name`` (``"gptq-int4-g128"``, ``"nvfp4"``, ...)."""
    return WEIGHT_FORMATS.get(name, WeightFormat)


def weight_formats() -> tuple[WeightFormat, ...]:
    """Every catalogued weight format."""
    return WEIGHT_FORMATS.all()

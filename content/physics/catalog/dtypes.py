"""The numeric-format catalog: bit layouts, storage sizes and ranges from FP64 down to 4 bits.

``bytes`` is the storage per element (0.5 for 4-bit formats; TF32 is a 19-bit tensor-core input
format that lives in 4-byte registers).  ``max_finite`` and ``step_near_one`` follow from the bit
layout with the usual bias 2^(E-1)-1; for integer and codebook formats they are relative to the
per-tensor or per-block scale (int8: 127 steps of absmax/127).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class DType:
    """A number format: ``bits`` of information, ``bytes`` of storage per element."""

    # A format's width is its definition (bf16 is 16 bits), not a figure a calculation cites:
    # a chapter whose arithmetic reads it does not list the format's source (F-10); one that
    # prints the format's range or draws its bits does.
    definitional_fields: ClassVar[frozenset[str]] = frozenset({"bits", "bytes"})

    name: str
    bits: int
    bytes: float
    kind: str
    exponent_bits: int | None
    mantissa_bits: int | None
    max_finite: float
    step_near_one: float
    aliases: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    # Floats only: the smallest normal and the smallest subnormal magnitude, from the layout.
    min_normal: float | None = None
    min_subnormal: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    @property
    def key(self) -> str:
        return self.name

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def _float(name, bits, nbytes, e, m, max_finite, aliases, src, *, bias=None) -> DType:
    """A float format; ``bias`` defaults to the IEEE 2^(e-1) - 1 (FNUZ formats add one)."""
    fields = (
        "bits",
        "bytes",
        "exponent_bits",
        "mantissa_bits",
        "max_finite",
        "step_near_one",
        "min_normal",
        "min_subnormal",
    )
    bias = 2 ** (e - 1) - 1 if bias is None else bias
    min_normal = 2.0 ** (1 - bias)
    return DType(
        name,
        bits,
        nbytes,
        "float",
        e,
        m,
        max_finite,
        2.0**-m,
        aliases,
        dict.fromkeys(fields, src),
        min_normal,
        min_normal * 2.0**-m,
    )


def _ieee_max(e: int, m: int) -> float:
    """Largest finite value of an IEEE-style format: (2 - 2^-m) x 2^bias."""
    return (2 - 2.0**-m) * 2.0 ** (2 ** (e - 1) - 1)


# bitsandbytes' NF4 codebook: the level just below 1.0 sets the coarsest step near the top.
_NF4_LEVEL_BELOW_ONE = 0.7229568362236023

_INT_FIELDS = ("bits", "bytes", "max_finite", "step_near_one")

_DTYPES = (
    _float("fp64", 64, 8, 11, 52, _ieee_max(11, 52), ("float64", "double"), "ieee-754"),
    _float("fp32", 32, 4, 8, 23, _ieee_max(8, 23), ("float32", "single"), "ieee-754"),
    _float("tf32", 19, 4, 8, 10, _ieee_max(8, 10), ("tensorfloat32", "tensorfloat-32"), "nv-tf32"),
    _float("bf16", 16, 2, 8, 7, _ieee_max(8, 7), ("bfloat16",), "google-bf16"),
    _float("fp16", 16, 2, 5, 10, _ieee_max(5, 10), ("float16", "half"), "ieee-754"),
    # E4M3 ("fn") gives up infinities and keeps only one NaN code, so its top is 448, not 240.
    _float("fp8-e4m3", 8, 1, 4, 3, 448.0, ("fp8", "e4m3", "float8_e4m3fn"), "fp8-paper"),
    _float("fp8-e5m2", 8, 1, 5, 2, _ieee_max(5, 2), ("e5m2", "float8_e5m2"), "fp8-paper"),
    # AMD's MI300 computes in the "FNUZ" variants (finite, no negative zero): bias one higher,
    # the negative-zero code is the only NaN, so E4M3 tops out at 1.875 x 2^7 = 240.
    _float(
        "fp8-e4m3fnuz",
        8,
        1,
        4,
        3,
        240.0,
        ("e4m3fnuz", "float8_e4m3fnuz"),
        "fp8-fnuz",
        bias=8,
    ),
    _float(
        "fp8-e5m2fnuz",
        8,
        1,
        5,
        2,
        57344.0,
        ("e5m2fnuz", "float8_e5m2fnuz"),
        "fp8-fnuz",
        bias=16,
    ),
    DType(
        "int8", 8, 1, "int", None, None, 127.0, 1.0, ("i8",), dict.fromkeys(_INT_FIELDS, "llm-int8")
    ),
    DType(
        "int4", 4, 0.5, "int", None, None, 7.0, 1.0, ("i4",), dict.fromkeys(_INT_FIELDS, "llm-int8")
    ),
    _float("fp4", 4, 0.5, 2, 1, 6.0, ("e2m1", "fp4-e2m1", "mxfp4-element"), "ocp-mx"),
    DType(
        "nf4",
        4,
        0.5,
        "block",
        None,
        None,
        1.0,
        1 - _NF4_LEVEL_BELOW_ONE,
        ("normalfloat4",),
        dict.fromkeys(_INT_FIELDS, "qlora"),
    ),
)

DTYPES = Registry("dtype", _DTYPES)


def dtype(name: str | DType) -> DType:
    """The format called ``name`` (``"fp8"`` is E4M3); a DType passes through unchanged."""
    return DTYPES.get(name, DType)


def dtypes() -> tuple[DType, ...]:
    """Every catalogued format, widest first."""
    return DTYPES.all()

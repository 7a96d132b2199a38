"""The ``Accelerator`` record and the helpers the catalog data modules share.

Conventions (see docs/physics.md): peak rates are DENSE (vendors' 2:4-sparse headlines are kept
apart in ``sparse_peak_flops``), one fused multiply-add counts as 2 FLOP, capacities and bandwidths
use decimal prefixes except on-chip SRAM and cache sizes, which are binary (``KiB``, ``MiB``), and
every figure names its source in ``sources`` (field name -> source key; ``"peak_flops.fp64"``
overrides ``"peak_flops"`` for one dtype).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, freeze
from content.physics.catalog.dtypes import DType, dtype
from content.physics.catalog.sources import Source, cite

# Vendors size SRAM and caches in powers of two: NVIDIA's "256 KB per SM" is 256 KiB and "50 MB
# of L2" is 50 MiB, as microbenchmark papers report them.  HBM capacity and every bandwidth are
# decimal.  ``sram_per_sm_bytes`` and ``l2_bytes`` are therefore written as multiples of these.
KiB = 1024
MiB = 1024 * KiB

_KIND_NOUNS = {"gpu": "GPU", "tpu": "TPU", "cpu": "CPU"}

# Sub-byte and fp8 variants share the tensor-core rate of their family.
_RATE_FAMILY = {"fp8-e4m3": "fp8", "fp8-e5m2": "fp8"}


@dataclass(frozen=True)
class Accelerator:
    """One accelerator (per chip or per socket), all figures in SI base units.

    ``peak_flops`` maps dtype name to dense FLOP/s (int8/int4 are OP/s in the same mapping);
    ``memory_bandwidth`` is bytes/s of the main memory; ``link`` and ``host_link`` are keys of the
    interconnect catalog.
    """

    key: str
    name: str
    vendor: str
    kind: str
    memory_bytes: float
    memory_type: str
    memory_bandwidth: float
    peak_flops: Mapping[str, float]
    sparse_peak_flops: Mapping[str, float]
    year: int
    sm_count: int | None
    sm_label: str
    l2_bytes: float | None
    sram_per_sm_bytes: float | None
    power_watts: float | None
    link: str | None
    links_per_gpu: int | None
    host_link: str | None
    aliases: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "peak_flops", freeze(self.peak_flops))
        object.__setattr__(self, "sparse_peak_flops", freeze(self.sparse_peak_flops))
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    def peak(self, dt: str | DType) -> float:
        """Dense peak FLOP/s (or OP/s) for dtype ``dt``; KeyError names the supported dtypes."""
        name = dt.name if isinstance(dt, DType) else dtype(dt).name
        rate_key = _RATE_FAMILY.get(name, name)
        try:
            return self.peak_flops[rate_key]
        except KeyError:
            supported = ", ".join(self.peak_flops)
            raise KeyError(
                f"{self.name} has no published dense {name} rate; supported: {supported}"
            ) from None

    def noun(self, count: int = 1) -> str:
        """What ``count`` of this part are called: "GPU", "TPUs", "CPUs" (a CPU is no GPU)."""
        word = _KIND_NOUNS.get(self.kind, "device")
        return word if count == 1 else f"{word}s"

    def source_key(self, field_name: str) -> str | None:
        """The source key for a field, or for ``"peak_flops.<dtype>"`` a single rate."""
        if field_name in self.sources:
            return self.sources[field_name]
        head = field_name.split(".", 1)[0]
        return self.sources.get(head)

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def same_rate(rate: float, *names: str) -> dict[str, float]:
    return {name: rate for name in names}


def sparse_headline(peak: Mapping[str, float], *names: str) -> dict[str, float]:
    """Vendors' 2:4 structured-sparsity headline: exactly twice the dense rate."""
    return {name: 2 * peak[name] for name in names}

"""The ``Accelerator`` record and the helpers the catalog data modules share.

Conventions (see docs/physics.md): peak rates are DENSE (vendors' 2:4-sparse headlines are kept
apart in ``sparse_peak_flops``), one fused multiply-add counts as 2 FLOP, capacities and bandwidths
use decimal prefixes except on-chip SRAM and cache sizes, which are binary (``KiB``, ``MiB``), and
every figure names its source in ``sources`` (field name -> source key; ``"peak_flops.fp64"``
overrides ``"peak_flops"`` for one dtype).

Device memory has two figures.  ``memory_label_bytes`` is the datasheet's label read as decimal
bytes ("80 GB" -> 80e9).  ``memory_bytes`` is the capacity the device reports to software
(nvidia-smi / rocm-smi ``memory.total``): HBM is built in binary sizes, so an "80 GB" H100 reports
81,559 MiB = 85.52e9 B.  Every "does it fit" uses ``memory_bytes``.  Where no reported figure is
published, ``memory_bytes`` falls back to the label and ``memory_reported_published`` is False.
A program sees less: ``memory_runtime_bytes`` is the total the CUDA runtime reports to it, and
``content.physics.memory`` turns the three into the levels a "does it fit" is asked at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, freeze
from content.physics.catalog.dtypes import DType, dtype
from content.physics.catalog.sources import Source, cite
from content.physics.formatting import Year

# Vendors size SRAM and caches in powers of two: NVIDIA's "256 KB per SM" is 256 KiB and "50 MB
# of L2" is 50 MiB, as microbenchmark papers report them.  HBM capacity and every bandwidth are
# decimal.  ``sram_per_sm_bytes`` and ``l2_bytes`` are therefore written as multiples of these.
KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

_KIND_NOUNS = {"gpu": "GPU", "tpu": "TPU", "cpu": "CPU"}

# Sub-byte and fp8 variants share the tensor-core rate of their family.
_RATE_FAMILY = {
    "fp8-e4m3": "fp8",
    "fp8-e5m2": "fp8",
    "fp8-e4m3fnuz": "fp8",
    "fp8-e5m2fnuz": "fp8",
}


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
    year: int  # a Year: it prints "2022", never "2,022"
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
    # The datasheet label as decimal bytes; None means "same as memory_bytes".
    memory_label_bytes: float | None = None
    # True when memory_bytes is a published device-reported total, False when it is the label.
    memory_reported_published: bool = False
    # What the CUDA runtime reports to a program (deviceQuery's global memory, PyTorch's
    # total_memory, cudaMemGetInfo's total): a few hundred MiB below the driver's total, which
    # the driver keeps for itself.  None where no such figure is published.
    memory_runtime_bytes: float | None = None
    # SM-level figures of NVIDIA parts (None where unpublished).  boost_clock_hz is the clock at
    # which the vendor's peak rates are computed, so sm_count x tensor rate x clock = peak.
    boost_clock_hz: float | None = None
    tensor_flops_per_clock_per_sm: Mapping[str, float] = field(default_factory=FrozenMap)
    registers_per_sm: int | None = None
    max_warps_per_sm: int | None = None
    max_blocks_per_sm: int | None = None
    shared_memory_per_sm_bytes: float | None = None

    def __post_init__(self) -> None:
        if self.memory_label_bytes is None:
            object.__setattr__(self, "memory_label_bytes", self.memory_bytes)
        object.__setattr__(
            self, "tensor_flops_per_clock_per_sm", freeze(self.tensor_flops_per_clock_per_sm)
        )
        object.__setattr__(self, "peak_flops", freeze(self.peak_flops))
        object.__setattr__(self, "sparse_peak_flops", freeze(self.sparse_peak_flops))
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))
        object.__setattr__(self, "year", Year(self.year))

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


def sm_limits(cc: str) -> dict[str, float]:
    """Per-SM limits of a CUDA compute capability (the CUDA C++ Programming Guide's technical
    specifications table): 32-bit registers, resident warps and blocks, shared memory."""
    regs, warps, blocks, shared_kib = _CC_LIMITS[cc]
    return {
        "registers_per_sm": regs,
        "max_warps_per_sm": warps,
        "max_blocks_per_sm": blocks,
        "shared_memory_per_sm_bytes": shared_kib * KiB,
    }


# compute capability -> (registers per SM, max warps per SM, max blocks per SM, shared KiB per SM)
_CC_LIMITS = {
    "7.0": (65536, 64, 32, 96),  # V100
    "7.5": (65536, 32, 16, 64),  # T4
    "8.0": (65536, 64, 32, 164),  # A100
    "8.6": (65536, 48, 16, 100),  # A10
    "8.9": (65536, 48, 24, 100),  # L4, RTX 4090
    "9.0": (65536, 64, 32, 228),  # H100, H200
    "10.0": (65536, 64, 32, 228),  # B200
}

SM_LIMIT_FIELDS = (
    "registers_per_sm",
    "max_warps_per_sm",
    "max_blocks_per_sm",
    "shared_memory_per_sm_bytes",
)


def cc_sources(key: str = "cuda-guide-cc") -> dict[str, str]:
    """The source mapping for the four per-SM limit fields."""
    return {name: key for name in SM_LIMIT_FIELDS}


def same_rate(rate: float, *names: str) -> dict[str, float]:
    return {name: rate for name in names}


def sparse_headline(peak: Mapping[str, float], *names: str) -> dict[str, float]:
    """Vendors' 2:4 structured-sparsity headline: exactly twice the dense rate."""
    return {name: 2 * peak[name] for name in names}

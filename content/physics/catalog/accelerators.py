"""The accelerator catalog: GPUs, TPUs and CPUs with their published peak rates and memories.

Conventions (see docs/physics.md): peak rates are DENSE (vendors' 2:4-sparse headlines are kept
apart in ``sparse_peak_flops``), one fused multiply-add counts as 2 FLOP, capacities and bandwidths
use decimal prefixes, and every figure names its source in ``sources`` (field name -> source key;
``"peak_flops.fp64"`` overrides ``"peak_flops"`` for one dtype).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.dtypes import DType, dtype
from content.physics.catalog.sources import Source, cite

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

    def source_key(self, field_name: str) -> str | None:
        """The source key for a field, or for ``"peak_flops.<dtype>"`` a single rate."""
        if field_name in self.sources:
            return self.sources[field_name]
        head = field_name.split(".", 1)[0]
        return self.sources.get(head)

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def _both(rate: float, *names: str) -> dict[str, float]:
    return {name: rate for name in names}


def _sparse(peak: Mapping[str, float], *names: str) -> dict[str, float]:
    """Vendors' 2:4 structured-sparsity headline: exactly twice the dense rate."""
    return {name: 2 * peak[name] for name in names}


_ACCELERATORS: list[Accelerator] = []


def _add(**kwargs) -> None:
    _ACCELERATORS.append(Accelerator(**kwargs))


_v100 = {"fp64": 7.8e12, "fp32": 15.7e12, "fp16": 125e12}
_add(
    key="v100-sxm2",
    name="V100 SXM2 32 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=32e9,
    memory_type="HBM2",
    memory_bandwidth=900e9,
    peak_flops=_v100,
    sparse_peak_flops={},
    year=2017,
    sm_count=80,
    sm_label="SMs",
    l2_bytes=6e6,
    sram_per_sm_bytes=128e3,
    power_watts=300,
    link="nvlink2",
    links_per_gpu=6,
    host_link="pcie3",
    aliases=("V100", "V100 SXM2", "Tesla V100"),
    sources={
        "memory_bytes": "nv-v100",
        "memory_bandwidth": "nv-v100",
        "peak_flops": "nv-v100",
        "year": "nv-v100",
        "sm_count": "nv-v100",
        "l2_bytes": "markdewing-latency",
        "sram_per_sm_bytes": "markdewing-latency",
        "power_watts": "nv-v100",
        "links_per_gpu": "mle-net",
    },
    notes="Volta: fp16 tensor cores only (no bf16, tf32, int8 tensor rates, no sparsity). "
    "The 32 GB part shipped in 2018; the 16 GB original in 2017.",
)

_a100 = {
    "fp64": 9.7e12,
    "fp32": 19.5e12,
    "tf32": 156e12,
    **_both(312e12, "bf16", "fp16"),
    "int8": 624e12,
    "int4": 1248e12,
}
_A100_SOURCES = {
    "memory_bytes": "nv-a100",
    "memory_bandwidth": "nv-a100",
    "peak_flops": "nv-a100",
    "sparse_peak_flops": "nv-a100",
    "year": "nv-a100",
    "sm_count": "nv-a100",
    "l2_bytes": "mle-accel",
    "sram_per_sm_bytes": "mle-accel",
    "power_watts": "glenn-lockwood",
    "links_per_gpu": "mle-net",
}
for _key, _gb, _type, _bw, _aliases in (
    ("a100-sxm-40gb", 40, "HBM2", 1555e9, ("A100 40GB", "A100 SXM 40GB", "A100-40")),
    ("a100-sxm-80gb", 80, "HBM2e", 2039e9, ("A100", "A100 80GB", "A100 SXM", "A100-80")),
):
    _add(
        key=_key,
        name=f"A100 SXM {_gb} GB",
        vendor="NVIDIA",
        kind="gpu",
        memory_bytes=_gb * 1e9,
        memory_type=_type,
        memory_bandwidth=_bw,
        peak_flops=_a100,
        sparse_peak_flops=_sparse(_a100, "tf32", "bf16", "fp16", "int8", "int4"),
        year=2020,
        sm_count=108,
        sm_label="SMs",
        l2_bytes=40e6,
        sram_per_sm_bytes=192e3,
        power_watts=400,
        link="nvlink3",
        links_per_gpu=12,
        host_link="pcie4",
        aliases=_aliases,
        sources=_A100_SOURCES,
        notes="Ampere: no fp8. The 80 GB PCIe card has 1.935 TB/s and is not catalogued.",
    )

_hopper = {
    "fp64": 34e12,
    "fp32": 67e12,
    "tf32": 494.7e12,
    **_both(989.4e12, "bf16", "fp16"),
    "fp8": 1978.9e12,
    "int8": 1978.9e12,
}
_HOPPER_SPARSE = _sparse(_hopper, "tf32", "bf16", "fp16", "fp8", "int8")
_add(
    key="h100-sxm",
    name="H100 SXM 80 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=80e9,
    memory_type="HBM3",
    memory_bandwidth=3.35e12,
    peak_flops=_hopper,
    sparse_peak_flops=_HOPPER_SPARSE,
    year=2022,
    sm_count=132,
    sm_label="SMs",
    l2_bytes=50e6,
    sram_per_sm_bytes=256e3,
    power_watts=700,
    link="nvlink4",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("H100", "H100 SXM", "H100 SXM5", "H100-80"),
    sources={
        "memory_bytes": "nv-h100",
        "memory_bandwidth": "nv-h100",
        "peak_flops": "nv-h100",
        "peak_flops.tf32": "glenn-lockwood",
        "sparse_peak_flops": "nv-h100",
        "year": "nv-h100",
        "sm_count": "sb-gpus",
        "l2_bytes": "sb-gpus",
        "sram_per_sm_bytes": "mle-accel",
        "power_watts": "glenn-lockwood",
        "links_per_gpu": "mle-net",
    },
    notes="989.4 TFLOP/s = 1830 MHz x 528 tensor cores x 512 FMA x 2; the 1979 headline is "
    "2:4-sparse. 3.0 TB/s in early DGX material was superseded by 3.35 TB/s. Up to 228 KB of "
    "the 256 KB per SM is usable as shared memory.",
)
_h100_pcie = {
    "fp64": 26e12,
    "fp32": 51e12,
    "tf32": 378e12,
    **_both(756e12, "bf16", "fp16"),
    "fp8": 1513e12,
    "int8": 1513e12,
}
_add(
    key="h100-pcie",
    name="H100 PCIe 80 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=80e9,
    memory_type="HBM2e",
    memory_bandwidth=2.0e12,
    peak_flops=_h100_pcie,
    sparse_peak_flops=_sparse(_h100_pcie, "tf32", "bf16", "fp16", "fp8", "int8"),
    year=2022,
    sm_count=114,
    sm_label="SMs",
    l2_bytes=50e6,
    sram_per_sm_bytes=256e3,
    power_watts=350,
    link=None,
    links_per_gpu=None,
    host_link="pcie5",
    aliases=("H100 PCIe",),
    sources={
        "memory_bytes": "nv-h100-pcie-brief",
        "memory_bandwidth": "nv-h100-pcie-brief",
        "peak_flops": "nv-h100",
        "sparse_peak_flops": "nv-h100",
        "year": "nv-h100",
        "sm_count": "chips-and-cheese-h100",
        "l2_bytes": "chips-and-cheese-h100",
        "sram_per_sm_bytes": "mle-accel",
        "power_watts": "nv-h100-pcie-brief",
    },
    notes="HBM2e, not HBM3. Pairs of cards may be joined by an NVLink bridge (600 GB/s "
    "bidirectional); no NVSwitch, so ``link`` is None. The later H100 NVL (94 GB, 3.9 TB/s) is "
    "a different part.",
)
_add(
    key="h200",
    name="H200 SXM 141 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=141e9,
    memory_type="HBM3e",
    memory_bandwidth=4.8e12,
    peak_flops=_hopper,
    sparse_peak_flops=_HOPPER_SPARSE,
    year=2024,
    sm_count=132,
    sm_label="SMs",
    l2_bytes=50e6,
    sram_per_sm_bytes=256e3,
    power_watts=700,
    link="nvlink4",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("H200", "H200 SXM"),
    sources={
        "memory_bytes": "nv-h200",
        "memory_bandwidth": "sb-gpus",
        "peak_flops": "mle-accel",
        "sparse_peak_flops": "nv-h200",
        "year": "nv-h200",
        "sm_count": "sb-gpus",
        "l2_bytes": "sb-gpus",
        "sram_per_sm_bytes": "mle-accel",
        "power_watts": "nv-h200",
        "links_per_gpu": "mlperf-h200-system",
    },
    notes="Same compute as H100 SXM with more, faster memory (141 GB usable of 144 GB raw). "
    "Announced November 2023, shipped 2024.",
)
_b200 = {
    "fp32": 80e12,
    "tf32": 1125e12,
    **_both(2.25e15, "bf16", "fp16"),
    "fp8": 4.5e15,
    "int8": 4.5e15,
    "fp4": 9e15,
}
_add(
    key="b200",
    name="B200 (HGX/DGX)",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=180e9,
    memory_type="HBM3e",
    memory_bandwidth=8e12,
    peak_flops=_b200,
    sparse_peak_flops=_sparse(_b200, "tf32", "bf16", "fp16", "fp8", "int8", "fp4"),
    year=2024,
    sm_count=148,
    sm_label="SMs",
    l2_bytes=126e6,
    sram_per_sm_bytes=256e3,
    power_watts=1000,
    link="nvlink5",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("B200",),
    sources={
        "memory_bytes": "mle-accel",
        "memory_bandwidth": "sb-gpus",
        "peak_flops": "mle-accel",
        "peak_flops.fp32": "mle-accel",
        "sparse_peak_flops": "nv-b200",
        "year": "nv-b200",
        "sm_count": "sb-gpus",
        "l2_bytes": "sb-gpus",
        "sram_per_sm_bytes": "sb-gpus",
        "power_watts": "mle-accel",
        "links_per_gpu": "mle-net",
    },
    notes="180 GB usable in HGX/DGX B200 (192 GB announced). GB200 runs higher clocks (2.5 PFLOP/s "
    "bf16 per GPU). 1000 W is the maximum TGP (700 W default set point). fp32 is quoted as "
    "75-80 TFLOP/s; we use 80.",
)
_cdna3 = {
    "fp64": 81.7e12,
    "fp32": 163.4e12,
    "tf32": 653.7e12,
    **_both(1307.4e12, "bf16", "fp16"),
    "fp8": 2614.9e12,
    "int8": 2614.9e12,
}
for _key, _name, _gb, _type, _bw, _w, _year, _src in (
    ("mi300x", "MI300X", 192, "HBM3", 5.3e12, 750, 2023, "amd-mi300x"),
    ("mi325x", "MI325X", 256, "HBM3e", 6.0e12, 1000, 2024, "amd-mi325x"),
):
    _add(
        key=_key,
        name=f"AMD Instinct {_name}",
        vendor="AMD",
        kind="gpu",
        memory_bytes=_gb * 1e9,
        memory_type=_type,
        memory_bandwidth=_bw,
        peak_flops=_cdna3,
        sparse_peak_flops=_sparse(_cdna3, "bf16", "fp16", "fp8", "int8"),
        year=_year,
        sm_count=304,
        sm_label="CUs",
        l2_bytes=32e6,
        sram_per_sm_bytes=96e3,
        power_watts=_w,
        link="infinity-fabric",
        links_per_gpu=7,
        host_link="pcie5",
        aliases=(_name, f"Instinct {_name}"),
        sources={
            "memory_bytes": _src,
            "memory_bandwidth": _src,
            "peak_flops": _src,
            "peak_flops.fp64": _src,
            "sparse_peak_flops": _src,
            "year": "mle-accel",
            "sm_count": "rocm-gpu-specs",
            "l2_bytes": "rocm-gpu-specs",
            "sram_per_sm_bytes": "rocm-gpu-specs",
            "power_watts": "mle-accel",
            "links_per_gpu": "mle-net",
        },
        notes="L2 is 4 MB per XCD x 8; a 256 MB Infinity Cache sits behind it. SRAM per CU is "
        "64 KB LDS + 32 KB L1. Measured bf16 matmuls reach only 51-60% of peak. Infinity Fabric "
        "peer-to-peer between two GPUs is one 64 GB/s link.",
    )

_l4 = {
    "fp32": 30.3e12,
    "tf32": 60e12,
    **_both(121e12, "bf16", "fp16"),
    "fp8": 242.5e12,
    "int8": 242.5e12,
}
_add(
    key="l4",
    name="L4",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=24e9,
    memory_type="GDDR6",
    memory_bandwidth=300e9,
    peak_flops=_l4,
    sparse_peak_flops=_sparse(_l4, "tf32", "bf16", "fp16", "fp8", "int8"),
    year=2023,
    sm_count=58,
    sm_label="SMs",
    l2_bytes=48e6,
    sram_per_sm_bytes=128e3,
    power_watts=72,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("L4", "NVIDIA L4"),
    sources={
        "memory_bytes": "nv-l4",
        "memory_bandwidth": "nv-l4",
        "peak_flops": "nv-l4",
        "sparse_peak_flops": "nv-l4",
        "year": "nv-l4",
        "sm_count": "nv-l4",
        "l2_bytes": "nv-l4",
        "sram_per_sm_bytes": "nv-l4",
        "power_watts": "nv-l4",
    },
    notes="NVIDIA's page lists only sparse rates (120/242/485/485); dense is half. 58 SMs is the "
    "L4 configuration (the full AD104 die has 60).",
)
_add(
    key="t4",
    name="T4",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=16e9,
    memory_type="GDDR6",
    memory_bandwidth=320e9,
    peak_flops={"fp32": 8.1e12, "fp16": 65e12, "int8": 130e12, "int4": 260e12},
    sparse_peak_flops={},
    year=2018,
    sm_count=40,
    sm_label="SMs",
    l2_bytes=4e6,
    sram_per_sm_bytes=96e3,
    power_watts=70,
    link=None,
    links_per_gpu=None,
    host_link="pcie3",
    aliases=("T4", "Tesla T4"),
    sources={
        "memory_bytes": "nv-t4",
        "memory_bandwidth": "nv-t4",
        "peak_flops": "nv-t4",
        "year": "nv-t4",
        "sm_count": "gpu-catalog-hf",
        "l2_bytes": "gpu-catalog-hf",
        "sram_per_sm_bytes": "gpu-catalog-hf",
        "power_watts": "nv-t4",
    },
    notes="Turing: fp16 tensor cores with fp32 accumulate, no bf16, no sparsity. Some guides "
    "round the bandwidth to 300 GB/s; the datasheet says 320.",
)
_a10 = {
    "fp32": 31.2e12,
    "tf32": 62.5e12,
    **_both(125e12, "bf16", "fp16"),
    "int8": 250e12,
    "int4": 500e12,
}
_add(
    key="a10",
    name="A10",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=24e9,
    memory_type="GDDR6",
    memory_bandwidth=600e9,
    peak_flops=_a10,
    sparse_peak_flops=_sparse(_a10, "tf32", "bf16", "fp16", "int8", "int4"),
    year=2021,
    sm_count=72,
    sm_label="SMs",
    l2_bytes=6e6,
    sram_per_sm_bytes=128e3,
    power_watts=150,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("A10", "NVIDIA A10"),
    sources={
        "memory_bytes": "nv-a10",
        "memory_bandwidth": "nv-a10",
        "peak_flops": "nv-a10",
        "sparse_peak_flops": "nv-a10",
        "year": "nv-a10",
        "sm_count": "nv-a10",
        "l2_bytes": "gpu-catalog-hf",
        "sram_per_sm_bytes": "gpu-catalog-hf",
        "power_watts": "nv-a10",
    },
    notes="72 SMs follows from the datasheet's 9,216 CUDA cores at 128 per Ampere GA102 SM. AWS's "
    "A10G has no datasheet: treat its FLOP/s as uncertain (catalogs list 62.5-70 TFLOP/s fp16) "
    "and its power as 300 W as nvidia-smi reports on g5.",
)
_ada = {
    "fp32": 82.6e12,
    "tf32": 82.6e12,
    **_both(165.2e12, "bf16", "fp16"),
    "fp8": 330.3e12,
    "int8": 660.6e12,
    "int4": 1321.2e12,
}
_add(
    key="rtx-4090",
    name="GeForce RTX 4090",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=24e9,
    memory_type="GDDR6X",
    memory_bandwidth=1008e9,
    peak_flops=_ada,
    sparse_peak_flops=_sparse(_ada, "tf32", "bf16", "fp16", "fp8", "int8", "int4"),
    year=2022,
    sm_count=128,
    sm_label="SMs",
    l2_bytes=72e6,
    sram_per_sm_bytes=128e3,
    power_watts=450,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("RTX 4090", "4090", "GeForce RTX 4090"),
    sources={
        "memory_bytes": "nv-ada",
        "memory_bandwidth": "nv-ada",
        "peak_flops": "nv-ada",
        "sparse_peak_flops": "nv-ada",
        "year": "nv-ada",
        "sm_count": "nv-ada",
        "l2_bytes": "markdewing-latency",
        "sram_per_sm_bytes": "markdewing-latency",
        "power_watts": "nv-ada",
    },
    notes="GeForce halves the tensor rate with fp32 accumulation: bf16/fp16 and fp8 are the "
    "fp32-accumulate figures (fp16 accumulate doubles them). No NVLink.",
)

for _key, _name, _mem, _type, _bw, _bf16, _int8, _cores, _w, _link, _n, _src, _year, _vmem in (
    (
        "tpu-v4",
        "TPU v4",
        32 * 2**30,
        "HBM2",
        1.2e12,
        275e12,
        275e12,
        2,
        192,
        "tpu-v4-ici",
        6,
        "gc-tpu-v4",
        2021,
        None,
    ),
    (
        "tpu-v5e",
        "TPU v5e",
        16e9,
        "HBM2",
        819e9,
        197e12,
        394e12,
        1,
        None,
        "tpu-v5e-ici",
        4,
        "gc-tpu-v5e",
        2023,
        128 * 2**20,
    ),
    (
        "tpu-v5p",
        "TPU v5p",
        95e9,
        "HBM2e",
        2.765e12,
        459e12,
        918e12,
        2,
        None,
        "tpu-v5p-ici",
        6,
        "gc-tpu-v5p",
        2023,
        None,
    ),
):
    _tpu_sources = {
        "memory_bytes": _src,
        "memory_bandwidth": _src,
        "peak_flops": _src,
        "year": _src,
        "sm_count": "sb-tpus",
        "links_per_gpu": "sb-tpus",
    }
    if _w is not None:
        _tpu_sources["power_watts"] = "sb-tpus"
    if _vmem is not None:
        _tpu_sources["sram_per_sm_bytes"] = "sb-tpus"
    _add(
        key=_key,
        name=_name,
        vendor="Google",
        kind="tpu",
        memory_bytes=_mem,
        memory_type=_type,
        memory_bandwidth=_bw,
        peak_flops={"bf16": _bf16, "int8": _int8},
        sparse_peak_flops={},
        year=_year,
        sm_count=_cores,
        sm_label="TensorCores",
        l2_bytes=None,
        sram_per_sm_bytes=_vmem,
        power_watts=_w,
        link=_link,
        links_per_gpu=_n,
        host_link=None,
        aliases=(_name, _name.split()[1]),
        sources=_tpu_sources,
        notes="Per chip. The MXUs compute in bf16 (no fp16). Host PCIe is about 15-16 GB/s per "
        "chip each way. v4 memory is 32 GiB; v4 power is the measured maximum (170 W mean).",
    )

_add(
    key="epyc-9654",
    name="AMD EPYC 9654 (1 socket)",
    vendor="AMD",
    kind="cpu",
    memory_bytes=6e12,
    memory_type="DDR5-4800 x12",
    memory_bandwidth=460.8e9,
    peak_flops={"fp32": 7.37e12, "bf16": 14.7e12},
    sparse_peak_flops={},
    year=2022,
    sm_count=96,
    sm_label="cores",
    l2_bytes=384e6,
    sram_per_sm_bytes=1e6,
    power_watts=360,
    link=None,
    links_per_gpu=None,
    host_link=None,
    aliases=("EPYC 9654", "9654", "Genoa"),
    sources={
        "memory_bytes": "amd-epyc-9654",
        "memory_bandwidth": "llama-cpp-16569",
        "peak_flops": "amd-epyc-9654",
        "year": "amd-epyc-9654",
        "sm_count": "amd-epyc-9654",
        "l2_bytes": "amd-epyc-9654",
        "sram_per_sm_bytes": "amd-epyc-9654",
        "power_watts": "amd-epyc-9654",
    },
    notes="Derived peaks: 96 cores x 32 fp32 FLOP/cycle (two 256-bit FMA pipes) x 2.4 GHz base "
    "= 7.37 TFLOP/s; AVX-512 BF16 doubles it. Bandwidth = 12 channels x 4800 MT/s x 8 B. "
    "l2_bytes holds the 384 MB L3 (last-level cache); sram_per_sm_bytes the 1 MB L2 per core.",
)
_add(
    key="xeon-8480",
    name="Intel Xeon Platinum 8480+ (1 socket)",
    vendor="Intel",
    kind="cpu",
    memory_bytes=4e12,
    memory_type="DDR5-4800 x8",
    memory_bandwidth=307.2e9,
    peak_flops={"fp32": 7.17e12, "bf16": 115e12},
    sparse_peak_flops={},
    year=2023,
    sm_count=56,
    sm_label="cores",
    l2_bytes=105e6,
    sram_per_sm_bytes=2e6,
    power_watts=350,
    link=None,
    links_per_gpu=None,
    host_link=None,
    aliases=("Xeon 8480", "Xeon 8480+", "8480+", "Sapphire Rapids"),
    sources={
        "memory_bytes": "intel-xeon-8480",
        "memory_bandwidth": "intel-xeon-8480",
        "peak_flops": "intel-xeon-8480",
        "year": "intel-xeon-8480",
        "sm_count": "intel-xeon-8480",
        "l2_bytes": "intel-xeon-8480",
        "sram_per_sm_bytes": "intel-xeon-8480",
        "power_watts": "intel-xeon-8480",
    },
    notes="Derived peaks: 56 cores x 64 fp32 FLOP/cycle (two 512-bit FMA units) x 2.0 GHz = "
    "7.17 TFLOP/s; AMX bf16 at 1024 FLOP/cycle/core gives about 115 TFLOP/s. Bandwidth = "
    "8 channels x 4800 MT/s x 8 B. l2_bytes holds the 105 MB L3.",
)

ACCELERATORS = Registry("accelerator", _ACCELERATORS)


def accelerator(name: str | Accelerator) -> Accelerator:
    """The accelerator called ``name`` (key, name or alias, any case); an Accelerator passes
    through unchanged.  ``"V100"``, ``"A100"`` and ``"H100"`` are the SXM parts (A100: 80 GB)."""
    return ACCELERATORS.get(name, Accelerator)


def accelerators() -> tuple[Accelerator, ...]:
    """Every catalogued accelerator, oldest GPUs first, then TPUs and CPUs."""
    return ACCELERATORS.all()

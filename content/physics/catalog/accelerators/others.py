"""AMD Instinct GPUs, Google TPUs (per chip) and server CPUs (per socket)."""

from __future__ import annotations

from content.physics.catalog.accelerators._entry import (
    Accelerator,
    KiB,
    MiB,
    same_rate,
    sparse_headline,
)

ENTRIES: list[Accelerator] = []


def _add(**kwargs) -> None:
    ENTRIES.append(Accelerator(**kwargs))


_cdna3 = {
    "fp64": 81.7e12,
    "fp32": 163.4e12,
    "tf32": 653.7e12,
    **same_rate(1307.4e12, "bf16", "fp16"),
    "fp8": 2614.9e12,
    "int8": 2614.9e12,
}
# rocm-smi reports 205,822,885,888 B for an MI300X (public logs); none is published for MI325X.
for _key, _name, _gb, _reported, _type, _bw, _w, _year, _src in (
    ("mi300x", "MI300X", 192, 205822885888, "HBM3", 5.3e12, 750, 2023, "amd-mi300x"),
    ("mi325x", "MI325X", 256, None, "HBM3e", 6.0e12, 1000, 2024, "amd-mi325x"),
):
    _add(
        key=_key,
        name=f"AMD Instinct {_name}",
        vendor="AMD",
        kind="gpu",
        memory_bytes=_reported or _gb * 1e9,
        memory_label_bytes=_gb * 1e9,
        memory_reported_published=_reported is not None,
        memory_type=_type,
        memory_bandwidth=_bw,
        peak_flops=_cdna3,
        sparse_peak_flops=sparse_headline(_cdna3, "bf16", "fp16", "fp8", "int8"),
        year=_year,
        sm_count=304,
        sm_label="CUs",
        l2_bytes=32 * MiB,
        sram_per_sm_bytes=96 * KiB,
        power_watts=_w,
        link="infinity-fabric",
        links_per_gpu=7,
        host_link="pcie5",
        aliases=(_name, f"Instinct {_name}"),
        sources={
            "memory_bytes": "smi-public-logs" if _reported else _src,
            "memory_label_bytes": _src,
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
        notes="L2 is 4 MiB per XCD x 8; a 256 MiB Infinity Cache sits behind it. SRAM per CU is "
        "64 KiB LDS + 32 KiB L1. Measured bf16 matmuls reach only 51-60% of peak. Infinity Fabric "
        "peer-to-peer between two GPUs is one 64 GB/s link. rocm-smi reports 205,822,885,888 B "
        "(191.7 GiB) for the '192 GB' MI300X; no reported total is published for the MI325X, so "
        "its memory_bytes is the label.",
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
        "memory_label_bytes": _src,
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
        "chip each way. v4 memory is 32 GiB; v4 power is the measured maximum (170 W mean). No "
        "device-reported total is published, so memory_bytes is the documented capacity.",
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
    l2_bytes=384 * MiB,
    sram_per_sm_bytes=1 * MiB,
    power_watts=360,
    link=None,
    links_per_gpu=None,
    host_link=None,
    aliases=("EPYC 9654", "9654", "Genoa"),
    sources={
        "memory_bytes": "amd-epyc-9654",
        "memory_label_bytes": "amd-epyc-9654",
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
    "l2_bytes holds the 384 MiB L3 (last-level cache); sram_per_sm_bytes the 1 MiB L2 per core.",
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
    l2_bytes=105 * MiB,
    sram_per_sm_bytes=2 * MiB,
    power_watts=350,
    link=None,
    links_per_gpu=None,
    host_link=None,
    aliases=("Xeon 8480", "Xeon 8480+", "8480+", "Sapphire Rapids"),
    sources={
        "memory_bytes": "intel-xeon-8480",
        "memory_label_bytes": "intel-xeon-8480",
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
    "8 channels x 4800 MT/s x 8 B. l2_bytes holds the 105 MiB L3.",
)

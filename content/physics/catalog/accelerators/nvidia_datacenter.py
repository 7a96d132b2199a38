"""NVIDIA data-center GPUs with NVLink: V100, A100, H100, H200, B200."""

from __future__ import annotations

from content.physics.catalog.accelerators._entry import (
    Accelerator,
    KiB,
    MiB,
    cc_sources,
    same_rate,
    sm_limits,
    sparse_headline,
)

ENTRIES: list[Accelerator] = []


def _add(**kwargs) -> None:
    ENTRIES.append(Accelerator(**kwargs))


_v100 = {"fp64": 7.8e12, "fp32": 15.7e12, "fp16": 125e12}
_add(
    key="v100-sxm2",
    name="V100 SXM2 32 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=32510 * MiB,
    memory_type="HBM2",
    memory_bandwidth=900e9,
    peak_flops=_v100,
    sparse_peak_flops={},
    year=2018,  # this 32 GB part; the 16 GB V100 launched in 2017
    sm_count=80,
    sm_label="SMs",
    l2_bytes=6 * MiB,
    sram_per_sm_bytes=128 * KiB,
    power_watts=300,
    link="nvlink2",
    links_per_gpu=6,
    host_link="pcie3",
    aliases=("V100", "V100 SXM2", "Tesla V100"),
    memory_label_bytes=32e9,
    memory_reported_published=True,
    boost_clock_hz=1530e6,
    tensor_flops_per_clock_per_sm={"fp16": 1024},
    **sm_limits("7.0"),
    sources={
        "memory_bytes": "insightface-v100-smi",
        "memory_label_bytes": "nv-v100",
        "boost_clock_hz": "nv-volta-whitepaper",
        "tensor_flops_per_clock_per_sm": "nv-volta-whitepaper",
        **cc_sources(),
        "memory_bandwidth": "nv-v100",
        "peak_flops": "nv-v100",
        "year": "nv-v100",
        "sm_count": "nv-v100",
        "l2_bytes": "nv-volta-whitepaper",
        "sram_per_sm_bytes": "nv-volta-whitepaper",
        "power_watts": "nv-v100",
        "links_per_gpu": "mle-net",
    },
    notes="Volta: fp16 tensor cores only (no bf16, tf32, int8 tensor rates, no sparsity). "
    "year is the 32 GB part's (announced March 2018); Volta and the 16 GB original date from "
    "2017. nvidia-smi reports 32,510 MiB (34.09e9 B) for the '32 GB' part (driver 450.80.02); "
    "no runtime total is published. "
    "8 tensor cores x 64 FMA x 2 = 1024 fp16 FLOP per clock per SM; 80 x 1024 x 1530 MHz = "
    "125 TFLOP/s.",
)

_a100 = {
    "fp64": 9.7e12,
    "fp32": 19.5e12,
    "tf32": 156e12,
    **same_rate(312e12, "bf16", "fp16"),
    "int8": 624e12,
    "int4": 1248e12,
}
_A100_SOURCES = {
    "memory_bytes": "modal-pr-2797",
    "memory_label_bytes": "nv-a100",
    "boost_clock_hz": "nv-ampere-whitepaper",
    "tensor_flops_per_clock_per_sm": "nv-ampere-whitepaper",
    **cc_sources(),
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
_A100_TENSOR = {"tf32": 1024, "bf16": 2048, "fp16": 2048, "int8": 4096, "int4": 8192}
for _key, _gb, _mib, _type, _bw, _aliases in (
    ("a100-sxm-40gb", 40, 40960, "HBM2", 1555e9, ("A100 40GB", "A100 SXM 40GB", "A100-40")),
    ("a100-sxm-80gb", 80, 81920, "HBM2e", 2039e9, ("A100", "A100 80GB", "A100 SXM", "A100-80")),
):
    _add(
        key=_key,
        name=f"A100 SXM {_gb} GB",
        vendor="NVIDIA",
        kind="gpu",
        memory_bytes=_mib * MiB,
        memory_type=_type,
        memory_bandwidth=_bw,
        peak_flops=_a100,
        sparse_peak_flops=sparse_headline(_a100, "tf32", "bf16", "fp16", "int8", "int4"),
        year=2020,
        sm_count=108,
        sm_label="SMs",
        l2_bytes=40 * MiB,
        sram_per_sm_bytes=192 * KiB,
        power_watts=400,
        link="nvlink3",
        links_per_gpu=12,
        host_link="pcie4",
        aliases=_aliases,
        memory_label_bytes=_gb * 1e9,
        memory_reported_published=True,
        memory_runtime_bytes=85_100_068_864 if _gb == 80 else None,
        boost_clock_hz=1410e6,
        tensor_flops_per_clock_per_sm=_A100_TENSOR,
        **sm_limits("8.0"),
        sources={**_A100_SOURCES, "memory_runtime_bytes": "thamada-devicequery"}
        if _gb == 80
        else _A100_SOURCES,
        notes="Ampere: no fp8. The 80 GB PCIe card has 1.935 TB/s and is not catalogued. "
        f"nvidia-smi reports {_mib:,} MiB ({_gb} GiB): the HBM is exactly binary-sized. "
        "4 tensor cores x 256 fp16 FMA x 2 = 2048 FLOP per clock per SM; 108 x 2048 x 1410 MHz "
        "= 312 TFLOP/s.",
    )

_hopper = {
    "fp64": 34e12,
    "fp32": 67e12,
    "tf32": 494.7e12,
    **same_rate(989.4e12, "bf16", "fp16"),
    "fp8": 1978.9e12,
    "int8": 1978.9e12,
}
_HOPPER_SPARSE = sparse_headline(_hopper, "tf32", "bf16", "fp16", "fp8", "int8")
# 4 tensor cores per SM x 512 dense fp16 FMA per clock x 2 FLOP (fp8/int8 twice, tf32 half).
_HOPPER_TENSOR = {"tf32": 2048, "bf16": 4096, "fp16": 4096, "fp8": 8192, "int8": 8192}
_add(
    key="h100-sxm",
    name="H100 SXM 80 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=81559 * MiB,
    memory_type="HBM3",
    memory_bandwidth=3.35e12,
    peak_flops=_hopper,
    sparse_peak_flops=_HOPPER_SPARSE,
    year=2022,
    sm_count=132,
    sm_label="SMs",
    l2_bytes=50 * MiB,
    sram_per_sm_bytes=256 * KiB,
    power_watts=700,
    link="nvlink4",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("H100", "H100 SXM", "H100 SXM5", "H100-80"),
    memory_label_bytes=80e9,
    memory_reported_published=True,
    memory_runtime_bytes=85_045_477_376,
    boost_clock_hz=1830e6,
    tensor_flops_per_clock_per_sm=_HOPPER_TENSOR,
    **sm_limits("9.0"),
    sources={
        "memory_bytes": "modal-pr-2797",
        "memory_runtime_bytes": "thamada-devicequery",
        "memory_label_bytes": "nv-h100",
        "boost_clock_hz": "glenn-lockwood",
        "tensor_flops_per_clock_per_sm": "nv-hopper-whitepaper",
        **cc_sources(),
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
    "2:4-sparse. 1830 MHz is the clock NVIDIA's peaks assume; nvidia-smi's maximum SM clock is "
    "1980 MHz. 3.0 TB/s in early DGX material was superseded by 3.35 TB/s. Up to 228 KiB of "
    "the 256 KiB per SM is usable as shared memory. nvidia-smi reports 81,559 MiB (85.52e9 B, "
    "79.6 GiB) for the '80 GB' part.",
)
_h100_pcie = {
    "fp64": 26e12,
    "fp32": 51e12,
    "tf32": 378e12,
    **same_rate(756e12, "bf16", "fp16"),
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
    sparse_peak_flops=sparse_headline(_h100_pcie, "tf32", "bf16", "fp16", "fp8", "int8"),
    year=2022,
    sm_count=114,
    sm_label="SMs",
    l2_bytes=50 * MiB,
    sram_per_sm_bytes=256 * KiB,
    power_watts=350,
    link=None,
    links_per_gpu=None,
    host_link="pcie5",
    aliases=("H100 PCIe",),
    memory_label_bytes=80e9,
    memory_reported_published=False,
    boost_clock_hz=1620e6,
    tensor_flops_per_clock_per_sm=_HOPPER_TENSOR,
    **sm_limits("9.0"),
    sources={
        "memory_bytes": "nv-h100-pcie-brief",
        "memory_label_bytes": "nv-h100-pcie-brief",
        "boost_clock_hz": "nv-h100",
        "tensor_flops_per_clock_per_sm": "nv-hopper-whitepaper",
        **cc_sources(),
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
    "a different part. No device-reported total is published for it, so memory_bytes is the "
    "label. The clock is derived: 756 TFLOP/s / (114 SMs x 4096 FLOP per clock) = 1620 MHz.",
)
_add(
    key="h200",
    name="H200 SXM 141 GB",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=143771 * MiB,
    memory_type="HBM3e",
    memory_bandwidth=4.8e12,
    peak_flops=_hopper,
    sparse_peak_flops=_HOPPER_SPARSE,
    year=2024,
    sm_count=132,
    sm_label="SMs",
    l2_bytes=50 * MiB,
    sram_per_sm_bytes=256 * KiB,
    power_watts=700,
    link="nvlink4",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("H200", "H200 SXM"),
    memory_label_bytes=141e9,
    memory_reported_published=True,
    memory_runtime_bytes=143156 * MiB,
    boost_clock_hz=1830e6,
    tensor_flops_per_clock_per_sm=_HOPPER_TENSOR,
    **sm_limits("9.0"),
    sources={
        "memory_bytes": "smi-public-logs",
        "memory_runtime_bytes": "achatbot-modal-logs",
        "memory_label_bytes": "nv-h200",
        "boost_clock_hz": "mle-accel",
        "tensor_flops_per_clock_per_sm": "nv-hopper-whitepaper",
        **cc_sources(),
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
    notes="Same compute as H100 SXM with more, faster memory (141 GB usable of 144 GB raw), so "
    "the same 1830 MHz peak clock. nvidia-smi reports 143,771 MiB (150.75e9 B). Announced "
    "November 2023, shipped 2024.",
)
_b200 = {
    "fp32": 80e12,
    "tf32": 1125e12,
    **same_rate(2.25e15, "bf16", "fp16"),
    "fp8": 4.5e15,
    "int8": 4.5e15,
    "fp4": 9e15,
}
_add(
    key="b200",
    name="B200 (HGX/DGX)",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=183359 * MiB,
    memory_type="HBM3e",
    memory_bandwidth=8e12,
    peak_flops=_b200,
    sparse_peak_flops=sparse_headline(_b200, "tf32", "bf16", "fp16", "fp8", "int8", "fp4"),
    year=2024,
    sm_count=148,
    sm_label="SMs",
    l2_bytes=126 * MiB,
    sram_per_sm_bytes=256 * KiB,
    power_watts=1000,
    link="nvlink5",
    links_per_gpu=18,
    host_link="pcie5",
    aliases=("B200",),
    memory_label_bytes=180e9,
    memory_reported_published=True,
    memory_runtime_bytes=182642 * MiB,
    **sm_limits("10.0"),
    sources={
        "memory_bytes": "trtllm-issue-10278",
        "memory_runtime_bytes": "achatbot-modal-logs",
        "memory_label_bytes": "mle-accel",
        **cc_sources(),
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
    "75-80 TFLOP/s; we use 80. nvidia-smi reports 183,359 MiB (192.27e9 B) for the '180 GB' "
    "part. Its boost clock and per-SM tensor rate are not in a published whitepaper here.",
)

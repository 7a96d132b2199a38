"""NVIDIA PCIe cards for inference and workstations: L4, T4, A10, RTX 4090."""

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


_l4 = {
    "fp32": 30.3e12,
    "tf32": 60e12,
    **same_rate(121e12, "bf16", "fp16"),
    "fp8": 242.5e12,
    "int8": 242.5e12,
}
_add(
    key="l4",
    name="L4",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=23034 * MiB,
    memory_type="GDDR6",
    memory_bandwidth=300e9,
    peak_flops=_l4,
    sparse_peak_flops=sparse_headline(_l4, "tf32", "bf16", "fp16", "fp8", "int8"),
    year=2023,
    sm_count=58,
    sm_label="SMs",
    l2_bytes=48 * MiB,
    sram_per_sm_bytes=128 * KiB,
    power_watts=72,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("L4", "NVIDIA L4"),
    memory_label_bytes=24e9,
    memory_reported_published=True,
    memory_runtime_bytes=23_570_219_008,
    boost_clock_hz=2040e6,
    tensor_flops_per_clock_per_sm={
        "tf32": 512,
        "bf16": 1024,
        "fp16": 1024,
        "fp8": 2048,
        "int8": 2048,
    },
    **sm_limits("8.9"),
    sources={
        "memory_label_bytes": "nv-l4",
        "boost_clock_hz": "nv-ada",
        "tensor_flops_per_clock_per_sm": "nv-ada",
        **cc_sources(),
        "memory_bytes": "modal-pr-2797",
        "memory_runtime_bytes": "thamada-devicequery",
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
    "L4 configuration (the full AD104 die has 60). nvidia-smi reports 23,034 MiB (24.15e9 B). 58 "
    "SMs x 1024 fp16 FLOP per clock x 2040 MHz = 121 TFLOP/s.",
)
_add(
    key="t4",
    name="T4",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=15360 * MiB,
    memory_type="GDDR6",
    memory_bandwidth=320e9,
    peak_flops={"fp32": 8.1e12, "fp16": 65e12, "int8": 130e12, "int4": 260e12},
    sparse_peak_flops={},
    year=2018,
    sm_count=40,
    sm_label="SMs",
    l2_bytes=4 * MiB,
    sram_per_sm_bytes=96 * KiB,
    power_watts=70,
    link=None,
    links_per_gpu=None,
    host_link="pcie3",
    aliases=("T4", "Tesla T4"),
    memory_label_bytes=16e9,
    memory_reported_published=True,
    boost_clock_hz=1590e6,
    tensor_flops_per_clock_per_sm={"fp16": 1024, "int8": 2048, "int4": 4096},
    **sm_limits("7.5"),
    sources={
        "memory_label_bytes": "nv-t4",
        "boost_clock_hz": "nv-turing-whitepaper",
        "tensor_flops_per_clock_per_sm": "nv-turing-whitepaper",
        **cc_sources(),
        "memory_bytes": "modal-pr-2797",
        "memory_bandwidth": "nv-t4",
        "peak_flops": "nv-t4",
        "year": "nv-t4",
        "sm_count": "nv-t4",
        "l2_bytes": "nv-turing-whitepaper",
        "sram_per_sm_bytes": "nv-turing-whitepaper",
        "power_watts": "nv-t4",
    },
    notes="Turing: fp16 tensor cores with fp32 accumulate, no bf16, no sparsity. Some guides "
    "round the bandwidth to 300 GB/s; the datasheet says 320. nvidia-smi reports 15,360 MiB "
    "(16.11e9 B). 40 SMs: the datasheet's 2,560 CUDA cores and 320 tensor cores at the Turing "
    "whitepaper's 64 and 8 per SM; L2 (4,096 KB, the whole TU104's) and 96 KB of L1/shared memory "
    "per SM from the whitepaper. 8 tensor cores x 64 FMA x 2 = 1024 fp16 FLOP per clock per SM; "
    "40 x 1024 x 1590 MHz = 65 TFLOP/s.",
)
_a10 = {
    "fp32": 31.2e12,
    "tf32": 62.5e12,
    **same_rate(125e12, "bf16", "fp16"),
    "int8": 250e12,
    "int4": 500e12,
}
_add(
    key="a10",
    name="A10",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=23028 * MiB,
    memory_type="GDDR6",
    memory_bandwidth=600e9,
    peak_flops=_a10,
    sparse_peak_flops=sparse_headline(_a10, "tf32", "bf16", "fp16", "int8", "int4"),
    year=2021,
    sm_count=72,
    sm_label="SMs",
    l2_bytes=6 * MiB,
    sram_per_sm_bytes=128 * KiB,
    power_watts=150,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("A10", "NVIDIA A10"),
    memory_label_bytes=24e9,
    memory_reported_published=True,
    boost_clock_hz=1695e6,
    tensor_flops_per_clock_per_sm={
        "tf32": 512,
        "bf16": 1024,
        "fp16": 1024,
        "int8": 2048,
        "int4": 4096,
    },
    **sm_limits("8.6"),
    sources={
        "memory_label_bytes": "nv-a10",
        "boost_clock_hz": "nv-ga102-whitepaper",
        "tensor_flops_per_clock_per_sm": "nv-ga102-whitepaper",
        **cc_sources(),
        "memory_bytes": "modal-pr-2797",
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
    "and its power as 300 W as nvidia-smi reports on g5. nvidia-smi reports 23,028 MiB (24.15e9 B;"
    " the source lists the A10 family as served in the cloud). 72 x 1024 fp16 FLOP per clock x "
    "1695 MHz = 125 TFLOP/s.",
)
_ada = {
    "fp32": 82.6e12,
    "tf32": 82.6e12,
    **same_rate(165.2e12, "bf16", "fp16"),
    "fp8": 330.3e12,
    "int8": 660.6e12,
    "int4": 1321.2e12,
}
_add(
    key="rtx-4090",
    name="GeForce RTX 4090",
    vendor="NVIDIA",
    kind="gpu",
    memory_bytes=24564 * MiB,
    memory_type="GDDR6X",
    memory_bandwidth=1008e9,
    peak_flops=_ada,
    sparse_peak_flops=sparse_headline(_ada, "tf32", "bf16", "fp16", "fp8", "int8", "int4"),
    year=2022,
    sm_count=128,
    sm_label="SMs",
    l2_bytes=72 * MiB,
    sram_per_sm_bytes=128 * KiB,
    power_watts=450,
    link=None,
    links_per_gpu=None,
    host_link="pcie4",
    aliases=("RTX 4090", "4090", "GeForce RTX 4090"),
    memory_label_bytes=24e9,
    memory_reported_published=True,
    boost_clock_hz=2520e6,
    tensor_flops_per_clock_per_sm={
        "tf32": 256,
        "bf16": 512,
        "fp16": 512,
        "fp8": 1024,
        "int8": 2048,
        "int4": 4096,
    },
    **sm_limits("8.9"),
    sources={
        "memory_label_bytes": "nv-ada",
        "boost_clock_hz": "nv-ada",
        "tensor_flops_per_clock_per_sm": "nv-ada",
        **cc_sources(),
        "memory_bytes": "smi-public-logs",
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
    "fp32-accumulate figures (fp16 accumulate doubles them). No NVLink. nvidia-smi reports 24,564 "
    "MiB (25.76e9 B). 128 SMs x 512 FLOP per clock (fp32 accumulate) x 2520 MHz = 165.2 TFLOP/s.",
)

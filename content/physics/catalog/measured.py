"""Published measurements: what real kernels, runtimes and servers achieve, beside the peaks.

A datasheet gives ceilings; these entries give the fractions of them that measured code reaches,
and the fixed costs a roofline leaves out.  Each is one number in SI base units of ``unit``,
with what it measures (``kind``, ``variant``), on what part, format and shape, and its source:

- ``stream``: HBM bandwidth a STREAM kernel sustains (copy, triad, dot);
- ``matmul``: FLOP/s of one matrix product shape (m, n, k), and ``mamf``, the best over a search
  of shapes (Bekman's "maximum achievable matmul FLOPS");
- ``runtime``: memory the CUDA runtime holds before a program allocates anything;
- ``engine``: memory a serving engine sets aside inside its budget, and what it leaves for the
  KV cache, as its own log prints them;
- ``policy``: a serving engine's default setting (vLLM's memory utilization);
- ``launch``: the time to issue kernels and CUDA graphs;
- ``decode``: measured decode throughput of a whole model, for worked predictions;
- ``sparse``: the measured speed-up of a 2:4-sparse product or model over its dense twin (dense
  time ÷ sparse time; below 1 is a slow-down), against the datasheet's 2;
- ``link``: bandwidth a copy achieves over a host link (PCIe, NVLink-C2C), per direction;
- ``serving``: output tokens/s of a serving engine running a static batch of fixed-length
  requests, ``shape`` = (batch, input tokens, output tokens), for forecasts checked against it;
- ``latency``: the load latency of one pointer chase through a memory level (seconds);
- ``attention``: FLOP/s of a fused attention kernel, ``shape`` = (batch, sequence, head dim).

Keys are stable: "<part>/stream-dot", "<part>/matmul-bf16-4096x4096x4096", "<part>/mamf-bf16",
"cuda-context", "launch/graph-node".  Functions look entries up by key, so a question variant
records every measurement its answer used (``catalog.snapshot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite

KINDS = (
    "stream",
    "matmul",
    "mamf",
    "runtime",
    "engine",
    "policy",
    "launch",
    "decode",
    "sparse",
    "link",
    "serving",
    "latency",
    "attention",
)


@dataclass(frozen=True)
class Measurement:
    """One published measurement: ``value`` in SI base units of ``unit`` ("B/s", "FLOP/s", "s",
    "B", "tokens/s", "" for a fraction), of ``kind`` and ``variant``, on ``part`` (an accelerator
    key, or None for a runtime-wide figure) in ``dtype`` at ``shape``."""

    key: str
    name: str
    kind: str
    value: float
    unit: str
    part: str | None = None
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    variant: str = ""
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "shape", tuple(self.shape))
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: unknown kind {self.kind!r}; use one of {KINDS}")
        if "value" not in self.sources:
            raise ValueError(f"{self.key}: the value has no source")

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def _m(key, name, kind, value, unit, source, **kwargs) -> Measurement:
    return Measurement(key, name, kind, value, unit, sources={"value": source}, **kwargs)


def _stream(part, label, figures, source):
    return [
        _m(
            f"{part}/stream-{variant}",
            f"{label}, STREAM {variant}",
            "stream",
            value,
            "B/s",
            source,
            part=part,
            variant=variant,
        )
        for variant, value in figures.items()
    ]


def _matmuls(part, label, dt, figures, source, *, extra=""):
    return [
        _m(
            f"{part}/matmul-{dt}-{n}x{n}x{n}",
            f"{label}, {dt} matmul {n}x{n}x{n}",
            "matmul",
            value,
            "FLOP/s",
            source,
            part=part,
            dtype=dt,
            shape=(n, n, n),
            notes=extra,
        )
        for n, value in figures.items()
    ]


def _serving(part, label, dt, runs, source, *, extra=""):
    """Static-batch runs of one model on one GPU: {(batch, input, output): output tokens/s}."""
    return [
        _m(
            f"serving/trtllm-llama-2-7b-{part}-{dt}-{b}x{i}x{o}",
            f"TensorRT-LLM 0.6.1, Llama-2-7B {dt} on one {label}, batch {b}, {i} in, {o} out",
            "serving",
            value,
            "tokens/s",
            source,
            part=part,
            dtype=dt,
            shape=(b, i, o),
            variant="static-batch",
            notes=extra,
        )
        for (b, i, o), value in runs.items()
    ]


_TRTLLM = (
    "The table's 'LLaMA 7B'; its methods section builds Llama2-7b engines. The A100's "
    "memory size and form are not printed: a batch of 384 at 256 tokens needs 64 GB, so 80 GB, "
    "taken as the SXM part."
)

_AZURE = "cuBLASLt, random data, 10,000 warm-up iterations (Azure's benchmarking guide)."

_MEASUREMENTS = (
    # HBM bandwidth sustained by STREAM kernels.  "dot" only reads, like a decode step streaming
    # its weights; "copy" reads one array and writes another; "triad" reads two, writes one.
    *_stream(
        "a100-sxm-80gb",
        "A100 SXM 80 GB",
        {"copy": 1.61e12, "triad": 1.70e12, "dot": 1.75e12},
        "azure-ai-benchmarks",
    ),
    *_stream(
        "h100-sxm",
        "H100 SXM",
        {"copy": 2.90e12, "triad": 2.97e12, "dot": 3.18e12},
        "azure-ai-benchmarks",
    ),
    *_stream(
        "h200",
        "H200",
        {"copy": 4.01e12, "triad": 4.15e12, "dot": 4.48e12},
        "azure-ai-benchmarks",
    ),
    # Matrix products by size.  Square bf16 on the H100 SXM from XLA's measured table (values
    # above the H100 PCIe's 756 TFLOP/s peak place it on the SXM part); fp8 and fp16 from Azure.
    *_matmuls(
        "h100-sxm",
        "H100 SXM",
        "bf16",
        {
            256: 6_452_775_384_615,
            1024: 236_298_816_901_408,
            2048: 631_984_593_290_170,
            4096: 783_328_793_548_203,
        },
        "xla-matmul-table",
    ),
    *_matmuls("h100-sxm", "H100 SXM", "bf16", {8192: 795e12}, "fast-cu", extra="cuBLAS."),
    _m(
        "h100-sxm/matmul-bf16-4096x4096x4096@fast-cu",
        "H100 SXM, bf16 matmul 4096x4096x4096 (cuBLAS, fast.cu)",
        "matmul",
        716e12,
        "FLOP/s",
        "fast-cu",
        part="h100-sxm",
        dtype="bf16",
        shape=(4096, 4096, 4096),
        variant="fast-cu",
        notes="A second measurement of the same shape: two careful runs differ by 9%.",
    ),
    *_matmuls(
        "h100-sxm",
        "H100 SXM",
        "fp8",
        {
            1024: 274.1e12,
            2048: 1011.3e12,
            4096: 1216.9e12,
            8192: 1290.1e12,
            16384: 1377.3e12,
            32768: 1382.2e12,
        },
        "azure-ai-benchmarks",
        extra=_AZURE,
    ),
    *_matmuls(
        "h200",
        "H200",
        "fp8",
        {
            1024: 290.8e12,
            2048: 1013.4e12,
            4096: 1249.1e12,
            8192: 1300.6e12,
            16384: 1366.3e12,
            32768: 1349.5e12,
        },
        "azure-ai-benchmarks",
        extra=_AZURE,
    ),
    *_matmuls(
        "a100-sxm-80gb",
        "A100 SXM 80 GB",
        "fp16",
        {1024: 119.4e12, 2048: 221.8e12, 4096: 228.0e12, 8192: 253.7e12, 16384: 256.5e12},
        "azure-ai-benchmarks",
        extra=_AZURE,
    ),
    # Maximum achievable matmul FLOP/s: the best of a search over shapes.
    _m(
        "h100-sxm/mamf-bf16",
        "H100 SXM, maximum achievable bf16 matmul",
        "mamf",
        794.5e12,
        "FLOP/s",
        "mle-accel",
        part="h100-sxm",
        dtype="bf16",
        shape=(6144, 17920, 2816),
        notes="Best of Bekman's shape search; its best shape is the one given.",
    ),
    _m(
        "a100-sxm-80gb/mamf-bf16",
        "A100 SXM 80 GB, maximum achievable bf16 matmul",
        "mamf",
        271e12,
        "FLOP/s",
        "mle-accel",
        part="a100-sxm-80gb",
        dtype="bf16",
    ),
    _m(
        "b200/mamf-bf16",
        "B200, maximum achievable bf16 matmul",
        "mamf",
        1745e12,
        "FLOP/s",
        "mle-accel",
        part="b200",
        dtype="bf16",
    ),
    # Memory the runtime holds before a program allocates.
    _m(
        "cuda-context",
        "CUDA context of a PyTorch process (lazy module loading)",
        "runtime",
        287_047_680,
        "B",
        "pytorch-pr-86509",
        variant="lazy",
        notes="Lazy loading is PyTorch's default since 1.13 and CUDA's since 12.2.",
    ),
    _m(
        "cuda-context-eager",
        "CUDA context of a PyTorch process (every module loaded eagerly)",
        "runtime",
        666_632_192,
        "B",
        "pytorch-pr-86509",
        variant="eager",
    ),
    # What vLLM sets aside inside its budget before the KV cache gets the rest, from its own
    # profiling log (Llama-3-8B, one H100 80 GB and two; vllm-pr-10511).  Values in bytes.
    _m(
        "vllm/non-torch-tp1",
        "vLLM non-torch memory (cuBLAS and NCCL workspaces, ...) of one GPU serving alone",
        "engine",
        1.79 * 2**30,
        "B",
        "vllm-pr-10511",
        part="h100",
        shape=(1,),
        notes="Printed as 1.79 GiB; memory the GPU holds outside PyTorch's allocator.",
    ),
    _m(
        "vllm/non-torch-tp2",
        "vLLM non-torch memory of each GPU at tensor parallelism 2 (NCCL buffers included)",
        "engine",
        3.58 * 2**30,
        "B",
        "vllm-pr-10511",
        part="h100",
        shape=(2,),
        notes="Printed as 3.58 GiB; NCCL's buffers double it against one GPU. The log gives no "
        "figure at 4 or 8 GPUs; the book uses this one for every degree above 1, a floor.",
    ),
    _m(
        "vllm/activation-peak",
        "vLLM's PyTorch activation peak in its profiling pass (Llama-3-8B, default batch)",
        "engine",
        1.26 * 2**30,
        "B",
        "vllm-pr-10511",
        part="h100",
        notes="Printed as 1.26 GiB, the same at tensor parallelism 1 and 2. Measured on "
        "Llama-3-8B; other models' peaks differ by a GB or so, which the book states.",
    ),
    _m(
        "vllm/kv-cache-llama-3-8b-h100",
        "vLLM's available_kv_cache_memory, Llama-3-8B bf16 on one H100 80 GB",
        "engine",
        53.29 * 2**30,
        "B",
        "vllm-pr-10511",
        part="h100",
        dtype="bf16",
        shape=(1,),
        notes="Printed as 53.29 GiB: 0.9 x 79.22 GiB - 14.96 - 1.79 - 1.26 GiB.",
    ),
    _m(
        "vllm-gpu-memory-utilization",
        "vLLM's default gpu_memory_utilization",
        "policy",
        0.9,
        "",
        "vllm-cache-config",
        notes="The fraction of the runtime's total memory vLLM budgets for weights, "
        "activations, CUDA graphs and KV cache (vllm-gpu-worker); 0.92 in the newest releases.",
    ),
    # The most sequences a default vLLM server schedules at once (max_num_seqs), by GPU:
    # ``serving.serving_batch_cap`` picks one.
    _m(
        "vllm/max-num-seqs",
        "vLLM's default max_num_seqs on an A100 or a GPU under 70 GiB",
        "policy",
        256,
        "",
        "vllm-batch-defaults",
    ),
    _m(
        "vllm/max-num-seqs-large",
        "vLLM's default max_num_seqs on a GPU of at least 70 GiB that is not an A100",
        "policy",
        1024,
        "",
        "vllm-batch-defaults",
        notes="vLLM's profiling found the larger cap faster on H100-class GPUs (PR #16158).",
    ),
    # Launching work: what the overhead regime is made of.
    _m(
        "launch/eager-cpu",
        "CPU time of one kernel launch from an eager framework (low end)",
        "launch",
        5e-6,
        "s",
        "hta-launch-stats",
        variant="eager",
        notes="HTA's documentation puts it at 5-20 us; the high end is launch/eager-cpu-high.",
    ),
    _m(
        "launch/eager-cpu-high",
        "CPU time of one kernel launch from an eager framework (high end)",
        "launch",
        20e-6,
        "s",
        "hta-launch-stats",
        variant="eager-high",
    ),
    _m(
        "launch/enqueue",
        "CPU time to enqueue one kernel on a CUDA stream",
        "launch",
        2.65e-6,
        "s",
        "ocannl-488",
        variant="stream",
        notes="RTX 5070 Ti, CUDA 13.3, no-op kernels.",
    ),
    _m(
        "launch/with-sync",
        "One kernel launched and waited for",
        "launch",
        6.4e-6,
        "s",
        "ocannl-488",
        variant="sync",
    ),
    _m(
        "launch/graph",
        "Launching one CUDA graph (fixed part)",
        "launch",
        15e-6,
        "s",
        "ocannl-488",
        variant="graph",
    ),
    _m(
        "launch/graph-node",
        "Each kernel node of a replayed CUDA graph",
        "launch",
        0.58e-6,
        "s",
        "ocannl-488",
        variant="graph-node",
    ),
    # Whole-model decode throughput, for predictions checked against measurement.
    # How far below the STREAM dot a decode kernel sits: RRZE's read benchmark on the H200 (the
    # H100's die, HBM3e) and Databricks' model-bandwidth utilisation of whole decode steps.
    _m(
        "h200/hbm-read@rrze",
        "H200, HBM read bandwidth (RRZE gpu-benches)",
        "stream",
        3.89e12,
        "B/s",
        "rrze-gpu-benches",
        part="h200",
        variant="rrze-read",
        notes="3.89 of 4.8 TB/s; Azure's STREAM dot on the same part reads 4.48.",
    ),
    *(
        _m(
            f"decode/databricks-mbu-batch1-{end}",
            f"Databricks, decode model-bandwidth utilisation at batch 1 ({end} of the range)",
            "decode",
            value,
            "",
            "databricks-inference",
            variant=end,
            notes="TensorRT-LLM on 4x A100-40GB and 2x H100: 55-60% of peak bandwidth.",
        )
        for end, value in (("low", 0.55), ("high", 0.60))
    ),
    _m(
        "decode/gpt-fast-llama-2-7b-bf16",
        "gpt-fast, Llama-2-7B bf16, batch 1, compiled with CUDA graphs",
        "decode",
        104.9,
        "tokens/s",
        "gpt-fast",
        part="a100-sxm-80gb",
        dtype="bf16",
        notes="A100-80GB power-limited to 330 W; a 5-token prompt.",
    ),
    _m(
        "decode/gpt-fast-llama-2-7b-eager",
        "gpt-fast's starting point, Llama-2-7B, batch 1, eager PyTorch",
        "decode",
        25.5,
        "tokens/s",
        "pytorch-gpt-fast-blog",
        part="a100-sxm-80gb",
        dtype="bf16",
        variant="eager",
    ),
    _m(
        "decode/gpt-fast-blog-llama-2-7b-compiled",
        "gpt-fast's blog, Llama-2-7B, batch 1, torch.compile with a static KV cache",
        "decode",
        107.0,
        "tokens/s",
        "pytorch-gpt-fast-blog",
        part="a100-sxm-80gb",
        dtype="bf16",
        variant="compiled",
        notes="The same A100-80GB at 330 W as the eager 25.5 tokens/s of the same post.",
    ),
    _m(
        "a100-sxm-80gb/stream-gpt-fast",
        "Peak bandwidth gpt-fast observed on its power-limited A100-80GB",
        "stream",
        1700e9,
        "B/s",
        "gpt-fast",
        part="a100-sxm-80gb",
        variant="gpt-fast",
    ),
    _m(
        "decode/llamacpp-llama-2-7b-q4km",
        "llama.cpp, Llama-2-7B Q4_K_M, H100 PCIe, kernels launched one by one",
        "decode",
        143.35,
        "tokens/s",
        "llamacpp-6763",
        part="h100-pcie",
        variant="stream",
    ),
    _m(
        "decode/llamacpp-llama-2-7b-q4km-graphs",
        "llama.cpp, Llama-2-7B Q4_K_M, H100 PCIe, one CUDA graph per token",
        "decode",
        163.83,
        "tokens/s",
        "llamacpp-6763",
        part="h100-pcie",
        variant="graph",
    ),
    # 2:4 structured sparsity as measured: the datasheet doubles the math rate, not the speed.
    _m(
        "sparse/a100-fp16-4096",
        "A100, fp16 4096x4096x4096: 2:4 sparse (cuSPARSELt) over dense (CUTLASS)",
        "sparse",
        0.607959 / 0.545792,
        "",
        "cudalibrarysamples-57",
        dtype="fp16",
        shape=(4096, 4096, 4096),
        notes="0.607959 ms dense against 0.545792 ms sparse; the A100's memory size is not given.",
    ),
    _m(
        "sparse/h100-8192",
        "H100, 8192x8192x8192: 2:4 sparse over dense (cuSPARSELt's example)",
        "sparse",
        1.21,
        "",
        "cudalibrarysamples-203",
        part="h100-sxm",
        shape=(8192, 8192, 8192),
        notes="Reported as 1.20-1.22x by the issue's author and reproduced by the maintainer; "
        "the midpoint.",
    ),
    _m(
        "sparse/llama-2-7b-decode",
        "Llama-2-7B decode, 2:4-sparse model over the dense one (RTX 4090)",
        "sparse",
        1 / 1.12,
        "",
        "cudalibrarysamples-276",
        variant="decode",
        notes="'About 12% slower', read from the issue's figure: a time ratio of 1.12.",
    ),
    # Serving engines on static batches of fixed-length requests (one GPU, no tensor parallelism).
    *_serving(
        "a100-sxm-80gb",
        "A100 80 GB",
        "fp16",
        {(384, 128, 128): 5586, (60, 128, 2048): 1928, (52, 2048, 128): 591},
        "trtllm-perf-0.6.1",
        extra=_TRTLLM,
    ),
    *_serving(
        "h100-sxm",
        "H100 SXM",
        "fp8",
        {
            (768, 128, 128): 19694,
            (112, 128, 2048): 6818,
            (80, 2048, 128): 2244,
            (48, 2048, 2048): 2740,
        },
        "trtllm-perf-0.6.1",
        extra="FP8 weights and FP8 KV cache (--enable_fp8 --fp8_kv_cache), on an "
        "H100-HBM3-80GB system.",
    ),
    # Host links as copies achieve them, per direction.
    _m(
        "h100-sxm/pcie5-d2h",
        "H100 server, PCIe Gen5 copy from GPU to host (SM copy kernel)",
        "link",
        52.77e9,
        "B/s",
        "nvbandwidth-24",
        part="h100-sxm",
        variant="d2h",
        notes="An 8-GPU H100 server; the same cluster's host-to-device copies reached only "
        "35.2 GB/s (h100-sxm/pcie5-h2d).",
    ),
    _m(
        "h100-sxm/pcie5-h2d",
        "H100 server, PCIe Gen5 copy from host to GPU (SM copy kernel)",
        "link",
        35.19e9,
        "B/s",
        "nvbandwidth-24",
        part="h100-sxm",
        variant="h2d",
    ),
    # nvbandwidth on a cloud 8-GPU H100 server, the typical symmetric case.
    _m(
        "h100-sxm/pcie5-h2d-azure",
        "Azure ND H100 v5, nvbandwidth host-to-device copy",
        "link",
        51e9,
        "B/s",
        "azure-ai-benchmarks",
        part="h100-sxm",
        variant="h2d",
    ),
    _m(
        "h100-sxm/pcie5-d2h-azure",
        "Azure ND H100 v5, nvbandwidth device-to-host copy",
        "link",
        52e9,
        "B/s",
        "azure-ai-benchmarks",
        part="h100-sxm",
        variant="d2h",
    ),
    # One warp chasing pointers through HBM (markdewing/AI_kernels, latency/data/h100sxm.dat:
    # 695-703 cycles past the L2, 700 in its README table), converted at the 1.98 GHz boost clock
    # (its runs did not lock the clock).  RRZE's GH200 figure, 688 cycles, agrees within 2%.
    _m(
        "h100-sxm/hbm-latency",
        "H100 SXM, HBM load latency by pointer chase (700 cycles at 1.98 GHz)",
        "latency",
        700 / 1.98e9,
        "s",
        "markdewing-latency",
        part="h100-sxm",
        variant="pointer-chase",
    ),
    # FlashAttention-2 forward, head dimension 128, batch 2, sequence 8192 (Azure's guide).
    _m(
        "h100-sxm/flash-attention-2",
        "Azure ND H100 v5, FlashAttention-2 forward (head dim 128, batch 2, sequence 8192)",
        "attention",
        327.9e12,
        "FLOP/s",
        "azure-ai-benchmarks",
        part="h100-sxm",
        shape=(2, 8192, 128),
        variant="flash-attention-2",
        notes="Against 145.1 TFLOP/s for PyTorch's unfused attention on the same server.",
    ),
    _m(
        "gh200/nvlink-c2c-h2d",
        "GH200, NVLink-C2C copy from the Grace CPU's memory to the GPU (copy engine)",
        "link",
        346e9,
        "B/s",
        "nvbandwidth-23",
        variant="h2d",
        notes="Against NVLink-C2C's 450 GB/s per direction.",
    ),
)

MEASUREMENTS = Registry("measurement", _MEASUREMENTS)


def measurement(key: str | Measurement) -> Measurement:
    """The measurement with this key (case-insensitive); KeyError names close keys."""
    return MEASUREMENTS.get(key, Measurement)


def measurements() -> tuple[Measurement, ...]:
    """Every measurement, in catalog order."""
    return MEASUREMENTS.all()


def measured_keys(prefix: str) -> tuple[str, ...]:
    """Keys that start with ``prefix`` (a listing only: it records no look-up)."""
    return tuple(m.key for m in MEASUREMENTS.all() if m.key.startswith(prefix))


__all__ = [
    "KINDS",
    "MEASUREMENTS",
    "Measurement",
    "measured_keys",
    "measurement",
    "measurements",
]

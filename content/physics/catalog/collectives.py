"""Published timings of collectives: what one all-reduce of a given payload took on real GPUs.

The latency-plus-bandwidth model of ``content.physics.collectives`` needs one number no
datasheet prints, the fixed cost of starting a collective.  These entries are its calibration:
each is one row of a published measurement, kept as the source prints it (a payload with an
"algorithm bandwidth" or a "bus bandwidth", or a time), and ``seconds`` derives the elapsed time
from whichever the source gave.  nccl-tests' conventions apply: the algorithm bandwidth is
payload ÷ time; the bus bandwidth of an all-reduce is that times 2 (n − 1) ÷ n, which equals the
per-direction link rate only for the ring algorithm.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite

ALGORITHMS = ("ring", "tree", "in-switch", "one-shot", "hierarchical")


@dataclass(frozen=True)
class CollectiveMeasurement:
    """One published all-reduce timing on ``gpus`` GPUs over ``nodes`` servers.

    Exactly one of ``seconds``, ``algorithm_bandwidth`` or ``bus_bandwidth`` is the figure the
    source prints; the others are None.  ``payload_bytes`` is the buffer on each GPU.
    """

    key: str
    name: str
    implementation: str
    algorithm: str
    gpus: int
    nodes: int
    accelerator: str
    link: str
    payload_bytes: float
    seconds_printed: float | None = None
    algorithm_bandwidth: float | None = None
    bus_bandwidth: float | None = None
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        given = [self.seconds_printed, self.algorithm_bandwidth, self.bus_bandwidth]
        if sum(value is not None for value in given) != 1:
            raise ValueError(f"{self.key}: give exactly one of a time or a bandwidth")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"{self.key}: unknown algorithm {self.algorithm!r}")

    @property
    def seconds(self) -> float:
        """Elapsed time of one all-reduce: as printed, or payload ÷ algorithm bandwidth, or
        payload × 2 (n − 1) ÷ n ÷ bus bandwidth."""
        if self.seconds_printed is not None:
            return self.seconds_printed
        if self.algorithm_bandwidth is not None:
            return self.payload_bytes / self.algorithm_bandwidth
        factor = 2 * (self.gpus - 1) / self.gpus
        return self.payload_bytes * factor / self.bus_bandwidth  # type: ignore[operator]

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def _m(key, name, implementation, algorithm, gpus, part, ln, payload, src, *, nodes=1, **fig):
    printed = [k for k in ("seconds_printed", "algorithm_bandwidth", "bus_bandwidth") if k in fig]
    sources = {"payload_bytes": src, **dict.fromkeys(printed, src)}
    return CollectiveMeasurement(
        key, name, implementation, algorithm, gpus, nodes, part, ln, payload, sources=sources, **fig
    )


KiB, GiB = 1024, 1024**3

_MEASUREMENTS = (
    _m(
        "nccl-8xh200-32kib",
        "NCCL all-reduce of 32 KiB on 8 H200s (blocking, through PyTorch)",
        "NCCL via torch.distributed, each call waited for",
        "ring",
        8,
        "h200",
        "nvlink4",
        32 * KiB,
        "mle-net",
        algorithm_bandwidth=0.82e9,
        notes="Bekman's all_reduce_bench sweep; NCCL reports Ring with the LL protocol up to "
        "1 MiB. At this size the bandwidth term is a fraction of a microsecond, so the time is "
        "the collective's fixed cost.",
    ),
    _m(
        "nccl-ring-8xh200-16gib",
        "NCCL ring all-reduce of 16 GiB on 8 H200s (in-switch reduction off)",
        "NCCL via torch.distributed, NCCL_NVLS_ENABLE=0",
        "ring",
        8,
        "h200",
        "nvlink4",
        16 * GiB,
        "mle-net",
        bus_bandwidth=367.61e9,
        notes="82% of NVLink 4's 450 GB/s per direction.",
    ),
    _m(
        "nccl-nvls-8xh200-16gib",
        "NCCL all-reduce of 16 GiB on 8 H200s with NVLink SHARP (NVLS)",
        "NCCL via torch.distributed, NVLS chosen from 2 MiB up",
        "in-switch",
        8,
        "h200",
        "nvlink4",
        16 * GiB,
        "mle-net",
        algorithm_bandwidth=275.58e9,
        notes="Printed bus bandwidth 482.26 GB/s: above the link rate because busbw assumes the "
        "ring's traffic, and in-switch reduction moves less.",
    ),
    _m(
        "vllm-custom-8xh100-16kib",
        "vLLM's custom all-reduce of 16 KiB on 8 H100s",
        "vLLM custom all-reduce kernel (one-shot for small buffers), no CUDA graph",
        "one-shot",
        8,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=9.3e-6,
        notes="4096 fp32 values per GPU; time per call from a 5000-call loop.",
    ),
    _m(
        "trtllm-custom-8xh100-16kib",
        "TensorRT-LLM's custom all-reduce (SGLang port) of 16 KiB on 8 H100s",
        "TensorRT-LLM custom all-reduce kernel as ported to SGLang, no CUDA graph",
        "one-shot",
        8,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=5.7e-6,
        notes="Same harness and sizes as the vLLM row.",
    ),
    _m(
        "vllm-custom-2xh100-16kib",
        "vLLM's custom all-reduce of 16 KiB on 2 H100s",
        "vLLM custom all-reduce kernel (one-shot for small buffers), no CUDA graph",
        "one-shot",
        2,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=8.8e-6,
        notes="Same harness and sizes as the 8-GPU row (4096 fp32 values per GPU).",
    ),
    _m(
        "vllm-custom-4xh100-16kib",
        "vLLM's custom all-reduce of 16 KiB on 4 H100s",
        "vLLM custom all-reduce kernel (one-shot for small buffers), no CUDA graph",
        "one-shot",
        4,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=8.5e-6,
        notes="Same harness and sizes as the 8-GPU row (4096 fp32 values per GPU).",
    ),
    _m(
        "trtllm-custom-2xh100-16kib",
        "TensorRT-LLM's custom all-reduce (SGLang port) of 16 KiB on 2 H100s",
        "TensorRT-LLM custom all-reduce kernel as ported to SGLang, no CUDA graph",
        "one-shot",
        2,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=3.9e-6,
        notes="Same harness and sizes as the 8-GPU row (4096 fp32 values per GPU).",
    ),
    _m(
        "trtllm-custom-4xh100-16kib",
        "TensorRT-LLM's custom all-reduce (SGLang port) of 16 KiB on 4 H100s",
        "TensorRT-LLM custom all-reduce kernel as ported to SGLang, no CUDA graph",
        "one-shot",
        4,
        "h100-sxm",
        "nvlink4",
        16 * KiB,
        "sglang-pr-2904",
        seconds_printed=3.7e-6,
        notes="Same harness and sizes as the 8-GPU row (4096 fp32 values per GPU).",
    ),
    _m(
        "nccl-8xb200-4gib",
        "NCCL all-reduce of 4 GiB on one server of 8 B200s",
        "NCCL via torch.distributed",
        "in-switch",
        8,
        "b200",
        "nvlink5",
        4 * GiB,
        "mle-net",
        bus_bandwidth=740.64e9,
    ),
    _m(
        "nccl-4x8xb200-4gib",
        "NCCL all-reduce of 4 GiB on 4 servers of 8 B200s (32 GPUs)",
        "NCCL via torch.distributed, 8 NICs of 50 GB/s per server",
        "hierarchical",
        32,
        "b200",
        "efa-v4",
        4 * GiB,
        "mle-net",
        nodes=4,
        bus_bandwidth=377.34e9,
        notes="AWS P6-B200: NVLink 5 inside each server, one 50 GB/s EFA v4 port per GPU out.",
    ),
)

MEASUREMENTS = Registry("collective-measurement", _MEASUREMENTS)


def collective_measurement(name: str | CollectiveMeasurement) -> CollectiveMeasurement:
    """The measurement called ``name`` (``"nccl-8xh200-32kib"``, ...)."""
    return MEASUREMENTS.get(name, CollectiveMeasurement)


def collective_measurements() -> tuple[CollectiveMeasurement, ...]:
    """Every catalogued collective timing."""
    return MEASUREMENTS.all()

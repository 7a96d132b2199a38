"""The memory hierarchy of one accelerator: registers, shared memory/L1, L2, main memory, host.

H100 SXM has measured latencies and bandwidths for every level; other parts reuse what their
catalog entry publishes (sizes, main-memory and host-link bandwidth) and leave the rest None.
``size_bytes`` is per ``scope`` and exact (on-chip sizes are binary: 256 KiB, 50 MiB);
``bandwidth`` is the aggregate of the whole GPU (bytes/s).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, freeze
from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.accelerators._entry import KiB, MiB
from content.physics.catalog.links import link
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class MemoryLevel:
    """One level: capacity (bytes), bandwidth (bytes/s) and load latency (seconds)."""

    name: str
    size_bytes: float | None
    bandwidth: float | None
    latency: float | None
    scope: str
    sources: Mapping[str, str] = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


def _level(name, size, bandwidth, latency, scope, size_src=None, bw_src=None, lat_src=None):
    sources = {}
    for field_name, value, src in (
        ("size_bytes", size, size_src),
        ("bandwidth", bandwidth, bw_src),
        ("latency", latency, lat_src),
    ):
        if value is not None:
            sources[field_name] = src
    return MemoryLevel(name, size, bandwidth, latency, scope, sources)


# Latencies are pointer-chase measurements: ~32 cycles (L1), ~280 (L2), ~690 (HBM) at 1.98 GHz.
# L1 bandwidth is derived: 132 SMs x 128 B/clock x 1.98 GHz.
_H100 = (
    _level("registers", 65536 * 4, None, None, "per SM", size_src="sb-gpus"),
    _level(
        "shared memory / L1",
        256 * KiB,
        132 * 128 * 1.98e9,
        16e-9,
        "per SM",
        size_src="mle-accel",
        bw_src="rrze-gpu-benches",
        lat_src="rrze-gpu-benches",
    ),
    _level(
        "L2",
        50 * MiB,
        5.5e12,
        142e-9,
        "per GPU",
        size_src="sb-gpus",
        bw_src="sb-gpus",
        lat_src="rrze-gpu-benches",
    ),
    _level(
        "HBM3",
        81559 * MiB,  # as nvidia-smi reports it (the datasheet's label is "80 GB")
        3.35e12,
        350e-9,
        "per GPU",
        size_src="modal-pr-2797",
        bw_src="nv-h100",
        lat_src="rrze-gpu-benches",
    ),
    _level(
        "host memory (PCIe Gen5 x16)",
        2e12,
        63e9,
        None,
        "host",
        size_src="mlperf-h200-system",
        bw_src="mle-net",
    ),
)


def memory_hierarchy(acc: str | Accelerator = "H100") -> tuple[MemoryLevel, ...]:
    """Levels from fastest to largest: registers, shared memory/L1, L2, main memory, host.

    H100 SXM levels carry measured latencies; for other parts the sizes and bandwidths come from
    the accelerator's own catalog entry and unpublished figures are None.  Host memory size is an
    example server's (2 TB in an 8-GPU H200 server), shared by all its GPUs.
    """
    part = accelerator(acc)
    if part.key == "h100-sxm":
        return _H100
    src = part.source_key
    host_bw = link(part.host_link).bandwidth if part.host_link else None
    return (
        _level("registers", None, None, None, "per SM"),
        _level(
            "shared memory / L1",
            part.sram_per_sm_bytes,
            None,
            None,
            "per SM",
            size_src=src("sram_per_sm_bytes"),
        ),
        _level("L2", part.l2_bytes, None, None, "per GPU", size_src=src("l2_bytes")),
        _level(
            part.memory_type,
            part.memory_bytes,
            part.memory_bandwidth,
            None,
            "per GPU",
            size_src=src("memory_bytes"),
            bw_src=src("memory_bandwidth"),
        ),
        _level(
            f"host memory ({link(part.host_link).name})" if part.host_link else "host memory",
            None,
            host_bw,
            None,
            "host",
            bw_src=link(part.host_link).sources["bandwidth"] if part.host_link else None,
        ),
    )

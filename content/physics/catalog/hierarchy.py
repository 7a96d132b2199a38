"""The memory hierarchy of one accelerator: registers, shared memory/L1, L2, main memory, host.

Each level's figures have one home.  Sizes and bandwidths a datasheet publishes (shared memory
per SM, L2, main memory, the host link) come from the accelerator's and the link's catalog
entries; what only a measurement gives (on-chip bandwidths, load latencies, the register file,
an example server's host memory) is a ``MeasuredLevel`` in its own catalog (a ``Registry`` of
kind "memory-level", keyed "<part>/<level>").  Both are catalog look-ups, so a question variant
that reads the hierarchy records every figure in its snapshot and keeps it when one is corrected.

H100 SXM has measurements for every level; other parts leave the unpublished figures None.
``size_bytes`` is per ``scope`` and exact (on-chip sizes are binary: 256 KiB, 50 MiB);
``bandwidth`` is the aggregate of the whole GPU (bytes/s).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.links import link
from content.physics.catalog.sources import Source, cite

# The levels, fastest first, by the id a MeasuredLevel's key uses.
LEVELS = ("registers", "l1", "l2", "main", "host")


@dataclass(frozen=True)
class MemoryLevel:
    """One level: capacity (bytes), bandwidth (bytes/s) and load latency (seconds)."""

    name: str
    size_bytes: float | None
    bandwidth: float | None
    latency: float | None
    scope: str
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    # The accelerator (catalog key) a figure was measured on, where that is another part than
    # the one described: the H100 SXM's L2 bandwidth is the H200's (same die), and every label
    # of it says so (F-6).
    measured_on: Mapping[str, str] = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "measured_on", freeze(self.measured_on))

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


@dataclass(frozen=True)
class MeasuredLevel:
    """Figures of one level of one part that no datasheet gives, each with its source; None
    where the level's figure comes from the accelerator's own entry (or is unknown)."""

    part: str
    level: str
    size_bytes: float | None = None
    bandwidth: float | None = None
    latency: float | None = None
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    # figure -> the accelerator key it was measured on, when not ``part`` itself
    measured_on: Mapping[str, str] = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "measured_on", freeze(self.measured_on))
        if self.level not in LEVELS:
            raise ValueError(f"unknown memory level {self.level!r}; use one of {LEVELS}")
        for name in ("size_bytes", "bandwidth", "latency"):
            if getattr(self, name) is not None and name not in self.sources:
                raise ValueError(f"{self.key}: {name} has no source")
        for name in self.measured_on:
            if getattr(self, name, None) is None:
                raise ValueError(f"{self.key}: measured_on names {name!r}, which it does not give")

    @property
    def key(self) -> str:
        return f"{self.part}/{self.level}"

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


# Latencies are RRZE's pointer-chase measurements on a GH200 (gpu-latency/gh200.txt), the same
# GH100 die as the H100 SXM with HBM3 of its own: ~32 cycles (L1), ~280 (L2), ~690 (HBM) at the
# GH200's 1.98 GHz.  An H100 SXM pointer chase (markdewing/AI_kernels; catalog measurement
# "h100-sxm/hbm-latency") gives 700 cycles to HBM, within 2% of the GH200's 688.
# L1 bandwidth is derived: 132 SMs x 128 B/clock x 1.83 GHz, the clock NVIDIA's peaks use
# (33.5 TB/s at the 1.98 GHz maximum boost clock).
_MEASURED = (
    MeasuredLevel("h100-sxm", "registers", size_bytes=65536 * 4, sources={"size_bytes": "sb-gpus"}),
    MeasuredLevel(
        "h100-sxm",
        "l1",
        bandwidth=132 * 128 * 1.83e9,
        latency=16e-9,
        sources={"bandwidth": "rrze-gpu-benches", "latency": "rrze-gpu-benches"},
    ),
    # L2 bandwidth: ~10 TB/s is RRZE's measurement on the H200, the same GH100 die with the
    # H100 SXM's 132 SMs and clocks (9.7-10.5 TB/s); the often-quoted 5.5 TB/s was measured on
    # the H100 PCIe (114 SMs), whose own HBM is 2.0 TB/s, so it must not be divided by 3.35.
    MeasuredLevel(
        "h100-sxm",
        "l2",
        bandwidth=10e12,
        latency=142e-9,
        sources={"bandwidth": "rrze-gpu-benches", "latency": "rrze-gpu-benches"},
        measured_on={"bandwidth": "h200"},
    ),
    MeasuredLevel("h100-sxm", "main", latency=350e-9, sources={"latency": "rrze-gpu-benches"}),
    # An example server's host memory (2 TB in an 8-GPU H200 server), shared by all its GPUs.
    MeasuredLevel(
        "h100-sxm", "host", size_bytes=2e12, sources={"size_bytes": "mlperf-h200-system"}
    ),
)
MEASURED = Registry("memory-level", _MEASURED)
_MEASURED_PARTS = frozenset(m.part for m in _MEASURED)


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


def _published(part: Accelerator) -> tuple[MemoryLevel, ...]:
    """The levels as the accelerator's and its host link's catalog entries give them."""
    src = part.source_key
    host = link(part.host_link) if part.host_link else None
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
            f"host memory ({host.name})" if host else "host memory",
            None,
            host.bandwidth if host else None,
            None,
            "host",
            bw_src=host.sources["bandwidth"] if host else None,
        ),
    )


def _with_measured(level: MemoryLevel, measured: MeasuredLevel) -> MemoryLevel:
    """``level`` with every figure ``measured`` holds (and its source) in place of the
    published one."""
    figures, sources, devices = {}, dict(level.sources), dict(level.measured_on)
    for name in ("size_bytes", "bandwidth", "latency"):
        value = getattr(measured, name)
        figures[name] = getattr(level, name) if value is None else value
        if value is not None:
            sources[name] = measured.sources[name]
            devices.pop(name, None)
            if name in measured.measured_on:
                devices[name] = measured.measured_on[name]
    return MemoryLevel(
        level.name, scope=level.scope, sources=sources, measured_on=devices, **figures
    )


def memory_hierarchy(acc: str | Accelerator = "H100") -> tuple[MemoryLevel, ...]:
    """Levels from fastest to largest: registers, shared memory/L1, L2, main memory, host.

    Published sizes and bandwidths come from the accelerator's entry; parts with measurements
    (the H100 SXM) add on-chip bandwidths, latencies and the register file.  Unpublished
    figures are None.  Host memory size is an example server's, shared by all its GPUs.
    """
    part = accelerator(acc)
    levels = _published(part)
    if part.key not in _MEASURED_PARTS:
        return levels
    return tuple(
        _with_measured(level, MEASURED.get(f"{part.key}/{level_id}", MeasuredLevel))
        for level_id, level in zip(LEVELS, levels, strict=True)
    )


__all__ = ["LEVELS", "MEASURED", "MeasuredLevel", "MemoryLevel", "memory_hierarchy"]

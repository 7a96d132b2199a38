"""The accelerator catalog: GPUs, TPUs and CPUs with their published peak rates and memories.

Conventions (see docs/physics.md): peak rates are DENSE (the vendors' 2:4-sparse headlines are kept
apart in ``sparse_peak_flops``), one fused multiply-add counts as 2 FLOP, capacities and bandwidths
use decimal prefixes, and every figure names its source.  The data lives in one module per family;
this package joins them into one registry.
"""

from __future__ import annotations

from content.physics._lookup import Registry
from content.physics.catalog.accelerators import nvidia_datacenter, nvidia_pcie, others
from content.physics.catalog.accelerators._entry import Accelerator

ACCELERATORS = Registry(
    "accelerator", [*nvidia_datacenter.ENTRIES, *nvidia_pcie.ENTRIES, *others.ENTRIES]
)


def accelerator(name: str | Accelerator) -> Accelerator:
    """The accelerator called ``name`` (key, name or alias, any case); an Accelerator passes
    through unchanged.  ``"V100"``, ``"A100"`` and ``"H100"`` are the SXM parts (A100: 80 GB)."""
    return ACCELERATORS.get(name, Accelerator)


def accelerators() -> tuple[Accelerator, ...]:
    """Every catalogued accelerator: NVIDIA data-center GPUs, NVIDIA PCIe cards, AMD GPUs, TPUs,
    CPUs."""
    return ACCELERATORS.all()


__all__ = ["ACCELERATORS", "Accelerator", "accelerator", "accelerators"]

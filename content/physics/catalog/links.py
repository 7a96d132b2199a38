"""The interconnect catalog: scale-up links, host PCIe and scale-out networks.

``bandwidth`` is bytes/s in ONE direction for one GPU (or chip, or port); vendors' headline
"900 GB/s NVLink" and "128 GB/s PCIe Gen5" are bidirectional sums.  ``bidirectional_bandwidth``
is twice ``bandwidth``; ``headline_bandwidth`` is the figure exactly as the vendor prints it, with
``headline_is_bidirectional`` saying which way it counts.  For PCIe the headline is also before
line encoding: Gen5's "128 GB/s" = 2 × 32 GT/s × 16 lanes ÷ 8, while after 128b/130b encoding
each direction carries 63 GB/s (126 GB/s both ways) and about 55 GB/s is measured.  Network line
rates in Gb/s are per direction (full duplex).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class Link:
    """A link with per-direction ``bandwidth`` (bytes/s) and ``latency`` (seconds, or None)."""

    key: str
    name: str
    kind: str
    bandwidth: float
    bidirectional_bandwidth: float
    latency: float | None
    aliases: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""
    # The vendor's headline figure as printed (bytes/s), and whether it adds both directions.
    headline_bandwidth: float | None = None
    headline_is_bidirectional: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


# key -> (headline bytes/s as printed, counts both directions, source)
_HEADLINES = {
    "nvlink2": (300e9, True, "nv-v100"),
    "nvlink3": (600e9, True, "nv-a100"),
    "nvlink4": (900e9, True, "nv-h100"),
    "nvlink5": (1.8e12, True, "nv-b200"),
    "nvlink-c2c": (900e9, True, "mle-net"),
    "infinity-fabric": (896e9, True, "mle-net"),
    "tpu-v5e-ici": (400e9, True, "gc-tpu-v5e"),
    "tpu-v5p-ici": (1200e9, True, "gc-tpu-v5p"),
    "pcie3": (32e9, True, "pci-sig"),
    "pcie4": (64e9, True, "pci-sig"),
    "pcie5": (128e9, True, "nv-h100"),
    "pcie6": (256e9, True, "pci-sig"),
}


def _link(
    key, name, kind, per_dir, src, *, latency=None, latency_src=None, aliases=(), notes=""
) -> Link:
    sources = {"bandwidth": src, "bidirectional_bandwidth": src}
    if latency is not None:
        sources["latency"] = latency_src or src
    headline, both, headline_src = _HEADLINES.get(key, (None, True, None))
    if kind == "network":  # a port's line rate is its headline, per direction
        headline, both, headline_src = per_dir, False, src
    if headline is not None:
        sources["headline_bandwidth"] = headline_src
    return Link(
        key, name, kind, per_dir, 2 * per_dir, latency, aliases, sources, notes, headline, both
    )


_LINKS = (
    _link(
        "nvlink2",
        "NVLink 2 (V100)",
        "scale-up",
        150e9,
        "mle-net",
        aliases=("NVLink2",),
        notes="6 links x 25 GB/s per direction.",
    ),
    _link(
        "nvlink3",
        "NVLink 3 (A100)",
        "scale-up",
        300e9,
        "mle-net",
        aliases=("NVLink3",),
        notes="12 links x 25 GB/s per direction.",
    ),
    _link(
        "nvlink4",
        "NVLink 4 (H100, H200)",
        "scale-up",
        450e9,
        "mle-net",
        aliases=("NVLink", "NVLink4"),
        notes="18 links x 25 GB/s per direction; NVIDIA quotes the 900 GB/s bidirectional sum. "
        "NCCL all-reduce reaches about 370 GB/s bus bandwidth.",
    ),
    _link(
        "nvlink5",
        "NVLink 5 (B200)",
        "scale-up",
        900e9,
        "mle-net",
        aliases=("NVLink5",),
        notes="18 links x 50 GB/s per direction.",
    ),
    _link(
        "nvlink-c2c", "NVLink-C2C (Grace-Hopper)", "scale-up", 450e9, "mle-net", aliases=("C2C",)
    ),
    _link(
        "infinity-fabric",
        "AMD Infinity Fabric (MI300X)",
        "scale-up",
        448e9,
        "mle-net",
        aliases=("xGMI",),
        notes="7 links x 64 GB/s per direction to the 7 peers of an 8-GPU node; one pair of "
        "GPUs shares only one 64 GB/s link.",
    ),
    _link(
        "tpu-v4-ici",
        "TPU v4 ICI",
        "scale-up",
        6 * 45e9,
        "sb-tpus",
        latency=1e-6,
        latency_src="sb-sharding",
        notes="6 links x 45 GB/s per direction in a 3D torus; about 1 us per hop.",
    ),
    _link(
        "tpu-v5e-ici",
        "TPU v5e ICI",
        "scale-up",
        4 * 45e9,
        "sb-tpus",
        latency=1e-6,
        latency_src="sb-sharding",
        notes="4 links x 45 GB/s per direction in a 2D torus. Google's page prints '400 GBps "
        "bidirectional per chip', more than 2 x 180; we keep the per-link figure.",
    ),
    _link(
        "tpu-v5p-ici",
        "TPU v5p ICI",
        "scale-up",
        6 * 90e9,
        "sb-tpus",
        latency=1e-6,
        latency_src="sb-sharding",
        notes="6 links x 90 GB/s per direction in a 3D torus. Google's page prints '1200 GBps "
        "bidirectional per chip', more than 2 x 540; we keep the per-link figure.",
    ),
    _link(
        "pcie3",
        "PCIe Gen3 x16",
        "host",
        15.75e9,
        "pci-sig",
        aliases=("PCIe Gen3",),
        notes="8 GT/s x 16 lanes x 128/130 / 8 = 15.75 GB/s per direction.",
    ),
    _link(
        "pcie4",
        "PCIe Gen4 x16",
        "host",
        31.5e9,
        "mle-net",
        aliases=("PCIe Gen4",),
        notes="16 GT/s x 16 x 128/130 / 8 = 31.5 GB/s per direction.",
    ),
    _link(
        "pcie5",
        "PCIe Gen5 x16",
        "host",
        63e9,
        "mle-net",
        aliases=("PCIe Gen5", "PCIe"),
        notes="NVIDIA's '128 GB/s' is both directions before line encoding (2 x 32 GT/s x 16 / 8); "
        "after 128b/130b encoding 63 GB/s each way, and 55 GB/s is measured on H200.",
    ),
    _link(
        "pcie6",
        "PCIe Gen6 x16",
        "host",
        121e9,
        "mle-net",
        aliases=("PCIe Gen6",),
        notes="64 GT/s PAM4 with FLIT encoding and FEC; no shipping accelerator uses it yet.",
    ),
    _link(
        "ib-edr",
        "InfiniBand EDR (4x, 100 Gb/s)",
        "network",
        12.5e9,
        "mle-net",
        latency=0.5e-6,
        aliases=("EDR",),
    ),
    _link(
        "ib-hdr",
        "InfiniBand HDR (4x, 200 Gb/s)",
        "network",
        25e9,
        "mle-net",
        latency=0.6e-6,
        aliases=("HDR",),
    ),
    _link(
        "ib-ndr",
        "InfiniBand NDR (4x, 400 Gb/s)",
        "network",
        50e9,
        "mle-net",
        aliases=("NDR", "InfiniBand"),
        notes="DGX H100 gives each GPU one 400 Gb/s ConnectX-7 port.",
    ),
    _link("ib-xdr", "InfiniBand XDR (4x, 800 Gb/s)", "network", 100e9, "mle-net", aliases=("XDR",)),
    _link(
        "efa-v4",
        "AWS Elastic Fabric Adapter v4 (P6-B200, per GPU)",
        "network",
        50e9,
        "mle-net",
        aliases=("EFA", "EFA v4"),
        notes="AWS's P6-B200 gives each of its 8 GPUs a 400 Gb/s EFA v4 port, the per-GPU rate "
        "of InfiniBand NDR.",
    ),
    _link("eth-100g", "100 Gigabit Ethernet", "network", 12.5e9, "ieee-802-3", aliases=("100GbE",)),
    _link("eth-400g", "400 Gigabit Ethernet", "network", 50e9, "ieee-802-3", aliases=("400GbE",)),
    _link("eth-800g", "800 Gigabit Ethernet", "network", 100e9, "ieee-802-3", aliases=("800GbE",)),
)

LINKS = Registry("link", _LINKS)


def link(name: str | Link) -> Link:
    """The link called ``name`` (``"nvlink4"``, ``"pcie5"``, ``"ib-ndr"``, ...)."""
    return LINKS.get(name, Link)


def links() -> tuple[Link, ...]:
    """Every catalogued link: scale-up, then host, then network."""
    return LINKS.all()

"""Dated price snapshots for renting accelerators, per device-hour in US dollars.

Prices move monthly and differ several-fold between providers for the same silicon, so they are
only ever inputs to the cost functions (never constants in a formula) and each names its date and
source.  ``market`` is "specialist" (GPU clouds such as Lambda, RunPod, Hyperstack) or
"hyperscaler" (AWS, Google Cloud, Azure on-demand list prices).

Prices are a catalog like the others (a ``Registry`` of kind "price", keyed "<part>/<market>"),
so a question variant that reads one records it in its snapshot and keeps that price when the
catalog is corrected (``catalog/snapshot.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from content.physics._lookup import Registry
from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.sources import Source, source

MARKETS = ("specialist", "hyperscaler")


@dataclass(frozen=True)
class PriceSnapshot:
    """On-demand rent of one device for one hour, as observed on ``date`` (ISO 8601: a day, or
    only a month where the source gives no day)."""

    accelerator: str
    dollars_per_hour: float
    market: str
    date: str
    source: str
    notes: str = ""

    @property
    def key(self) -> str:
        """The catalog key: one price per part and market ("h100-sxm/specialist")."""
        return f"{self.accelerator}/{self.market}"

    def citations(self) -> tuple[Source, ...]:
        return (source(self.source),)


_PRICES = (
    PriceSnapshot("a100-sxm-40gb", 1.99, "specialist", "2026-09-20", "lambda-2026-09"),
    PriceSnapshot(
        "a100-sxm-40gb",
        2.74,
        "hyperscaler",
        "2026-11-09",
        "data-receipts-2026-11",
        "AWS p4d.24xlarge per GPU",
    ),
    PriceSnapshot("a100-sxm-80gb", 2.79, "specialist", "2026-09-20", "lambda-2026-09"),
    PriceSnapshot(
        "a100-sxm-80gb",
        3.43,
        "hyperscaler",
        "2026-11-09",
        "data-receipts-2026-11",
        "AWS p4de.24xlarge per GPU",
    ),
    PriceSnapshot("h100-sxm", 3.20, "specialist", "2026-08-26", "hyperstack-2026-08"),
    PriceSnapshot(
        "h100-sxm",
        6.88,
        "hyperscaler",
        "2026-11-09",
        "data-receipts-2026-11",
        "AWS p5.48xlarge $55.04 / 8 GPUs; GCP and Azure list $10.98 and $12.29",
    ),
    PriceSnapshot("h100-pcie", 3.29, "specialist", "2026-09", "tg-prices-2026-09", "Lambda"),
    PriceSnapshot("h200", 3.99, "specialist", "2026-08-26", "hyperstack-2026-08"),
    PriceSnapshot("h200", 10.0, "hyperscaler", "2025-08", "sb-gpus", "about $10/h on Google Cloud"),
    PriceSnapshot("b200", 6.00, "specialist", "2026-08-26", "hyperstack-2026-08"),
    PriceSnapshot(
        "tpu-v5e",
        1.20,
        "hyperscaler",
        "2025-02",
        "sb-applied-inference",
        "Google Cloud, per chip-hour",
    ),
    PriceSnapshot(
        "tpu-v5p",
        4.20,
        "hyperscaler",
        "2025-02",
        "sb-applied-inference",
        "Google Cloud, per chip-hour",
    ),
)


PRICES = Registry("price", _PRICES)


def prices() -> tuple[PriceSnapshot, ...]:
    """Every snapshot in the live catalog (a listing: not recorded in a variant's snapshot)."""
    return PRICES.all()


def price(acc: str | Accelerator, market: str = "specialist") -> PriceSnapshot:
    """The snapshot for ``acc`` in ``market``; KeyError says which parts and markets have one."""
    part = accelerator(acc)
    if market not in MARKETS:
        raise KeyError(f"unknown market {market!r}; use one of {', '.join(MARKETS)}")
    try:
        # Through the registry, so a recording variant keeps the price and a replay reads it.
        return PRICES.get(f"{part.key}/{market}", PriceSnapshot)
    except KeyError:
        pass
    priced = sorted({s.accelerator for s in _PRICES if s.market == market})
    others = [s.market for s in _PRICES if s.accelerator == part.key]
    hint = f" ({part.name} has a {others[0]} price)" if others else ""
    raise KeyError(
        f"no {market} price for {part.name}{hint}; priced in that market: {', '.join(priced)}"
    )

"""Plausible ranges of the quantities a question may state.

The question bank's plausibility rules (``quizzes/engine/plausible``) judge every variant against
these figures, so a template cannot state a value no engineer would meet: a "largest gradient"
of 27,853 in a layer whose loss scale one picks, a GPU rented at a price no market charges, a
PCIe headline the vendor never printed.  Each range names its source; where the catalog itself
holds the figures (prices, links), the range is computed from them, so a corrected figure moves
the range with it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.links import link
from content.physics.catalog.prices import prices


@dataclass(frozen=True)
class ValueRange:
    """What a value of ``kind`` may be: ``bounds(context)`` gives (low, high) in SI base units
    (``unit``), where ``context`` holds what the kind needs (``needs``: an accelerator, a link).
    ``source`` is a key of ``catalog/sources.py`` or "catalog" (computed from catalog figures)."""

    kind: str
    unit: str
    meaning: str
    source: str
    bounds: Callable[[dict], tuple[float, float]]
    needs: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()


def _price_bounds(context: dict) -> tuple[float, float]:
    """Half the cheapest to twice the dearest catalogued rent (of the part, when it is given):
    providers differ several-fold for the same silicon, never tenfold."""
    acc = context.get("accelerator")
    snapshots = prices()
    if acc is not None:
        key = accelerator(acc).key
        own = [p for p in snapshots if p.accelerator == key]
        snapshots = own or snapshots
    rents = [p.dollars_per_hour for p in snapshots]
    return 0.5 * min(rents), 2.0 * max(rents)


def _near(value: float, rel: float = 0.02) -> tuple[float, float]:
    return value * (1 - rel), value * (1 + rel)


def _headline_bounds(context: dict) -> tuple[float, float]:
    ln = link(context["link"])
    figure = ln.headline_bandwidth or ln.bidirectional_bandwidth
    return _near(figure, 0.005)  # a printed figure is exact: 63 GB/s is no "64 GB/s"


def _per_direction_bounds(context: dict) -> tuple[float, float]:
    return _near(link(context["link"]).bandwidth)


RANGES: dict[str, ValueRange] = {
    r.kind: r
    for r in (
        ValueRange(
            "gpu-hour-price",
            "USD",
            "rent of one accelerator for one hour (half the cheapest to twice the dearest "
            "catalogued price, of the part itself when it is named)",
            "catalog",
            _price_bounds,
            optional=("accelerator",),
        ),
        ValueRange(
            "largest-gradient",
            "",
            "the largest unscaled gradient magnitude of one layer in a healthy mixed-precision "
            "run: between 2^-16 and 2^6 (gradients sit far below 1; dynamic scaling starts at "
            "2^16, which a layer whose gradients reach 2^6 would already overflow)",
            "micikevicius-2018-mp",
            lambda context: (2.0**-16, 2.0**6),
        ),
        ValueRange(
            "smallest-gradient",
            "",
            "the smallest gradient magnitude of one layer worth keeping: between 2^-40 and 2^-10",
            "micikevicius-2018-mp",
            lambda context: (2.0**-40, 2.0**-10),
        ),
        ValueRange(
            "link-headline",
            "B/s",
            "a link generation's headline bandwidth as the vendor prints it (within 0.5%)",
            "catalog",
            _headline_bounds,
            needs=("link",),
        ),
        ValueRange(
            "link-per-direction",
            "B/s",
            "a link generation's bandwidth in one direction (within 2%)",
            "catalog",
            _per_direction_bounds,
            needs=("link",),
        ),
    )
}


def value_range(kind: str) -> ValueRange:
    """The range of ``kind``; KeyError names the closest kinds."""
    try:
        return RANGES[kind]
    except KeyError:
        close = difflib.get_close_matches(str(kind), list(RANGES), n=2)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise KeyError(f"no value range {kind!r}{hint} (known: {', '.join(RANGES)})") from None


__all__ = ["RANGES", "ValueRange", "value_range"]

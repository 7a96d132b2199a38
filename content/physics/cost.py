"""Dollars: the price of rented accelerator time turned into cost per token.

Prices are inputs (see ``catalog.prices`` for dated snapshots), never constants in a formula.
"""

from __future__ import annotations

from content.physics.catalog.prices import price
from content.physics.roofline import AcceleratorLike

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1e6


def cost_per_million_tokens(price_per_hour: float, tokens_per_second: float) -> float:
    """Dollars per 10⁶ tokens: price per hour ÷ (3600 × tokens per second) × 10⁶.

    Assumes the rented capacity is fully used at ``tokens_per_second``; idle time raises the cost.
    """
    if tokens_per_second <= 0:
        raise ValueError("tokens_per_second must be positive")
    return price_per_hour / (SECONDS_PER_HOUR * tokens_per_second) * TOKENS_PER_MILLION


def dollars_per_hour_for(acc: AcceleratorLike, n: int = 1, market: str = "specialist") -> float:
    """Dollars per hour for ``n`` accelerators at the catalog's ``market`` snapshot price."""
    return n * price(acc, market).dollars_per_hour

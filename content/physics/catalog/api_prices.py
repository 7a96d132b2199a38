"""Dated price lists of hosted models, in US dollars per million tokens, as providers print them.

Providers charge input and output tokens separately, and many charge less for input tokens that
hit a cache of earlier prompts (a prefix cache).  These prices are what a buyer pays, beside the
GPU-hour prices of ``catalog.prices`` that a self-hosting operator pays; the cost functions take
either as an input, never as a constant.
"""

from __future__ import annotations

from dataclasses import dataclass

from content.physics._lookup import Registry
from content.physics.catalog.sources import Source, source


@dataclass(frozen=True)
class ApiPrice:
    """What ``provider`` charged on ``date`` for ``model``: dollars per 10⁶ input tokens (cache
    miss), per 10⁶ cached input tokens (None where no cache discount is offered), per 10⁶ output
    tokens."""

    key: str
    provider: str
    model: str
    input_per_million: float
    cached_input_per_million: float | None
    output_per_million: float
    date: str
    source: str
    notes: str = ""

    @property
    def name(self) -> str:
        return self.key

    def citations(self) -> tuple[Source, ...]:
        return (source(self.source),)


_API_PRICES = (
    ApiPrice(
        "deepseek-v3",
        "DeepSeek",
        "DeepSeek-V3 (deepseek-chat)",
        0.27,
        0.07,
        1.10,
        "2025-02-08",
        "deepseek-api-2025",
        "Standard price from 2025-02-08 (UTC 00:30-16:30); half price off-peak.",
    ),
    ApiPrice(
        "deepseek-r1",
        "DeepSeek",
        "DeepSeek-R1 (deepseek-reasoner)",
        0.55,
        0.14,
        2.19,
        "2025-02-08",
        "deepseek-api-2025",
        "Output tokens include the chain of thought.",
    ),
)

API_PRICES = Registry("api-price", _API_PRICES)


def api_price(name: str | ApiPrice) -> ApiPrice:
    """The price list called ``name`` (``"deepseek-v3"``, ...)."""
    return API_PRICES.get(name, ApiPrice)


def api_prices() -> tuple[ApiPrice, ...]:
    """Every catalogued price list."""
    return API_PRICES.all()

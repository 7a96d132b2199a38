"""Dollars: the price of rented accelerator time turned into cost per token, input and output
priced apart as providers price them, and a provider's bill for one request.

Prices are inputs (see ``catalog.prices`` for dated GPU-hour snapshots and ``catalog.api_prices``
for providers' per-token lists), never constants in a formula.
"""

from __future__ import annotations

from content.physics.catalog.api_prices import ApiPrice, api_price
from content.physics.catalog.prices import price
from content.physics.inference import (
    ModelLike,
    decode_tokens_per_second,
    prefill_time,
)
from content.physics.precision import quantized_decode_step_time
from content.physics.roofline import AcceleratorLike, DTypeLike

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


def _check_price(price_per_hour: float) -> None:
    if price_per_hour < 0 or price_per_hour != price_per_hour:
        raise ValueError("price_per_hour must not be negative")


def cost_per_million_output_tokens(
    price_per_hour: float,
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    batch: int = 1,
    context: float = 0,
) -> float:
    """Dollars per 10⁶ generated tokens at the decode floor: price ÷ (3600 × batch ÷ step time)
    × 10⁶, with the step of ``decode_step_time(batch, context)``.  Prompt processing is not in
    it (``cost_per_million_input_tokens``)."""
    _check_price(price_per_hour)
    rate = decode_tokens_per_second(m, acc, dt, batch, context)
    return cost_per_million_tokens(price_per_hour, rate)


def cost_per_million_input_tokens(
    price_per_hour: float,
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
) -> float:
    """Dollars per 10⁶ prompt tokens: price × prefill_time(prompt) ÷ prompt ÷ 3600 × 10⁶.

    Prefill is compute-bound past a few hundred tokens, so this is about price × 2 · N_active
    ÷ peak per token; attention FLOPs, which grow with the prompt, are neglected."""
    _check_price(price_per_hour)
    if prompt_tokens < 1:
        raise ValueError("prompt_tokens must be at least 1")
    seconds = prefill_time(m, acc, dt, prompt_tokens) / prompt_tokens
    return price_per_hour / SECONDS_PER_HOUR * seconds * TOKENS_PER_MILLION


def request_cost(
    price_per_hour: float,
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    prompt_tokens: float,
    output_tokens: int,
    batch: int = 1,
    context: float = 0,
    cached_tokens: float = 0,
) -> float:
    """Dollars for one request on rented hardware: price ÷ 3600 × (t_prefill + (output − 1)
    × t_pass ÷ batch).

    The prefill of the uncached part of the prompt has the GPU to itself (and emits the first
    token); each later token costs a share 1 ÷ batch of a decode pass of the batch it joins,
    the pass ``serving.request_latency`` charges (the weights a pass reads, the batch's cache in
    ``dt``, the forward FLOPs: ``precision.quantized_decode_step_time``).
    ``price_per_hour`` is for all the devices that serve the model."""
    _check_price(price_per_hour)
    if output_tokens < 1 or not 0 <= cached_tokens < prompt_tokens:
        raise ValueError("need output_tokens ≥ 1 and 0 ≤ cached_tokens < prompt_tokens")
    prefill = prefill_time(m, acc, dt, prompt_tokens - cached_tokens)
    step = quantized_decode_step_time(m, acc, dt, batch, context, kv_dt=dt)
    decode = (output_tokens - 1) * step / batch
    return price_per_hour / SECONDS_PER_HOUR * (prefill + decode)


def api_request_cost(
    price: str | ApiPrice,
    input_tokens: float,
    output_tokens: float,
    cached_input_tokens: float = 0,
) -> float:
    """Dollars a provider bills for one request: (uncached input × input price + cached input ×
    cached price + output × output price) ÷ 10⁶, prices per 10⁶ tokens from ``api_price``."""
    listing = api_price(price)
    if min(input_tokens, output_tokens, cached_input_tokens) < 0:
        raise ValueError("token counts must not be negative")
    if cached_input_tokens > input_tokens:
        raise ValueError("cached_input_tokens cannot exceed input_tokens")
    if cached_input_tokens and listing.cached_input_per_million is None:
        raise ValueError(f"{listing.provider} offers no cached-input price for {listing.model}")
    cached_price = listing.cached_input_per_million or 0.0
    dollars = (
        (input_tokens - cached_input_tokens) * listing.input_per_million
        + cached_input_tokens * cached_price
        + output_tokens * listing.output_per_million
    )
    return dollars / TOKENS_PER_MILLION

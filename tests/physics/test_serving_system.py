"""The serving system around the model: request latency, chunked prefill, paged and prefix-shared
KV caches, prefill/decode balance, speculation at batch B, and input and output priced apart."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    api_price,
    api_prices,
    api_request_cost,
    chunked_prefill_ttft,
    cost_per_million_input_tokens,
    cost_per_million_output_tokens,
    cost_per_million_tokens,
    critical_batch_size,
    decode_flops_per_token,
    decode_tokens_per_second,
    decode_weight_bytes,
    free_prefill_chunk,
    kv_cache_bytes,
    model,
    paged_kv_waste_fraction,
    prefill_time,
    prefill_to_decode_gpu_ratio,
    prefix_cache_prefill_time,
    quantized_decode_step_time,
    request_cost,
    request_latency,
    reserved_kv_waste_fraction,
    source,
    speculative_speedup,
    speculative_speedup_at_batch,
)

M, ACC, DT = "llama-2-7b", "H100", "bf16"


def test_a_request_is_its_prefill_then_one_step_fewer_than_its_tokens():
    # The prefill pass emits the first token (review 3.5): 500 tokens need 499 decode steps.
    step = quantized_decode_step_time(M, ACC, DT, 64, 1024)
    got = request_latency(M, ACC, DT, 2000, 500, 64, 1024)
    assert got == pytest.approx(prefill_time(M, ACC, DT, 2000) + 499 * step)
    assert request_latency(M, ACC, DT, 2000, 1) == pytest.approx(prefill_time(M, ACC, DT, 2000))


def test_the_free_chunk_fills_the_step_to_its_memory_time():
    chunk = free_prefill_chunk(M, ACC, DT, 64, 1024)
    memory = quantized_decode_step_time(M, ACC, DT, 64, 1024)
    compute = decode_flops_per_token(M) * (64 + chunk) / accelerator(ACC).peak(DT)
    assert compute == pytest.approx(memory)
    # A step already past the critical batch absorbs nothing.
    assert free_prefill_chunk(M, ACC, DT, 400) == 0


def test_chunking_moves_the_cost_to_the_new_request_first_token():
    whole = prefill_time(M, ACC, DT, 2000)
    chunked = chunked_prefill_ttft(M, ACC, DT, 2000, 256, 64, 1024)
    step = quantized_decode_step_time(M, ACC, DT, 64, 1024)
    # Eight chunks, each at least one memory-bound step: about 8 x 14.3 ms against 27 ms whole.
    assert chunked >= 8 * step
    assert chunked > 3 * whole
    # Each chunk re-reads the cache of the earlier ones, so the total exceeds 8 plain steps.
    assert chunked > 8 * step


def test_one_chunk_holding_the_whole_prompt_is_one_fused_step():
    t = chunked_prefill_ttft(M, ACC, DT, 2000, 2000, 64, 1024)
    flops = decode_flops_per_token(M) * (64 + 2000) / accelerator(ACC).peak(DT)
    assert t == pytest.approx(max(quantized_decode_step_time(M, ACC, DT, 64, 1024), flops))


@given(tokens=st.integers(1, 200_000), block=st.sampled_from([1, 8, 16, 32, 128]))
def test_paged_waste_is_less_than_one_block(tokens, block):
    waste = paged_kv_waste_fraction(tokens, block)
    allocated = math.ceil(tokens / block) * block
    assert 0 <= waste * allocated < block
    assert waste == pytest.approx((allocated - tokens) / allocated)


def test_paging_wastes_a_sliver_where_reserving_the_maximum_wastes_most():
    assert paged_kv_waste_fraction(1000) == pytest.approx(8 / 1008)
    assert reserved_kv_waste_fraction(1000, 4096) == pytest.approx(1 - 1000 / 4096)
    with pytest.raises(ValueError):
        reserved_kv_waste_fraction(5000, 4096)


def test_a_prefix_hit_prefills_only_the_rest():
    assert prefix_cache_prefill_time(M, ACC, DT, 3000, 2000) == prefill_time(M, ACC, DT, 1000)
    for cached in (-1, 3000, 4000):
        with pytest.raises(ValueError):
            prefix_cache_prefill_time(M, ACC, DT, 3000, cached)


def test_disaggregation_balances_prefill_and_decode_gpu_time():
    ratio = prefill_to_decode_gpu_ratio(M, ACC, DT, 2000, 500, 64, 1024)
    decode = 499 * quantized_decode_step_time(M, ACC, DT, 64, 1024) / 64
    assert ratio == pytest.approx(prefill_time(M, ACC, DT, 2000) / decode)
    # Longer prompts need relatively more prefill GPUs.
    assert prefill_to_decode_gpu_ratio(M, ACC, DT, 8000, 500, 64, 1024) > 3 * ratio


def test_speculation_at_batch_one_is_the_plain_formula():
    c = 0.1
    got = speculative_speedup_at_batch("llama-2-70b", "MI300X", DT, 0.8, 4, c)
    assert got == pytest.approx(speculative_speedup(0.8, 4, c))


def test_speculation_fades_past_the_critical_batch_and_then_costs():
    crit = critical_batch_size("MI300X", DT)
    gains = [
        speculative_speedup_at_batch("llama-2-70b", "MI300X", DT, 0.8, 4, 0.1, b)
        for b in (1, 16, int(crit // 5), int(crit), 4 * int(crit))
    ]
    assert gains[0] == pytest.approx(gains[1])  # still memory-bound
    assert gains == sorted(gains, reverse=True)
    assert gains[-1] < 1  # a busy server loses throughput by speculating


def test_output_tokens_cost_what_the_decode_floor_says():
    price = 3.2
    got = cost_per_million_output_tokens(price, M, ACC, DT, 64, 1024)
    rate = decode_tokens_per_second(M, ACC, DT, 64, 1024)
    assert got == pytest.approx(cost_per_million_tokens(price, rate))


def test_input_tokens_cost_their_share_of_a_compute_bound_prefill():
    price = 3.2
    got = cost_per_million_input_tokens(price, M, ACC, DT, 2000)
    # the lookup of the input table multiplies nothing (2 × 525 M FLOPs fewer per token)
    matmul = model(M).active_params - model(M).vocab_size * model(M).d_model
    per_token = 2 * matmul / accelerator(ACC).peak(DT)
    assert got == pytest.approx(price / 3600 * per_token * 1e6)
    # Cheaper per token than output at any batch below the critical one.
    assert got < cost_per_million_output_tokens(price, M, ACC, DT, 64, 1024)


def test_a_request_costs_its_prefill_plus_its_share_of_the_steps():
    price = 3.2
    got = request_cost(price, M, ACC, DT, 2000, 500, 64, 1024)
    expected = (
        price
        / 3600
        # the answer's share of the decode pass request_latency charges (decode bytes)
        * (
            prefill_time(M, ACC, DT, 2000)
            + 499 * quantized_decode_step_time(M, ACC, DT, 64, 1024) / 64
        )
    )
    assert got == pytest.approx(expected)
    cached = request_cost(price, M, ACC, DT, 2000, 500, 64, 1024, cached_tokens=1500)
    assert cached < got


def test_a_provider_bill_prices_input_cache_hits_and_output_apart():
    listing = api_price("deepseek-v3")
    got = api_request_cost("deepseek-v3", 8000, 200, 6000)
    expected = (2000 * 0.27 + 6000 * 0.07 + 200 * 1.10) / 1e6
    assert (listing.input_per_million, listing.cached_input_per_million) == (0.27, 0.07)
    assert got == pytest.approx(expected)


@pytest.mark.parametrize("listing", api_prices(), ids=lambda p: p.key)
def test_every_price_list_is_dated_and_sourced(listing):
    assert source(listing.source).key == listing.source
    assert listing.date[:4].isdigit()
    assert listing.output_per_million > listing.input_per_million > 0
    if listing.cached_input_per_million is not None:
        assert listing.cached_input_per_million < listing.input_per_million


@pytest.mark.parametrize(
    "call",
    [
        lambda: request_latency(M, ACC, DT, 2000, 0),
        lambda: request_latency(M, ACC, DT, 0, 10),
        lambda: chunked_prefill_ttft(M, ACC, DT, 2000, 0, 64, 1024),
        lambda: chunked_prefill_ttft(M, ACC, DT, 2000, 256, 0, 1024),
        # the steps are summed one by one, so their number is bounded
        lambda: chunked_prefill_ttft(M, ACC, DT, 10_000_001, 1000),
        lambda: chunked_prefill_ttft(M, ACC, DT, float("inf"), 1000),
        lambda: free_prefill_chunk(M, ACC, DT, True, 0),
        lambda: paged_kv_waste_fraction(0),
        lambda: paged_kv_waste_fraction(100, 0),
        lambda: prefill_to_decode_gpu_ratio(M, ACC, DT, 2000, 1, 64, 1024),
        lambda: speculative_speedup_at_batch(M, ACC, DT, 0.8, 4, -0.1),
        lambda: cost_per_million_input_tokens(-1, M, ACC, DT, 2000),
        lambda: cost_per_million_input_tokens(3.2, M, ACC, DT, 0),
        lambda: request_cost(3.2, M, ACC, DT, 2000, 0),
        lambda: request_cost(3.2, M, ACC, DT, 2000, 10, cached_tokens=2000),
        lambda: api_request_cost("deepseek-v3", 100, 10, 200),
        lambda: api_request_cost("deepseek-v3", -1, 10),
    ],
)
def test_bad_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_chunked_prefill_sums_up_to_its_cap_of_steps():
    # 10,000 chunks exactly are summed; the same prompt in one chunk more is refused above.
    assert chunked_prefill_ttft(M, ACC, DT, 10_000_000, 1000) > 0


def test_long_chunked_prompts_read_their_own_growing_cache():
    # With a one-token batch and no context the extra bytes are the prompt's own cache.
    t = chunked_prefill_ttft(M, ACC, DT, 4096, 512, 1, 0)
    weights = decode_weight_bytes(M, DT)
    bw = accelerator(ACC).memory_bandwidth
    floor = sum(
        max(
            (weights + kv_cache_bytes(M, i * 512, DT)) / bw,
            decode_flops_per_token(M) * 513 / accelerator(ACC).peak(DT),
        )
        for i in range(8)
    )
    assert t == pytest.approx(floor)

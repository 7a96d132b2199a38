"""One count of a forward pass's FLOPs (book-g's open item after the sixth pass): prefill
multiplies each prompt token by the same weights a decode pass does, the input embedding table
left out (a lookup reads one row and multiplies nothing).  Each test recomputes the helper from
raw model shapes and fails on the count before it (2 × active parameters, the lookup included:
Llama-3-8B's 2,000-token prefill on an H100 at 32.5 ms instead of 30.3)."""

import pytest

from content.physics import (
    accelerator,
    cost_per_million_input_tokens,
    decode_flops_per_token,
    forecast_batch_generation_time,
    forward_flops_per_token,
    kv_cache_bytes,
    model,
    model_flops_per_token,
    prefill_time,
    request_cost,
    weights_bytes,
)
from content.physics.forecast import achievable_bandwidth, achievable_flops

M, ACC, DT = "llama-3-8b", "H100", "bf16"
PEAK = accelerator(ACC).peak(DT)


def _matmul_flops(m):
    mdl = model(m)
    return 2 * (mdl.active_params - mdl.vocab_size * mdl.d_model)


def test_one_forward_count_for_prefill_and_decode():
    assert forward_flops_per_token(M) == _matmul_flops(M)
    assert decode_flops_per_token(M) == forward_flops_per_token(M)
    # a mixture of experts multiplies its active experts only, the lookup still left out
    assert forward_flops_per_token("mixtral-8x7b") == _matmul_flops("mixtral-8x7b")
    # the plain 2 × active parameters stays what it says (attention neglected, lookup included)
    assert model_flops_per_token(M) == 2 * model(M).active_params


def test_prefill_of_the_books_prompt_is_30_ms_not_32():
    t = prefill_time(M, ACC, DT, 2000)
    assert t == pytest.approx(2000 * _matmul_flops(M) / PEAK)
    assert t == pytest.approx(30.3e-3, abs=0.05e-3)


def test_a_short_prompt_is_still_bound_by_reading_the_weights():
    t = prefill_time(M, ACC, DT, 10)
    assert t == pytest.approx(weights_bytes(M, DT) / accelerator(ACC).memory_bandwidth)


def test_input_tokens_and_request_cost_charge_the_same_prefill():
    per_token = _matmul_flops(M) / PEAK
    assert cost_per_million_input_tokens(2.0, M, ACC, DT, 2000) == pytest.approx(
        2.0 / 3600 * per_token * 1e6
    )
    one = request_cost(3600.0, M, ACC, DT, 2000, 1)  # one output token: the prefill alone
    assert one == pytest.approx(2000 * per_token)


def test_the_forecast_prefill_counts_matmul_flops():
    rate, bandwidth = achievable_flops("A100", "bf16"), achievable_bandwidth("A100")
    whole = forecast_batch_generation_time("llama-2-7b", "A100", "fp16", 60, 128, 1, rate_dt="bf16")
    prefill = max(
        _matmul_flops("llama-2-7b") * 128 * 60 / rate,
        weights_bytes("llama-2-7b", "fp16") / bandwidth,
    )
    assert whole == pytest.approx(prefill)


def test_a_requests_bill_charges_the_decode_pass_request_latency_charges():
    # the answer's share of each pass: decode weight bytes and the batch's cache, forward FLOPs
    mdl = model(M)
    read = (mdl.params - mdl.vocab_size * mdl.d_model) * 2 + kv_cache_bytes(M, 2500, DT, 174)
    step = max(read / accelerator(ACC).memory_bandwidth, _matmul_flops(M) * 174 / PEAK)
    bill = request_cost(3600.0, M, ACC, DT, 2000, 500, 174, 2500)
    assert bill == pytest.approx(2000 * _matmul_flops(M) / PEAK + 499 * step / 174)

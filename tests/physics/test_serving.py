"""Serving: batch limits from memory and latency, speculative decoding, pipeline bubbles, MoE."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    alltoall_time,
    kv_cache_bytes,
    link,
    max_batch_for_memory,
    max_batch_under_latency,
    memory_fits,
    moe_alltoall_bytes,
    pipeline_bubble_fraction,
    quantized_decode_step_time,
    speculative_expected_tokens,
    speculative_speedup,
    weights_bytes,
)
from content.physics.memory import serving_reserve_bytes


def test_max_batch_for_memory_at_each_level():
    # Llama-3-70B bf16 on one H200: (150.75 - 141.11) GB / 2.684 GB per 8k sequence = 3 against
    # the driver's total; vLLM's budget (0.9 x 143,156 MiB = 135.1 GB) holds not even the weights.
    assert max_batch_for_memory("llama-3-70b", "H200", "bf16", 8192, level="driver") == 3
    spare = accelerator("H200").memory_bytes - weights_bytes("llama-3-70b", "bf16")
    assert 3 == math.floor(spare / kv_cache_bytes("llama-3-70b", 8192, "bf16"))
    assert max_batch_for_memory("llama-3-70b", "H200", "bf16", 8192) == 0
    # The weights alone do not fit on one H100: 0, and on two the cache gets the rest.
    assert max_batch_for_memory("llama-3-70b", "H100", "bf16", 8192) == 0
    two = max_batch_for_memory("llama-3-70b", "H100", "bf16", 8192, devices=2)
    assert two == math.floor(
        (
            2
            * (
                0.9 * accelerator("H100").memory_runtime_bytes
                - serving_reserve_bytes("H100", gpus=2)
            )
            - weights_bytes("llama-3-70b", "bf16")
        )
        / kv_cache_bytes("llama-3-70b", 8192, "bf16")
    )
    assert max_batch_for_memory("llama-3-70b", "H100", "bf16", 8192, 2, kv_dt="fp8") >= 2 * two


@given(
    context=st.integers(1, 131072),
    devices=st.integers(1, 8),
    m=st.sampled_from(["llama-2-7b", "llama-3-8b", "llama-2-70b"]),
    acc=st.sampled_from(["H100", "A100", "L4", "MI300X"]),
)
def test_max_batch_for_memory_is_the_largest_batch_that_fits(context, devices, m, acc):
    batch = max_batch_for_memory(m, acc, "bf16", context, devices)
    need = lambda b: weights_bytes(m, "bf16") + kv_cache_bytes(m, context, "bf16", b)  # noqa: E731
    if batch > 0:
        assert memory_fits(need(batch), acc, devices)
    assert not memory_fits(need(batch + 1), acc, devices)


def test_max_batch_for_memory_rejects_bad_input():
    with pytest.raises(ValueError):
        max_batch_for_memory("llama-2-7b", "H100", "bf16", 0)
    with pytest.raises(ValueError):
        max_batch_for_memory("llama-2-7b", "H100", "bf16", 4096, devices=0)


def test_max_batch_under_latency_matches_decode_step_time():
    batch = max_batch_under_latency("llama-2-7b", "H100", "bf16", 4096, 0.02)
    # 20 ms × 3.35 TB/s less the 13.2 GB a pass reads (the checkpoint less its input table),
    # over 2 GiB of cache per sequence: 25 (24 when the whole checkpoint was charged)
    assert batch == 25
    assert quantized_decode_step_time("llama-2-7b", "H100", "bf16", batch, 4096) <= 0.02
    assert quantized_decode_step_time("llama-2-7b", "H100", "bf16", batch + 1, 4096) > 0.02
    # Weights alone take 4 ms: a 3 ms target admits no batch.
    assert max_batch_under_latency("llama-2-7b", "H100", "bf16", 4096, 0.003) == 0


@given(
    target=st.floats(1e-3, 0.2),
    context=st.integers(1, 32768),
    m=st.sampled_from(["llama-2-7b", "llama-3-8b", "llama-2-13b"]),
    acc=st.sampled_from(["H100", "A100", "L4"]),
)
def test_max_batch_under_latency_is_the_largest_batch_within_target(target, context, m, acc):
    batch = max_batch_under_latency(m, acc, "bf16", context, target)
    if batch > 0:
        assert quantized_decode_step_time(m, acc, "bf16", batch, context) <= target * (1 + 1e-9)
    assert quantized_decode_step_time(m, acc, "bf16", batch + 1, context) > target * (1 - 1e-9)


def test_speculative_expected_tokens():
    assert speculative_expected_tokens(0.8, 4) == pytest.approx((1 - 0.8**5) / 0.2)
    assert speculative_expected_tokens(0.8, 4) == pytest.approx(3.3616)
    assert speculative_expected_tokens(1.0, 4) == 5
    assert speculative_expected_tokens(0.0, 4) == 1
    assert speculative_expected_tokens(0.5, 0) == 1
    for bad in ((-0.1, 4), (1.1, 4), (0.5, -1), (0.5, 1.5)):
        with pytest.raises(ValueError):
            speculative_expected_tokens(*bad)


def test_speculative_speedup():
    assert speculative_speedup(0.8, 4, 0.05) == pytest.approx(3.3616 / 1.2)
    assert speculative_speedup(0.0, 4, 0.1) < 1  # drafts all rejected: pure overhead
    assert speculative_speedup(1.0, 4, 0.0) == 5
    with pytest.raises(ValueError):
        speculative_speedup(0.5, 4, -1)


@given(st.floats(0, 1), st.integers(0, 16))
def test_expected_tokens_between_one_and_k_plus_one(a, k):
    e = speculative_expected_tokens(a, k)
    assert 1 - 1e-12 <= e <= k + 1 + 1e-9


def test_pipeline_bubble_fraction():
    assert pipeline_bubble_fraction(4, 8) == 3 / 11
    assert pipeline_bubble_fraction(1, 1) == 0
    assert pipeline_bubble_fraction(8, 1) == 7 / 8
    for bad in ((0, 4), (4, 0), (2.5, 4)):
        with pytest.raises(ValueError):
            pipeline_bubble_fraction(*bad)


@given(st.integers(1, 64), st.integers(1, 1024))
def test_more_microbatches_shrink_the_bubble(p, m):
    assert pipeline_bubble_fraction(p, m + 1) <= pipeline_bubble_fraction(p, m)


def test_moe_alltoall_bytes_and_time():
    # Mixtral-like: 4096 tokens, d_model 4096, top-2, bf16, 8 devices: 7/8 of 64 MiB leaves.
    sent = moe_alltoall_bytes(4096, 4096, 2, "bf16", 8)
    assert sent == 4096 * 2 * 4096 * 2 * 7 / 8
    assert moe_alltoall_bytes(4096, 4096, 2, "bf16", 1) == 0
    assert alltoall_time(sent, 8, "nvlink4") == sent / link("nvlink4").bandwidth
    assert alltoall_time(sent, 1, "nvlink4") == 0
    with pytest.raises(ValueError):
        moe_alltoall_bytes(1, 1, 1, "bf16", 0)

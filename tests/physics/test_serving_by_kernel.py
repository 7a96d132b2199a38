"""A decode pass priced kernel by kernel (eighth review of 03-05, H-E1 and H-1): the matmuls'
max(weights, arithmetic) plus the attention kernels' cache read, from raw datasheet and config
inputs; the one-point defaults the bank uses are unchanged."""

from __future__ import annotations

import pytest

from content.physics import (
    chunked_prefill_ttft,
    decode_pass_time_by_kernel,
    free_prefill_chunk,
    speculative_speedup_at_batch,
)

PEAK, BW = 989.4e12, 3.35e12  # H100 SXM dense bf16, HBM3
MATMUL = 8_030_261_248 - 128256 * 4096  # Llama-3-8B less its input table
KV = 2 * 32 * 8 * 128 * 2  # bf16 bytes per cached token
ARGS = ("llama-3-8b", "H100", "bf16")


def _by_kernel(batch, context, extra=0):
    return max(2 * MATMUL / BW, 2 * MATMUL * (batch + extra) / PEAK) + KV * context * batch / BW


@pytest.mark.parametrize(
    ("batch", "context", "extra"), [(1, 0, 0), (174, 2500, 0), (174, 2500, 697)]
)
def test_the_pass_adds_the_matmuls_bound_and_the_caches_read(batch, context, extra):
    got = decode_pass_time_by_kernel(*ARGS, batch, context, extra)
    assert got == pytest.approx(_by_kernel(batch, context, extra), rel=1e-9)


def test_only_the_weights_read_hides_a_chunk():
    assert free_prefill_chunk(*ARGS, 174, 2500, by_kernel=True) == pytest.approx(
        (2 * MATMUL / BW) * PEAK / (2 * MATMUL) - 174
    )
    # the one-point default, which the bank uses, still counts the caches as slack
    assert free_prefill_chunk(*ARGS, 174, 2500) > 1200


def test_chunked_first_token_sums_kernel_priced_steps():
    steps = [
        max(2 * MATMUL / BW, 2 * MATMUL * (174 + 1000) / PEAK) + KV * (2500 * 174 + done) / BW
        for done in (0, 1000)
    ]
    got = chunked_prefill_ttft(*ARGS, 2000, 1000, 174, 2500, by_kernel=True)
    assert got == pytest.approx(sum(steps), rel=1e-9)
    assert got > chunked_prefill_ttft(*ARGS, 2000, 1000, 174, 2500)


def test_four_guesses_at_the_full_batch_gain_far_less_than_the_one_point_model_says():
    per_kernel = speculative_speedup_at_batch(*ARGS, 0.7, 4, 0.05, 174, 2500, by_kernel=True)
    assert per_kernel == pytest.approx(1.73, abs=0.01)  # the review's recomputation
    assert speculative_speedup_at_batch(*ARGS, 0.7, 4, 0.05, 174, 2500) == pytest.approx(
        2.31, abs=0.01
    )


def test_bad_extra_tokens_are_refused():
    with pytest.raises(ValueError, match="extra_tokens"):
        decode_pass_time_by_kernel(*ARGS, 174, 2500, -1)
    with pytest.raises(ValueError, match="context"):
        decode_pass_time_by_kernel(*ARGS, 174, float("nan"))


def test_a_quantized_pass_priced_by_kernel_adds_the_caches_read():
    """Chapter 04's napkin (ninth pass, H-10): GPTQ int4 on two H100s at batch 153 with an fp8
    cache is compute-bound in its matmuls, so the caches' read adds to their arithmetic."""
    from content.physics import quantized_decode_step_time

    table = 128256 * 8192
    body = 70_553_706_496 - 2 * table
    weights = body * (0.5 + 2 / 128 + 0.5 / 128) + 2 * table
    flops = 2 * (70_553_706_496 - table) * 153
    cache = 2 * 80 * 8 * 128 * 4096 * 153
    args = ("llama-3-70b", "H100", "gptq-int4-g128", 153, 4096, "fp8")
    got = quantized_decode_step_time(*args, devices=2, by_kernel=True, bandwidth_fraction=0.9)
    want = max(weights / 2 / (BW * 0.9), flops / 2 / PEAK) + cache / 2 / (BW * 0.9)
    assert got == pytest.approx(want)
    # the one-point default, which the bank uses, is unchanged: max(all bytes, arithmetic)
    one_point = quantized_decode_step_time(*args, devices=2)
    assert one_point == pytest.approx(max((weights + cache) / 2 / BW, flops / 2 / PEAK))
    with pytest.raises(ValueError):
        quantized_decode_step_time(*args, bandwidth_fraction=0)

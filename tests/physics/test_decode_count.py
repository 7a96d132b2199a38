"""One count of a decode pass across the physics helpers (fifth book review, B03-2, B03-3,
B03-4, B04-1): a pass reads every weight but the input embedding table and multiplies by the same
weights, so its FLOPs and bytes both leave the table out; memory fits still count the whole
checkpoint.  Each test recomputes the helper from raw model shapes and fails on the count before
it (2P FLOPs, the whole checkpoint read per pass, the draft charged c of a full pass)."""

import math

import pytest

from content.physics import (
    accelerator,
    allreduce_time,
    chunked_prefill_ttft,
    decode_flops_per_token,
    decode_weight_bytes,
    embedding_params,
    forecast_batch_generation_time,
    free_prefill_chunk,
    kv_cache_bytes,
    max_batch_for_memory,
    max_batch_under_latency,
    model,
    prefill_time,
    prefill_to_decode_gpu_ratio,
    quantized_decode_step_time,
    request_latency,
    speculative_expected_tokens,
    speculative_speedup,
    speculative_speedup_at_batch,
    tensor_parallel_decode_time,
    usable_memory_bytes,
    weights_bytes,
)
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.models import layer_params
from content.physics.forecast import achievable_bandwidth, achievable_flops
from content.physics.inference import _compute_peak

M, ACC, DT = "llama-3-8b", "H100", "bf16"
BW = accelerator(ACC).memory_bandwidth
PEAK = accelerator(ACC).peak(DT)


def _matmul_params(m):
    mdl = model(m)
    return mdl.active_params - mdl.vocab_size * mdl.d_model


def test_decode_flops_leave_out_the_lookup_as_the_bytes_do():
    # Llama-3-8B: 2 × 7.505 B = 15.0 GFLOP against 15.0 GB, exactly 2/b = 1 FLOP/byte
    assert decode_flops_per_token(M) == 2 * _matmul_params(M)
    assert decode_flops_per_token(M) == pytest.approx(15.01e9, rel=1e-3)
    assert decode_flops_per_token(M) / decode_weight_bytes(M, DT) == pytest.approx(1.0)
    assert embedding_params(M) == model(M).vocab_size * model(M).d_model


def test_the_4_bit_pass_at_256_counts_matmul_flops():
    # B04-1: 256 × 2 × 69.45 B ÷ 989.4 TFLOP/s = 36.0 ms, not the 36.5 of 2P
    step = quantized_decode_step_time("llama-3-70b", ACC, "gptq-int4-g128", 256)
    expected = 256 * 2 * _matmul_params("llama-3-70b") / PEAK
    assert step == pytest.approx(expected)
    assert round(step * 1e3) == 36


def test_the_latency_limited_batch_charges_the_bytes_a_pass_reads():
    # B03-3: 25 ms at 2,500 tokens on an H100: the weights a pass reads, not the checkpoint
    target = 25e-3
    per_sequence = kv_cache_bytes(M, 2500, DT, 1)
    expected = math.floor((target * BW - decode_weight_bytes(M, DT)) / per_sequence)
    assert max_batch_under_latency(M, ACC, DT, 2500, target) == expected
    assert expected > math.floor((target * BW - weights_bytes(M, DT)) / per_sequence)


def test_memory_fits_still_count_the_whole_checkpoint():
    spare = max_batch_for_memory(M, ACC, DT, 2500)
    expected = math.floor(
        (usable_memory_bytes(ACC) - weights_bytes(M, DT)) / kv_cache_bytes(M, 2500, DT, 1)
    )
    assert spare == expected


def test_the_free_chunk_fills_a_decode_bytes_pass_with_decode_flops():
    memory = (decode_weight_bytes(M, DT) + kv_cache_bytes(M, 2500, DT, 64)) / BW
    expected = memory * PEAK / decode_flops_per_token(M) - 64
    assert free_prefill_chunk(M, ACC, DT, 64, 2500) == pytest.approx(expected)


def test_chunked_prefill_reads_decode_bytes_each_step():
    total = 0.0
    for i in range(4):
        done = i * 512
        piece = min(512, 2000 - done)
        read = decode_weight_bytes(M, DT) + kv_cache_bytes(M, 2500, DT, 64)
        read += kv_cache_bytes(M, done, DT, 1)
        total += max(read / BW, decode_flops_per_token(M) * (64 + piece) / PEAK)
    assert chunked_prefill_ttft(M, ACC, DT, 2000, 512, 64, 2500) == pytest.approx(total)


def test_the_fleet_ratio_divides_the_printed_prefill_by_the_printed_decode_share():
    # B03-3: the chapter's "84 ms of a decode GPU" and its ratio must divide exactly
    step = (decode_weight_bytes(M, DT) + kv_cache_bytes(M, 2500, DT, 64)) / BW
    decode_share = 499 * step / 64
    ratio = prefill_to_decode_gpu_ratio(M, ACC, DT, 2000, 500, 64, 2500)
    assert ratio == pytest.approx(prefill_time(M, ACC, DT, 2000) / decode_share)
    assert request_latency(M, ACC, DT, 2000, 500, 64, 2500) == pytest.approx(
        prefill_time(M, ACC, DT, 2000) + 499 * step
    )


def _draft_params(m):
    mdl = model(m)
    return layer_params(mdl) + mdl.vocab_size * mdl.d_model + 2 * mdl.d_model**2


def test_a_one_layer_draft_reads_its_own_layer_of_cache_at_the_full_batch():
    # B03-2: at 174 conversations of 2,500 tokens the draft reads 1.55 GB of weights and 1/32 of
    # the 57 GB cache, c ≈ 0.046, and speculation gives 1.77×, not the 1.69× of c fixed at 0.097
    a, k = 0.85, 1
    c = _draft_params(M) / _matmul_params(M)
    batch = max_batch_for_memory(M, ACC, DT, 2500)
    weights, cache = decode_weight_bytes(M, DT), kv_cache_bytes(M, 2500, DT, batch)
    draft = (c * weights + cache / model(M).layers) / BW
    plain = (weights + cache) / BW
    expected = speculative_expected_tokens(a, k) * plain / (plain + k * draft)
    got = speculative_speedup_at_batch(
        M, ACC, DT, a, k, c, batch, 2500, draft_cache_ratio=1 / model(M).layers
    )
    assert got == pytest.approx(expected)
    assert round(got, 2) == 1.77
    assert (c * weights + cache / model(M).layers) / (weights + cache) == pytest.approx(
        0.046, abs=0.001
    )


def test_the_draft_defaults_to_a_scaled_copy_of_the_model():
    # without draft_cache_ratio the draft reads c of the cache too: c of a plain pass
    c = 0.05
    plain = (decode_weight_bytes(M, DT) + kv_cache_bytes(M, 2500, DT, 64)) / BW
    expected = speculative_expected_tokens(0.7, 4) * plain / (plain + 4 * c * plain)
    assert speculative_speedup_at_batch(M, ACC, DT, 0.7, 4, c, 64, 2500) == pytest.approx(expected)
    assert speculative_speedup_at_batch(M, ACC, DT, 0.7, 4, c) == pytest.approx(
        speculative_speedup(0.7, 4, c)
    )


def test_a_draft_cache_share_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="draft_cache_ratio"):
        speculative_speedup_at_batch(M, ACC, DT, 0.8, 1, 0.1, 8, 100, draft_cache_ratio=1.5)


def test_the_served_benchmark_forecast_charges_decode_bytes():
    # forecast_output_throughput's decode step: the weights a pass reads plus the cache
    m, acc, dt = "llama-2-7b", "A100", "fp16"
    rate, bandwidth = achievable_flops(acc, "bf16"), achievable_bandwidth(acc)
    prefill = max(60 * 128 * 2 * _matmul_params(m) / rate, weights_bytes(m, dt) / bandwidth)
    cache = kv_cache_bytes(m, 128 + 1024, dt, 60)
    step = max(
        60 * decode_flops_per_token(m) / rate, (decode_weight_bytes(m, dt) + cache) / bandwidth
    )
    got = forecast_batch_generation_time(m, acc, dt, 60, 128, 2048, rate_dt="bf16")
    assert got == pytest.approx(prefill + 2047 * step)


def test_tensor_parallel_compute_counts_matmul_flops():
    # a batch large enough to be compute-bound on 8 GPUs: FLOPs are the decode count ÷ n
    m, batch = "llama-3-70b", 4096
    part = accelerator(ACC)
    compute = decode_flops_per_token(m) * batch / 8 / _compute_peak(part, dtype(DT))
    assert compute > decode_weight_bytes(m, DT) / 8 / part.memory_bandwidth
    wires = 2 * model(m).layers * allreduce_time(batch * model(m).d_model * 2, 8, "nvlink4")
    got = tensor_parallel_decode_time(m, ACC, DT, 8, "nvlink4", batch, 0)
    assert got == pytest.approx(compute + wires)

"""The formulas against hand-computed values, including the figures the book quotes."""

import dataclasses
import math

import pytest

from content.physics import (
    accelerator,
    arithmetic_intensity,
    attainable_flops,
    cost_per_million_tokens,
    critical_batch_size,
    decode_step_time,
    decode_tokens_per_second,
    dollars_per_hour_for,
    energy_per_token,
    gpus_needed,
    is_memory_bound,
    kernel_time,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    matmul_bytes,
    matmul_flops,
    memory_bandwidth,
    min_gpus,
    model,
    model_flops_per_token,
    peak_flops,
    pipeline_stages,
    prefill_time,
    price,
    quantization_speedup,
    quantized_weights_bytes,
    ridge_point,
    ring_allgather_time,
    ring_allreduce_time,
    tensor_parallel_allreduce_time,
    tensor_parallel_bytes_per_gpu,
    time_per_token_floor,
    transfer_time,
    weights_bytes,
)

LLAMA2_7B = 6_738_415_616
LLAMA2_70B = 68_976_648_192
# a forward pass multiplies by every weight but the input table (32,000 × 4,096, looked up)
LLAMA2_7B_MATMUL = LLAMA2_7B - 32_000 * 4_096


@pytest.mark.parametrize(
    ("acc", "dt", "expected"),
    [
        ("V100", "fp16", 138.9),
        ("A100", "bf16", 153.0),
        ("H100", "bf16", 295.3),
        ("a100-sxm-40gb", "bf16", 200.6),
        ("h100-pcie", "bf16", 378.0),
    ],
)
def test_ridge_points_of_the_book(acc, dt, expected):
    assert ridge_point(acc, dt) == pytest.approx(expected, abs=0.05)


def test_peak_and_bandwidth_are_the_catalog_figures_in_si_units():
    assert peak_flops("H100", "bf16") == 989.4e12
    assert memory_bandwidth("H100") == 3.35e12
    assert peak_flops(accelerator("A100"), "int8") == 624e12


def test_roofline_bends_at_the_ridge_point():
    ridge = ridge_point("H100", "bf16")
    assert attainable_flops("H100", "bf16", 100) == pytest.approx(100 * 3.35e12)
    assert attainable_flops("H100", "bf16", 1000) == 989.4e12
    assert is_memory_bound("H100", "bf16", ridge * 0.99)
    assert not is_memory_bound("H100", "bf16", ridge * 1.01)


def test_kernel_time_is_the_slower_bound():
    # 1 TFLOP over 1 GB on an A100: compute 1e12 / 312e12 = 3.205 ms beats memory 0.49 ms.
    assert kernel_time(1e12, 1e9, "A100", "bf16") == pytest.approx(1e12 / 312e12)
    assert kernel_time(1e9, 1e10, "A100", "bf16") == pytest.approx(1e10 / 2.039e12)


def test_arithmetic_intensity_and_matmul_counts():
    assert arithmetic_intensity(600, 2) == 300
    assert matmul_flops(2, 3, 4) == 48
    assert matmul_bytes(2, 3, 4, "fp16") == (8 + 12 + 6) * 2
    assert matmul_bytes(4096, 4096, 4096, "int4") == 3 * 4096 * 4096 / 2
    with pytest.raises(ValueError):
        arithmetic_intensity(1, 0)


def test_a_70b_model_in_fp16_needs_two_80_gb_gpus():
    assert weights_bytes("llama-2-70b", "fp16") == LLAMA2_70B * 2
    assert weights_bytes(LLAMA2_70B, "fp16") / 1e9 == pytest.approx(137.95, abs=0.01)
    assert gpus_needed("llama-2-70b", "A100", "fp16") == 2
    assert gpus_needed("llama-2-70b", "H100", "fp16") == 2
    assert gpus_needed("llama-2-7b", "H100", "fp16") == 1
    assert gpus_needed("llama-2-70b", "H100", "int4") == 1


def test_kv_cache_can_add_a_gpu():
    # 137.95 GB weights + 327,680 B/token x 4096 tokens x 32 sequences = 42.9 GB: 180.9 GB.
    need = dict(context=4096, batch=32)
    assert gpus_needed("llama-2-70b", "H100", "fp16", **need, level="driver") == 3
    assert gpus_needed("llama-2-70b", "H100", "fp16", **need, kv_dt="fp8", level="driver") == 2
    # 159.4 GB with the cache in fp8: two H100s by the driver's count, three at vLLM's budget.
    assert gpus_needed("llama-2-70b", "H100", "fp16", **need, kv_dt="fp8") == 3


def test_time_per_token_floor_of_a_7b_model_on_an_h100():
    floor = time_per_token_floor("llama-2-7b", "H100", "fp16")
    assert floor == pytest.approx(LLAMA2_7B * 2 / 3.35e12)
    assert floor == pytest.approx(4.02e-3, abs=0.005e-3)


@pytest.mark.parametrize(
    ("name", "per_token"),
    [
        ("llama-2-13b", 819_200),
        ("llama-2-7b", 524_288),
        ("llama-2-70b", 327_680),
        ("llama-3-8b", 131_072),
        ("llama-3.1-405b", 516_096),
    ],
)
def test_kv_cache_bytes_per_token_in_fp16(name, per_token):
    assert kv_cache_bytes_per_token(name, "fp16") == per_token
    assert kv_cache_bytes(name, 1000, "fp16", batch=4) == per_token * 1000 * 4


def test_decode_step_reads_weights_and_the_batch_kv_cache():
    weights = LLAMA2_7B * 2
    kv = 524_288 * 1000 * 8
    expected = (weights + kv) / 3.35e12
    assert decode_step_time("llama-2-7b", "H100", "bf16", batch=8, context=1000) == pytest.approx(
        expected
    )
    assert decode_tokens_per_second(
        "llama-2-7b", "H100", "bf16", batch=8, context=1000
    ) == pytest.approx(8 / expected)


def test_decode_turns_compute_bound_past_the_critical_batch():
    # 2 x 6.738e9 x 400 / 989.4e12 = 5.45 ms exceeds the 4.02 ms weight read.
    assert decode_step_time("llama-2-7b", "H100", "bf16", batch=400) == pytest.approx(
        2 * LLAMA2_7B * 400 / 989.4e12
    )
    assert critical_batch_size("H100", "bf16") == pytest.approx(295.34, abs=0.01)
    assert critical_batch_size("H100", "fp8") == pytest.approx(1978.9e12 / 3.35e12 / 2)


def test_weight_only_formats_compute_at_the_16_bit_rate():
    # H100 has no int4 tensor cores: the step still reads 0.5 B per weight.
    assert decode_step_time("llama-2-7b", "H100", "int4") == pytest.approx(LLAMA2_7B / 2 / 3.35e12)
    assert prefill_time("llama-2-7b", "H100", "nf4", 2000) == pytest.approx(
        2 * LLAMA2_7B_MATMUL * 2000 / 989.4e12
    )
    with pytest.raises(KeyError):
        ridge_point("H100", "int4")


def test_moe_models_compute_with_active_params_but_store_all():
    mixtral = model("mixtral-8x7b")
    assert model_flops_per_token(mixtral) == 2 * mixtral.active_params
    assert weights_bytes(mixtral, "bf16") == 2 * mixtral.params


def test_prefill_is_compute_bound_for_long_prompts():
    assert prefill_time("llama-2-7b", "H100", "bf16", 2000) == pytest.approx(
        2 * LLAMA2_7B_MATMUL * 2000 / 989.4e12
    )
    assert prefill_time("llama-2-7b", "H100", "bf16", 1) == pytest.approx(LLAMA2_7B * 2 / 3.35e12)


def test_min_gpus_rounds_up_whole_devices():
    # Whole devices of the reported capacity: 81,559 MiB = 85,520,809,984 B per H100.
    reported = 81559 * 2**20
    assert min_gpus(2 * reported, "H100", level="driver") == 2
    assert min_gpus(2 * reported + 1e6, "H100", level="driver") == 3
    # Two "80 GB" labels; 171 GB by the driver's count, 153 GB of vLLM budget.
    assert min_gpus(160e9 + 1e6, "H100", level="driver") == 2
    assert min_gpus(160e9 + 1e6, "H100") == 3
    assert min_gpus(1, "H100") == 1


def test_pipeline_stages_leave_headroom():
    # 137.95 GB of weights into 0.9 x 85.52 GB (reported) = 76.97 GB per stage.
    assert pipeline_stages("llama-2-70b", "fp16", "H100") == 2
    assert pipeline_stages("llama-2-70b", "fp16", "H100", headroom=0.5) == 4


def test_quantization_shrinks_weights_and_speeds_up_the_floor():
    assert quantization_speedup("llama-2-7b", "H100", "fp16", "int4") == 4
    assert quantization_speedup("llama-2-7b", "H100", "fp16", "int8") == 2
    # int4 with one fp16 scale per 128 weights costs 4.125 bits per parameter.
    assert quantized_weights_bytes("llama-2-7b", "int4") * 8 / LLAMA2_7B == pytest.approx(4.125)
    assert quantized_weights_bytes("llama-2-7b", "int4", group_size=None) == LLAMA2_7B / 2
    assert quantized_weights_bytes("llama-2-7b", "fp8") == LLAMA2_7B


def test_tensor_parallel_split_and_its_all_reduces():
    assert tensor_parallel_bytes_per_gpu("llama-2-70b", "fp16", 4) == LLAMA2_70B * 2 / 4
    per_allreduce = 2 * 7 / 8 * (8192 * 2) / 450e9
    assert tensor_parallel_allreduce_time("llama-2-70b", "bf16", 8, "nvlink4") == pytest.approx(
        2 * 80 * per_allreduce
    )
    assert tensor_parallel_allreduce_time(
        "llama-2-70b", "bf16", 8, "nvlink4", tokens=100, batch=2
    ) == pytest.approx(2 * 80 * per_allreduce * 200)


def test_transfer_and_collective_times():
    assert transfer_time(1e9, "nvlink4") == pytest.approx(1e9 / 450e9)
    assert transfer_time(1e9, "ib-hdr") == pytest.approx(1e9 / 25e9 + 0.6e-6)
    assert ring_allreduce_time(1e9, 8, "nvlink4") == pytest.approx(2 * 7 / 8 * 1e9 / 450e9)
    assert ring_allreduce_time(1e9, 1, "nvlink4") == 0
    assert ring_allgather_time(1e9, 4, "pcie5") == pytest.approx(0.75 * 1e9 / 63e9)


def test_cost_per_million_tokens_takes_the_price_as_input():
    assert cost_per_million_tokens(3.6, 1000) == pytest.approx(1.0)
    assert cost_per_million_tokens(2.0, 500) == pytest.approx(2.0 / 1.8)
    assert dollars_per_hour_for("H100", 8) == pytest.approx(8 * price("H100").dollars_per_hour)
    with pytest.raises(ValueError):
        cost_per_million_tokens(1.0, 0)


def test_energy_per_token_is_power_times_step_time_over_batch():
    assert energy_per_token("llama-2-7b", "H100", "fp16") == pytest.approx(
        700 * LLAMA2_7B * 2 / 3.35e12
    )
    step = decode_step_time("llama-2-7b", "H100", "fp16", batch=16)
    assert energy_per_token("llama-2-7b", "H100", "fp16", batch=16) == pytest.approx(
        700 * step / 16
    )
    with pytest.raises(ValueError, match="power"):
        energy_per_token("llama-2-7b", "TPU v5e", "bf16")


def test_a_hypothetical_part_changes_only_what_was_replaced():
    h100 = accelerator("H100")
    doubled = dataclasses.replace(h100, memory_bandwidth=2 * h100.memory_bandwidth)
    assert time_per_token_floor("llama-2-7b", doubled, "fp16") == pytest.approx(
        time_per_token_floor("llama-2-7b", h100, "fp16") / 2
    )
    assert math.isclose(ridge_point(doubled, "bf16") * 2, ridge_point(h100, "bf16"))

"""Precision as deployed: bits per weight with scales, checkpoints with 16-bit embeddings, float
ranges (E4M3, E5M2 and AMD's FNUZ variants), SmoothQuant, and the published figures catalog."""

import math

import pytest

from content.physics import (
    accelerator,
    checkpoint_bytes,
    decode_floor,
    decode_flops_per_token,
    decode_weight_bytes,
    dtype,
    dynamic_range_binades,
    embedding_params,
    format_bits_per_weight,
    model,
    published,
    published_figures,
    quantization_gain,
    smoothquant_factor,
    source,
    weight_format,
    weight_formats,
)
from content.physics.inference import weights_bytes


@pytest.mark.parametrize(
    "name,bits",
    [
        ("gptq-int4-g128", 4 + 20 / 128),
        ("awq-int4-g128", 4 + 20 / 128),
        ("mxfp4", 4.25),
        ("nvfp4", 4.5),
        ("mxfp8", 8.25),
        ("nf4-bnb", 4.5),
        ("nf4-bnb-double", 4 + 8 / 64 + 32 / (64 * 256)),
        ("bf16", 16),
        ("fp8", 8),
    ],
)
def test_bits_per_weight_count_scales_and_zero_points(name, bits):
    assert format_bits_per_weight(name) == pytest.approx(bits)


def test_gptq_is_symmetric_by_default_but_stores_a_zero_point_anyway():
    gptq, awq = weight_format("GPTQ"), weight_format("AWQ")
    assert gptq.symmetric is True and gptq.zero_point_bits == 4
    assert awq.symmetric is False
    assert format_bits_per_weight(gptq) == format_bits_per_weight(awq)


def test_a_plain_dtype_checkpoint_is_params_times_bytes():
    mdl = model("llama-3-70b")
    assert checkpoint_bytes(mdl, "bf16") == mdl.params * 2
    assert decode_weight_bytes(mdl, "bf16") == (mdl.params - embedding_params(mdl)) * 2


def test_gptq_keeps_the_embeddings_and_output_head_in_16_bits():
    # Review 4.5: Llama-3-8B's output head is 0.525 B parameters, 1.05 GB in bf16.
    mdl = model("llama-3-8b")
    head = embedding_params(mdl)
    assert head * 2 == pytest.approx(1.05e9, rel=0.01)
    body = (mdl.params - 2 * head) * (4 + 20 / 128) / 8
    assert checkpoint_bytes(mdl, "gptq-int4-g128") == pytest.approx(body + 2 * head * 2)
    assert decode_weight_bytes(mdl, "gptq-int4-g128") == pytest.approx(body + head * 2)
    assert decode_weight_bytes(mdl, "gptq-int4-g128") == pytest.approx(4.7e9, rel=0.01)


def test_the_int4_gain_is_below_four_once_the_layout_is_counted():
    raw = weights_bytes("llama-2-7b", "fp16") / weights_bytes("llama-2-7b", "int4")
    plain = quantization_gain("llama-2-7b", "H100", "fp16", "int4")
    real = quantization_gain("llama-2-7b", "H100", "fp16", "gptq-int4-g128")
    big_vocab = quantization_gain("llama-3-8b", "H100", "bf16", "gptq-int4-g128")
    assert raw == pytest.approx(4)
    assert real < plain < raw  # a plain int4 checkpoint keeps its tables in 16 bits too
    assert 3.5 < real < 3.8
    assert big_vocab < real  # a 128k vocabulary keeps more bytes in 16 bits
    floor = decode_floor("llama-2-7b", "H100", "gptq-int4-g128")
    assert floor == decode_weight_bytes("llama-2-7b", "gptq-int4-g128") / 3.35e12


@pytest.mark.parametrize(
    "name,max_finite,min_normal,min_subnormal",
    [
        ("fp8-e4m3", 448, 2**-6, 2**-9),
        ("fp8-e5m2", 57344, 2**-14, 2**-16),
        ("fp8-e4m3fnuz", 240, 2**-7, 2**-10),
        ("fp8-e5m2fnuz", 57344, 2**-15, 2**-17),
        ("fp16", 65504, 2**-14, 2**-24),
        ("fp4", 6, 1, 0.5),
    ],
)
def test_float_ranges_follow_from_the_layouts(name, max_finite, min_normal, min_subnormal):
    fmt = dtype(name)
    assert (fmt.max_finite, fmt.min_normal, fmt.min_subnormal) == (
        max_finite,
        min_normal,
        min_subnormal,
    )


def test_fnuz_fp8_runs_at_the_fp8_rate():
    assert accelerator("MI300X").peak("fp8-e4m3fnuz") == accelerator("MI300X").peak("fp8")


def test_e5m2_spans_twice_the_binades_of_e4m3_at_a_third_less_precision():
    e4, e5 = dynamic_range_binades("fp8-e4m3"), dynamic_range_binades("fp8-e5m2")
    assert e4 == pytest.approx(math.log2(448 / 2**-6))
    assert e5 == pytest.approx(2 * e4, rel=0.02)
    assert dtype("fp8-e5m2").step_near_one == 2 * dtype("fp8-e4m3").step_near_one
    with pytest.raises(ValueError):
        dynamic_range_binades("int8")


def test_smoothquant_balances_both_sides_at_half():
    s = smoothquant_factor(64, 0.25)
    assert s == pytest.approx(16)
    assert 64 / s == pytest.approx(0.25 * s) == pytest.approx(math.sqrt(64 * 0.25))
    for bad in ((0, 1), (1, -1)):
        with pytest.raises(ValueError):
            smoothquant_factor(*bad)
    with pytest.raises(ValueError):
        smoothquant_factor(1, 1, 1.5)


@pytest.mark.parametrize("fmt", weight_formats(), ids=lambda f: f.key)
def test_every_weight_format_is_sourced(fmt):
    dtype(fmt.element)
    for field_name, key in fmt.sources.items():
        assert source(key).key == key, field_name
    if fmt.tensor_core:
        accelerator(fmt.tensor_core)


@pytest.mark.parametrize("figure", published_figures(), ids=lambda f: f.key)
def test_every_published_figure_names_its_source_and_place(figure):
    assert source(figure.source).key == figure.source
    assert figure.where and figure.name
    assert math.isfinite(figure.value)


def test_the_awq_table_reads_in_points_and_percent():
    fp16 = published("awq-llama-2-70b-fp16").value
    awq = published("awq-llama-2-70b-awq").value
    assert (fp16, awq) == (3.32, 3.41)
    assert (awq - fp16) / fp16 > (
        published("awq-llama-2-7b-awq").value - published("awq-llama-2-7b-fp16").value
    ) / published("awq-llama-2-7b-fp16").value


def test_unknown_formats_are_named():
    with pytest.raises(KeyError, match="neither a weight format nor a dtype"):
        format_bits_per_weight("int3-magic")


def test_the_max_batch_beside_a_checkpoint_uses_the_serving_budget():
    from content.physics import kv_cache_bytes, quantized_max_batch, usable_memory_bytes

    spare = usable_memory_bytes("H100") - checkpoint_bytes("llama-3-70b", "gptq-int4-g128")
    per_seq = kv_cache_bytes("llama-3-70b", 4096, "fp8")
    got = quantized_max_batch("llama-3-70b", "H100", "gptq-int4-g128", 4096, "fp8")
    assert got == math.floor(spare / per_seq)
    # bf16 weights do not fit one H100 at the serving level: no batch at all.
    assert quantized_max_batch("llama-3-70b", "H100", "bf16", 4096) == 0
    assert quantized_max_batch("llama-3-70b", "H100", "bf16", 4096, devices=2) > 0
    with pytest.raises(ValueError):
        quantized_max_batch("llama-3-70b", "H100", "bf16", 0)


def test_quantized_steps_compute_in_the_format_the_tensor_cores_use():
    from content.physics import kv_cache_bytes, quantized_decode_step_time

    h100 = accelerator("H100")
    mdl = model("llama-3-70b")
    # Batch one, no context: bytes decide.
    got = quantized_decode_step_time(mdl, "H100", "gptq-int4-g128")
    assert got == pytest.approx(decode_weight_bytes(mdl, "gptq-int4-g128") / h100.memory_bandwidth)
    # Large batch: 4-bit weights compute in bf16, fp8 weights in fp8 (twice the peak).
    int4 = quantized_decode_step_time(mdl, "H100", "gptq-int4-g128", 256)
    fp8 = quantized_decode_step_time(mdl, "H100", "fp8", 256)
    assert int4 == pytest.approx(decode_flops_per_token(mdl) * 256 / h100.peak("bf16"))
    assert fp8 < int4
    # NVFP4 on a B200 multiplies in fp4; on an H100 it falls back to bf16.
    b200 = quantized_decode_step_time(mdl, "B200", "nvfp4", 4096)
    assert b200 == pytest.approx(
        max(
            decode_weight_bytes(mdl, "nvfp4") / accelerator("B200").memory_bandwidth,
            decode_flops_per_token(mdl) * 4096 / accelerator("B200").peak("fp4"),
        )
    )
    # Devices split bytes and FLOPs; the cache counts in its own format.
    two = quantized_decode_step_time(mdl, "H100", "bf16", 8, 4096, devices=2)
    read = decode_weight_bytes(mdl, "bf16") + kv_cache_bytes(mdl, 4096, "bf16", 8)
    assert two == pytest.approx(read / 2 / h100.memory_bandwidth)
    with pytest.raises(ValueError):
        quantized_decode_step_time(mdl, "H100", "bf16", 0)

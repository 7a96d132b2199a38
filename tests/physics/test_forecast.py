"""From floors to forecasts: measured fractions of peak, wave quantization, and a prediction
checked against a measurement it was not built from."""

import math

import pytest

import content.physics as physics
from content.physics import (
    accelerator,
    achievable_bandwidth,
    achievable_flops,
    bandwidth_efficiency,
    forecast_matmul_time,
    forecast_time,
    kernel_time,
    matmul_bytes,
    matmul_efficiency,
    matmul_flops,
    measurement,
    measurements,
    source,
    wave_efficiency,
)
from content.physics.catalog.measured import KINDS, Measurement
from content.physics.catalog.snapshot import recording


@pytest.mark.parametrize("entry", measurements(), ids=lambda m: m.key)
def test_every_measurement_cites_a_known_source_and_is_below_its_peak(entry):
    assert source(entry.sources["value"]).key == entry.sources["value"]
    assert entry.kind in KINDS and entry.value > 0
    if entry.part is None:
        return
    part = accelerator(entry.part)
    if entry.kind == "stream":
        assert entry.value < part.memory_bandwidth
    if entry.kind in ("matmul", "mamf"):
        assert entry.value < part.peak(entry.dtype)


def test_a_measurement_without_a_source_or_kind_is_refused():
    with pytest.raises(ValueError, match="no source"):
        Measurement("x", "x", "stream", 1.0, "B/s")
    with pytest.raises(ValueError, match="unknown kind"):
        Measurement("x", "x", "guess", 1.0, "B/s", sources={"value": "gpt-fast"})


def test_stream_fractions_of_the_three_measured_parts():
    # Azure: dot reads 3.18 of 3.35 TB/s (H100), 4.48 of 4.8 (H200), 1.75 of 2.039 (A100).
    assert bandwidth_efficiency("H100") == pytest.approx(3.18 / 3.35)
    assert bandwidth_efficiency("H200") == pytest.approx(4.48 / 4.8)
    assert bandwidth_efficiency("A100") == pytest.approx(1.75 / 2.039)
    for part in ("H100", "H200", "A100"):
        # Writing costs: copy and triad sustain less than a read-only dot.
        assert bandwidth_efficiency(part, "copy") < bandwidth_efficiency(part, "dot")
        assert 0.78 < bandwidth_efficiency(part, "copy") < bandwidth_efficiency(part, "triad")


def test_parts_without_a_measurement_say_which_parts_have_one():
    with pytest.raises(KeyError, match="h100-sxm"):
        achievable_bandwidth("L4")
    with pytest.raises(KeyError, match="h100-sxm"):
        achievable_flops("MI300X", "bf16")
    with pytest.raises(ValueError, match="kernel"):
        achievable_bandwidth("H100", "scale")


def test_matmul_efficiency_climbs_with_size_and_matches_the_table():
    peak = accelerator("H100").peak("bf16")
    sizes = (256, 1024, 2048, 4096, 8192)
    fractions = [matmul_efficiency("H100", "bf16", n, n, n) for n in sizes]
    assert fractions == sorted(fractions)
    assert fractions[0] < 0.01 and fractions[-1] > 0.79
    assert fractions[3] == pytest.approx(783.328793548203e12 / peak)


def test_an_unmeasured_size_is_interpolated_in_log_flops_and_held_at_the_ends():
    f1024 = matmul_efficiency("H100", "bf16", 1024, 1024, 1024)
    f2048 = matmul_efficiency("H100", "bf16", 2048, 2048, 2048)
    # 1448³ has half of 2048³'s FLOPs' logarithmic distance: halfway in log FLOPs.
    between = matmul_efficiency("H100", "bf16", 1290, 1290, 1290)
    t = (math.log(2 * 1290**3) - math.log(2 * 1024**3)) / (
        math.log(2 * 2048**3) - math.log(2 * 1024**3)
    )
    assert between == pytest.approx(f1024 + t * (f2048 - f1024))
    assert matmul_efficiency("H100", "bf16", 64, 64, 64) == matmul_efficiency(
        "H100", "bf16", 256, 256, 256
    )
    assert matmul_efficiency("H100", "fp8", 65536, 65536, 65536) == pytest.approx(
        1382.2e12 / accelerator("H100").peak("fp8")
    )


def test_wave_efficiency_of_tiles_on_the_h100():
    assert wave_efficiency(4096, 4096, "H100") == pytest.approx(1024 / (8 * 132))
    assert wave_efficiency(1024, 1024, "H100") == pytest.approx(64 / 132)
    assert wave_efficiency(128 * 132, 128, "H100") == 1.0
    with pytest.raises(ValueError):
        wave_efficiency(0, 4096, "H100")
    with pytest.raises(ValueError, match="SM count"):
        wave_efficiency(4096, 4096, "TPU v5e")
    with pytest.raises(ValueError, match="SM count"):
        wave_efficiency(4096, 4096, "EPYC 9654")


def test_forecast_time_divides_the_floor_by_the_fraction():
    assert forecast_time(1e-3, 0.8) == pytest.approx(1.25e-3)
    for bad in (0, 1.2, -0.5):
        with pytest.raises(ValueError):
            forecast_time(1e-3, bad)
    with pytest.raises(ValueError):
        forecast_time(-1.0, 0.5)


def test_the_4096_matmul_forecast_lands_within_two_percent_of_xlas_measurement():
    # Forecast from Bekman's shape search (794.5 TFLOP/s on 6144x17920x2816) and this shape's
    # waves; checked against XLA's measured 4096³ (783.3 TFLOP/s), a different source.
    forecast = forecast_matmul_time(4096, 4096, 4096, "H100", "bf16")
    flops = matmul_flops(4096, 4096, 4096)
    assert forecast == pytest.approx(flops / (794.5e12 * 1024 / 1056))
    measured = flops / measurement("h100-sxm/matmul-bf16-4096x4096x4096").value
    assert abs(forecast / measured - 1) < 0.02
    # The second measurement of the same shape (fast.cu's cuBLAS) is 9% slower than XLA's.
    slower = flops / measurement("h100-sxm/matmul-bf16-4096x4096x4096@fast-cu").value
    assert abs(forecast / slower - 1) < 0.08
    # And the forecast is slower than the roofline floor, by more than the shape's waves alone.
    floor = kernel_time(flops, matmul_bytes(4096, 4096, 4096, "bf16"), "H100", "bf16")
    assert forecast > floor / wave_efficiency(4096, 4096, "H100")


def test_a_small_matmul_forecast_is_bound_by_measured_bandwidth():
    bytes_moved = matmul_bytes(1, 8192, 8192, "bf16")
    assert forecast_matmul_time(1, 8192, 8192, "H100", "bf16") == pytest.approx(
        bytes_moved / 3.18e12
    )


def test_forecasts_record_the_measurements_they_used():
    with recording() as used:
        forecast_matmul_time(4096, 4096, 4096, "H100", "bf16")
        matmul_efficiency("H100", "bf16", 3000, 3000, 3000)
    keys = {key for kind, key in used if kind == "measurement"}
    assert {"h100-sxm/mamf-bf16", "h100-sxm/stream-dot"} <= keys
    assert {"h100-sxm/matmul-bf16-2048x2048x2048", "h100-sxm/matmul-bf16-4096x4096x4096"} <= keys


def test_measured_sparse_speedups_fall_short_of_the_datasheets_two():
    from content.physics import measurement

    for key in ("sparse/a100-fp16-4096", "sparse/h100-8192", "sparse/llama-2-7b-decode"):
        m = measurement(key)
        assert m.kind == "sparse" and m.unit == "" and 0 < m.value < 2
    assert measurement("sparse/llama-2-7b-decode").value < 1  # a slow-down


def test_host_links_achieve_less_than_their_rating():
    from content.physics import link, measurement

    for key, rated in (
        ("h100-sxm/pcie5-d2h", "pcie5"),
        ("h100-sxm/pcie5-h2d", "pcie5"),
        ("gh200/nvlink-c2c-h2d", "nvlink-c2c"),
    ):
        m = measurement(key)
        assert m.kind == "link" and m.value < link(rated).bandwidth


def test_the_roofline_with_measured_ceilings():
    from content.physics import forecast_kernel_time, kernel_time

    # Memory-bound: the bytes at STREAM-dot bandwidth.
    assert forecast_kernel_time(1e9, 1e9, "H100", "bf16") == pytest.approx(1e9 / 3.18e12)
    # Compute-bound: the FLOPs at the best measured matmul rate.
    assert forecast_kernel_time(1e15, 1e9, "H100", "bf16") == pytest.approx(1e15 / 794.5e12)
    assert forecast_kernel_time(1e15, 1e9, "H100", "bf16") > kernel_time(1e15, 1e9, "H100", "bf16")
    with pytest.raises(ValueError):
        forecast_kernel_time(-1, 1, "H100", "bf16")


# ---- a static batch of requests: prefill plus decode steps at measured ceilings -------------


def test_batch_generation_is_prefill_plus_decode_steps_at_measured_ceilings():
    weights = physics.weights_bytes("llama-2-7b", "fp16")
    # prefill multiplies by every weight but the input table, as a decode pass does
    per_token = physics.forward_flops_per_token("llama-2-7b")
    bandwidth = physics.achievable_bandwidth("A100")
    rate = physics.achievable_flops("A100", "bf16")
    prefill = max(per_token * 128 * 60 / rate, weights / bandwidth)
    cache = physics.kv_cache_bytes("llama-2-7b", 128 + 2048 / 2, "fp16", 60)
    # a decode step reads the weights a pass reads and multiplies by them (not the lookup table)
    read = physics.decode_weight_bytes("llama-2-7b", "fp16") + cache
    step = max(physics.decode_flops_per_token("llama-2-7b") * 60 / rate, read / bandwidth)
    seconds = physics.forecast_batch_generation_time(
        "llama-2-7b", "A100", "fp16", 60, 128, 2048, rate_dt="bf16"
    )
    assert seconds == pytest.approx(prefill + 2047 * step)
    assert physics.forecast_output_throughput(
        "llama-2-7b", "A100", "fp16", 60, 128, 2048, rate_dt="bf16"
    ) == pytest.approx(60 * 2048 / seconds)


def test_no_overlap_sums_the_two_times_and_is_never_faster():
    args = ("llama-2-7b", "A100", "fp16", 384, 128, 128)
    overlap = physics.forecast_batch_generation_time(*args, rate_dt="bf16")
    serial = physics.forecast_batch_generation_time(*args, rate_dt="bf16", overlap=False)
    assert serial > 1.3 * overlap  # the batch of 384: FLOP and byte times are close


def test_by_kernel_adds_the_attention_kernels_cache_read_to_the_matmuls_bound():
    # ninth pass (bk-c), eighth review of 03-05 (H-1): a step's matmuls and attention kernels
    # run one after another, so the caches' read cannot hide the matmuls' arithmetic
    bandwidth = physics.achievable_bandwidth("A100")
    rate = physics.achievable_flops("A100", "bf16")
    per_token = physics.forward_flops_per_token("llama-2-7b")
    prefill = max(
        per_token * 128 * 384 / rate, physics.weights_bytes("llama-2-7b", "fp16") / bandwidth
    )
    matmuls = max(
        physics.decode_flops_per_token("llama-2-7b") * 384 / rate,
        physics.decode_weight_bytes("llama-2-7b", "fp16") / bandwidth,
    )
    caches = physics.kv_cache_bytes("llama-2-7b", 128 + 128 / 2, "fp16", 384) / bandwidth
    args = ("llama-2-7b", "A100", "fp16", 384, 128, 128)
    seconds = physics.forecast_batch_generation_time(*args, rate_dt="bf16", by_kernel=True)
    assert seconds == pytest.approx(prefill + 127 * (matmuls + caches))
    overlap = physics.forecast_batch_generation_time(*args, rate_dt="bf16")
    serial = physics.forecast_batch_generation_time(*args, rate_dt="bf16", overlap=False)
    assert overlap < seconds < serial
    assert physics.forecast_output_throughput(
        *args, rate_dt="bf16", by_kernel=True
    ) == pytest.approx(384 * 128 / seconds)


def test_an_fp8_cache_halves_the_cache_bytes_of_a_step():
    args = ("llama-2-7b", "H100", "bf16", 64, 2048, 2048)
    bf16 = physics.forecast_batch_generation_time(*args)
    fp8 = physics.forecast_batch_generation_time(*args, kv_dt="fp8")
    assert fp8 < bf16


@pytest.mark.parametrize(
    "batch, prompt, out",
    [(0, 128, 128), (1.5, 128, 128), (True, 128, 128), (1, 0, 128), (1, 128, 0), (1, 128, 2.5)],
)
def test_a_static_batch_refuses_empty_or_fractional_runs(batch, prompt, out):
    with pytest.raises(ValueError):
        physics.forecast_batch_generation_time("llama-2-7b", "A100", "fp16", batch, prompt, out)


def test_a_format_without_a_measured_matmul_rate_names_the_measured_parts():
    with pytest.raises(KeyError, match="measured parts"):
        physics.forecast_output_throughput("llama-2-7b", "A100", "fp16", 1, 128, 128)

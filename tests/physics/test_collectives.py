"""Collectives with a latency-plus-bandwidth cost model, and the timings that calibrate it."""

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    achieved_link_fraction,
    allreduce_crossover_bytes,
    allreduce_link_bytes,
    allreduce_steps,
    allreduce_time,
    collective_measurement,
    collective_measurements,
    decode_step_time,
    kv_cache_bytes,
    latency_bound_below,
    link,
    multinode_allreduce_time,
    ring_allreduce_time,
    source,
    step_latency,
    tensor_parallel_decode_time,
    weights_bytes,
)
from content.physics.catalog.collectives import CollectiveMeasurement
from content.physics.precision import (
    decode_weight_bytes,
    embedding_params,
    quantized_decode_step_time,
)

ALGORITHMS = ("ring", "tree", "in-switch", "one-shot")


@pytest.mark.parametrize(
    "algorithm,steps,factor",
    [
        ("ring", 2 * 7, 2 * 7 / 8),
        ("tree", 2 * 3, 2.0),
        ("in-switch", 2, 1.0),
        ("one-shot", 1, 7.0),
    ],
)
def test_eight_gpu_all_reduce_steps_and_bytes(algorithm, steps, factor):
    assert allreduce_steps(8, algorithm) == steps
    assert allreduce_link_bytes(1e9, 8, algorithm) == pytest.approx(factor * 1e9)


def test_a_tree_needs_log_steps_where_a_ring_needs_linear_ones():
    assert allreduce_steps(64, "tree") == 12
    assert allreduce_steps(64, "ring") == 126
    assert allreduce_steps(5, "tree") == 6  # ceil(log2 5) = 3


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_gpu_reduces_nothing(algorithm):
    assert allreduce_steps(1, algorithm) == 0
    assert allreduce_time(1e9, 1, "nvlink4", algorithm, 1e-5) == 0


@given(
    size=st.floats(0, 1e11, allow_nan=False),
    n=st.integers(1, 256),
    ln=st.sampled_from(["nvlink4", "ib-ndr", "pcie5"]),
)
def test_the_ring_without_latency_is_the_classic_formula(size, n, ln):
    assert allreduce_time(size, n, ln) == pytest.approx(ring_allreduce_time(size, n, ln))


def test_time_is_steps_times_latency_plus_bytes_over_bandwidth():
    alpha = 3e-6
    t = allreduce_time(16384, 8, "nvlink4", "ring", alpha)
    assert t == pytest.approx(14 * alpha + 2 * 7 / 8 * 16384 / 450e9)


def test_in_switch_reduction_halves_the_ring_traffic_at_large_sizes():
    ring = allreduce_time(16 * 2**30, 8, "nvlink4", "ring")
    switch = allreduce_time(16 * 2**30, 8, "nvlink4", "in-switch")
    assert ring / switch == pytest.approx(1.75)


def test_measurements_derive_their_time_from_what_the_source_prints():
    small = collective_measurement("nccl-8xh200-32kib")
    assert small.seconds == pytest.approx(32768 / 0.82e9)  # printed: algorithm bandwidth
    ring = collective_measurement("nccl-ring-8xh200-16gib")
    assert ring.seconds == pytest.approx(16 * 2**30 * 1.75 / 367.61e9)  # printed: bus bandwidth
    assert collective_measurement("vllm-custom-8xh100-16kib").seconds == 9.3e-6  # printed: time


def test_a_measurement_prints_exactly_one_figure():
    row = collective_measurement("nccl-8xh200-32kib")
    with pytest.raises(ValueError, match="exactly one"):
        dataclasses.replace(row, seconds_printed=1e-5)
    with pytest.raises(ValueError, match="exactly one"):
        dataclasses.replace(row, algorithm_bandwidth=None)
    with pytest.raises(ValueError, match="unknown algorithm"):
        dataclasses.replace(row, algorithm="butterfly")


@pytest.mark.parametrize("row", collective_measurements(), ids=lambda r: r.key)
def test_every_measurement_is_sourced_and_names_real_parts(row):
    assert isinstance(row, CollectiveMeasurement)
    for field_name, key in row.sources.items():
        assert source(key).key == key, field_name
    printed = [f for f in ("seconds_printed", "algorithm_bandwidth", "bus_bandwidth")]
    given_fields = [f for f in printed if getattr(row, f) is not None]
    assert given_fields and all(f in row.sources for f in given_fields + ["payload_bytes"])
    accelerator(row.accelerator)
    link(row.link)
    assert row.seconds > 0


def test_step_latency_is_the_small_message_time_shared_over_the_steps():
    alpha = step_latency("nccl-8xh200-32kib")
    row = collective_measurement("nccl-8xh200-32kib")
    # Calibrated α reproduces the measured time exactly.
    assert allreduce_time(row.payload_bytes, 8, "nvlink4", "ring", alpha) == pytest.approx(
        row.seconds
    )
    assert 2e-6 < alpha < 4e-6
    # A custom one-shot kernel has one step, and a much smaller fixed cost per all-reduce.
    one_shot = step_latency("vllm-custom-8xh100-16kib")
    assert one_shot < 14 * alpha


def test_the_latency_bound_size_matches_where_nccl_stops_being_slow():
    # Bekman: below about 8 MiB an 8-GPU all-reduce's throughput is very low.
    alpha = step_latency("nccl-8xh200-32kib")
    size = latency_bound_below(8, "nvlink4", "ring", alpha)
    assert 4 * 2**20 < size < 16 * 2**20
    steps_part = allreduce_steps(8) * alpha
    assert allreduce_link_bytes(size, 8) / link("nvlink4").bandwidth == pytest.approx(steps_part)


@pytest.mark.parametrize(
    "fewer_steps,fewer_bytes", [("one-shot", "in-switch"), ("tree", "ring"), ("one-shot", "ring")]
)
def test_two_algorithms_cross_where_their_times_are_equal(fewer_steps, fewer_bytes):
    alpha = step_latency("nccl-8xh200-32kib")
    size = allreduce_crossover_bytes(8, "nvlink4", fewer_steps, fewer_bytes, alpha)

    def time(algorithm, payload):
        return allreduce_time(payload, 8, "nvlink4", algorithm, alpha)

    assert time(fewer_steps, size) == pytest.approx(time(fewer_bytes, size))
    assert time(fewer_steps, size / 2) < time(fewer_bytes, size / 2)
    assert time(fewer_steps, size * 2) > time(fewer_bytes, size * 2)
    # The order of the two names does not matter.
    assert allreduce_crossover_bytes(8, "nvlink4", fewer_bytes, fewer_steps, alpha) == size


def test_one_shot_beats_in_switch_reduction_only_below_a_few_hundred_kib():
    # α W ÷ (n − 2): one step against two, (n − 1) B against B.
    alpha = step_latency("nccl-8xh200-32kib")
    size = allreduce_crossover_bytes(8, "nvlink4", "one-shot", "in-switch", alpha)
    assert size == pytest.approx(alpha * link("nvlink4").bandwidth / 6)
    assert 100 * 2**10 < size < 400 * 2**10


@pytest.mark.parametrize(
    "first,second,alpha",
    [("in-switch", "ring", 3e-6), ("ring", "ring", 3e-6), ("ring", "tree", -1e-6)],
)
def test_algorithms_that_never_cross_are_refused(first, second, alpha):
    with pytest.raises(ValueError):
        allreduce_crossover_bytes(8, "nvlink4", first, second, alpha)


def test_large_ring_all_reduces_use_about_four_fifths_of_nvlink():
    assert achieved_link_fraction("nccl-ring-8xh200-16gib") == pytest.approx(367.61 / 450)
    # In-switch reduction moves half the bytes, so its fraction of the link is lower.
    assert achieved_link_fraction("nccl-nvls-8xh200-16gib") < 0.7


def test_hierarchical_measurements_have_no_single_step_latency():
    with pytest.raises(ValueError, match="hierarchical"):
        step_latency("nccl-4x8xb200-4gib")


def test_one_gpu_and_one_nic_per_server_is_the_flat_ring():
    grads = weights_bytes("llama-2-7b", "bf16")
    flat = ring_allreduce_time(grads, 8, "ib-ndr")
    assert multinode_allreduce_time(grads, 8, 1, "nvlink4", "ib-ndr") == pytest.approx(flat)


def test_eight_nics_per_server_cut_the_network_term_eightfold():
    grads = weights_bytes("llama-2-7b", "bf16")
    one_nic = multinode_allreduce_time(grads, 8, 8, "nvlink4", "ib-ndr", nics_per_node=1)
    full = multinode_allreduce_time(grads, 8, 8, "nvlink4", "ib-ndr")
    inside = 2 * 7 / 8 * grads / 450e9
    assert (one_nic - inside) / (full - inside) == pytest.approx(8)
    assert full < ring_allreduce_time(grads, 8, "ib-ndr") / 4


def test_the_hierarchical_model_brackets_a_measured_multinode_all_reduce():
    row = collective_measurement("nccl-4x8xb200-4gib")
    serial = multinode_allreduce_time(row.payload_bytes, 4, 8, "nvlink5", row.link)
    overlapped = multinode_allreduce_time(
        row.payload_bytes, 4, 8, "nvlink5", row.link, pipelined=True
    )
    assert overlapped < row.seconds < serial


def test_tensor_parallel_on_one_gpu_is_the_chapter_04_decode_step():
    # One GPU reads what chapter 04's decode step reads: the weights less the input table.
    one = tensor_parallel_decode_time("llama-2-7b", "H100", "bf16", 1, "nvlink4", 8, 1024)
    table = embedding_params("llama-2-7b") * 2 / accelerator("H100").memory_bandwidth
    assert one == pytest.approx(decode_step_time("llama-2-7b", "H100", "bf16", 8, 1024) - table)
    assert one == pytest.approx(quantized_decode_step_time("llama-2-7b", "H100", "bf16", 8, 1024))


def test_tensor_parallel_adds_two_all_reduces_per_layer():
    alpha = 5e-6
    got = tensor_parallel_decode_time(
        "llama-3-70b", "H100", "bf16", 8, "nvlink4", algorithm="one-shot", step_latency=alpha
    )
    floor = decode_weight_bytes("llama-3-70b", "bf16") / 8 / accelerator("H100").memory_bandwidth
    message = 8192 * 2
    comm = 2 * 80 * (alpha + 7 * message / 450e9)
    assert got == pytest.approx(floor + comm)


def test_kv_heads_are_replicated_beyond_their_count():
    # Llama-3-70B has 8 KV heads: at n = 16 each GPU still holds an eighth of the cache.
    kv = kv_cache_bytes("llama-3-70b", 8192, "bf16", 16)
    bw = accelerator("H100").memory_bandwidth
    t16 = tensor_parallel_decode_time("llama-3-70b", "H100", "bf16", 16, "nvlink4", 16, 8192)
    weights = decode_weight_bytes("llama-3-70b", "bf16")
    comm = 2 * 80 * ring_allreduce_time(16 * 8192 * 2, 16, "nvlink4")
    assert t16 == pytest.approx((weights / 16 + kv / 8) / bw + comm)


def test_startup_latency_decides_whether_eight_way_decode_pays():
    nccl = step_latency("nccl-8xh200-32kib")
    custom = step_latency("trtllm-custom-8xh100-16kib")
    t4 = tensor_parallel_decode_time(
        "llama-3-70b", "H100", "bf16", 4, "nvlink4", 1, 0, "ring", nccl
    )
    t8 = tensor_parallel_decode_time(
        "llama-3-70b", "H100", "bf16", 8, "nvlink4", 1, 0, "ring", nccl
    )
    f8 = tensor_parallel_decode_time(
        "llama-3-70b", "H100", "bf16", 8, "nvlink4", 1, 0, "one-shot", custom
    )
    assert t8 / t4 > 0.8  # doubling the GPUs buys under 20% with the ring's start-up cost
    assert f8 < 0.6 * t4  # with a one-shot kernel the bandwidth nearly halves the step


@pytest.mark.parametrize(
    "call",
    [
        lambda: allreduce_steps(0),
        lambda: allreduce_steps(2.5),
        lambda: allreduce_steps(True),
        lambda: allreduce_steps(8, "butterfly"),
        lambda: allreduce_link_bytes(-1, 8),
        lambda: allreduce_time(1e6, 8, "nvlink4", "ring", -1e-6),
        lambda: multinode_allreduce_time(1e9, 0, 8, "nvlink4", "ib-ndr"),
        lambda: multinode_allreduce_time(1e9, 2, 8, "nvlink4", "ib-ndr", nics_per_node=0),
        lambda: tensor_parallel_decode_time("llama-2-7b", "H100", "bf16", 0, "nvlink4"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(call):
    with pytest.raises(ValueError):
        call()


def test_unknown_names_say_what_was_meant():
    with pytest.raises(KeyError, match="did you mean"):
        collective_measurement("nccl-8xh200-32kb")
    assert math.isfinite(step_latency(collective_measurement("nccl-8xh200-32kib")))

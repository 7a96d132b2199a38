"""Worked solutions of the functions added for the depth sections: value is the function's."""

import pytest

import content.physics as physics
from content.physics import explain, explainable, weights_bytes

CALLS = [
    ("memory_fits", (141e9, "H200"), {}),
    ("memory_fits", (160e9, "H100"), {"devices": 1}),
    ("peak_flops_from_clock", (132, 4096, 1.83e9), {}),
    ("occupancy", ("H100", 256, 64), {}),
    ("occupancy", ("A100", 128, 32), {"shared_bytes_per_block": 48 * 1024}),
    ("occupancy", ("T4", 32, 0), {}),
    ("bytes_in_flight", (3.35e12, 350e-9), {}),
    ("coalescing_efficiency", (2, 4), {}),
    ("tile_intensity", (128, 256, "bf16"), {}),
    ("max_batch_for_memory", ("llama-3-70b", "H200", "bf16", 8192), {}),
    ("max_batch_for_memory", ("llama-3-70b", "H100", "bf16", 8192), {}),
    ("max_batch_under_latency", ("llama-2-7b", "H100", "bf16", 4096, 0.02), {}),
    ("speculative_expected_tokens", (0.8, 4), {}),
    ("speculative_expected_tokens", (1.0, 3), {}),
    ("speculative_speedup", (0.7, 5, 0.1), {}),
    ("pipeline_bubble_fraction", (4, 16), {}),
    ("moe_alltoall_bytes", (4096, 4096, 2, "bf16", 8), {}),
    ("alltoall_time", (50e6, 8, "nvlink4"), {}),
    ("alltoall_time", (50e6, 1, "nvlink4"), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS, ids=[c[0] for c in CALLS])
def test_explanation_value_equals_the_function(name, args, kwargs):
    explanation = explain(name, *args, **kwargs)
    assert explanation.value == getattr(physics, name)(*args, **kwargs)
    assert explanation.steps
    for step in explanation.steps:
        assert step.label and step.formula and step.substituted and step.result


def test_every_new_function_is_exported_and_explainable():
    names = {c[0] for c in CALLS}
    assert names <= set(explainable())
    assert names <= set(physics.__all__)
    assert "Occupancy" in physics.__all__


def test_fits_working_names_the_reported_capacity():
    steps = explain("memory_fits", weights_bytes("llama-3-70b", "bf16"), "H200").steps
    assert "as the device reports it" in steps[0].label
    assert steps[-1].result == "fits"
    assert explain("memory_fits", 10e9, "H100 PCIe").steps[0].label.count("datasheet label") == 1


def test_occupancy_working_ends_with_the_fraction():
    last = explain("occupancy", "H100", 256, 64).steps[-1]
    assert last.result == "0.5 (32 of 64 warps)"


def test_min_gpus_working_uses_the_reported_capacity():
    step = explain("min_gpus", 160e9, "H100").steps[-1]
    assert "85.5 GB each" in step.label
    assert step.result == "2 GPUs"

"""Worked solutions of the functions added for the depth sections: value is the function's."""

import pytest

import content.physics as physics
from content.physics import explain, explainable, weights_bytes

CALLS = [
    ("memory_fits", (141e9, "H200"), {}),
    ("memory_fits", (160e9, "H100"), {"devices": 1}),
    ("memory_fits", (160e9, "H100"), {"devices": 2, "level": "framework"}),
    ("fits", (160e9, "H100"), {"gpus": 3}),
    ("usable_memory_bytes", ("H200",), {}),
    ("usable_memory_bytes", ("H200", "framework"), {}),
    ("usable_memory_bytes", ("TPU v5e", "driver"), {}),
    ("min_gpus", (400e9, "B200"), {"level": "framework"}),
    ("spare_memory_bytes", (141e9, "H200"), {"level": "driver"}),
    ("kv_cache_bytes", ("deepseek-v3", 4096, "bf16"), {}),
    ("kv_cache_bytes", ("mistral-7b", 8192, "bf16"), {"window": True}),
    ("gpus_needed", ("llama-2-70b", "H100", "fp16"), {"context": 4096, "batch": 8}),
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


def test_fits_working_names_the_level_it_judges_at():
    weights = weights_bytes("llama-3-70b", "bf16")
    driver = explain("memory_fits", weights, "H200", level="driver").steps
    assert "as the driver reports it" in driver[0].label
    assert driver[-1].result == "fits"
    serving = explain("memory_fits", weights, "H200").steps
    assert serving[0].label == "Total the GPU's runtime (CUDA or ROCm) reports to programs"
    assert "serving engine's budget" in serving[1].label
    assert serving[-1].result == "does not fit"
    pcie = explain("memory_fits", 10e9, "H100 PCIe", level="driver").steps[0].label
    assert pcie.count("datasheet label") == 1
    assert "none published" in explain("fits", 10e9, "H100 PCIe").steps[0].label


def test_occupancy_working_ends_with_the_fraction():
    last = explain("occupancy", "H100", 256, 64).steps[-1]
    assert last.result == "0.5 (32 of 64 warps)"


def test_min_gpus_working_uses_the_usable_memory_of_its_level():
    step = explain("min_gpus", 160e9, "H100", level="driver").steps[-1]
    assert "85.5 GB each" in step.label
    assert step.result == "2 GPUs"
    step = explain("min_gpus", 160e9, "H100").steps[-1]
    # Three GPUs: each keeps the reserve of a split model (71.3 GB, not one GPU's 73.3 GB).
    assert "71.3 GB each" in step.label and "serving engine" in step.label
    assert step.result == "3 GPUs"


TEXT_CALLS = CALLS + [
    ("prefill_time", ("llama-3-8b", "H100", "bf16", 2000), {}),
    ("coalescing_efficiency", (4, 1024), {}),
    # a compute bound over a thousand: its cut result printed "8{,}5..." before S7-3's fix
    ("max_batch_under_latency", ("llama-2-7b", "B200", "bf16", 512, 0.05), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), TEXT_CALLS, ids=[c[0] for c in TEXT_CALLS])
def test_titles_and_step_labels_are_plain_text_not_tex(name, args, kwargs):
    """A title, a step's label or its result is shown as text: a TeX thousands comma
    ('163{,}840{,}000', the sixth bank re-check's S6-3; '1{,}017.27' in a result, S7-3) or a TeX
    command in one is printed literally."""
    explanation = explain(name, *args, **kwargs)
    steps = explanation.steps
    for text in (explanation.title, *(s.label for s in steps), *(s.result for s in steps)):
        assert "{,}" not in text and "\\" not in text, text


def test_the_latency_narrator_names_the_input_table_with_a_plain_comma():
    steps = explain("max_batch_under_latency", "llama-2-7b", "H100", "bf16", 4096, 0.02).steps
    labels = " ".join(step.label for step in steps)
    assert "(131,072,000 parameters;" in labels, labels

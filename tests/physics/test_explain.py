"""Worked solutions: their value is the plain function's, their steps show the working."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import content.physics as physics
from content.physics import Explanation, explain, explainable

CALLS = [
    ("ridge_point", ("H100", "bf16"), {}),
    ("attainable_flops", ("A100", "bf16", 50.0), {}),
    ("attainable_flops", ("A100", "bf16", 500.0), {}),
    ("kernel_time", (1e12, 1e9, "A100", "bf16"), {}),
    ("arithmetic_intensity", (2e12, 13.5e9), {}),
    ("matmul_flops", (4096, 4096, 1), {}),
    ("matmul_bytes", (4096, 4096, 1, "fp16"), {}),
    ("weights_bytes", ("llama-2-70b", "fp16"), {}),
    ("weights_bytes", (7e9, "int4"), {}),
    ("kv_cache_bytes", ("llama-2-13b", 4096, "fp16"), {"batch": 8}),
    ("decode_step_time", ("llama-2-7b", "H100", "bf16"), {"batch": 8, "context": 1000}),
    ("decode_step_time", ("llama-2-7b", "H100", "bf16"), {"batch": 512}),
    ("decode_tokens_per_second", ("llama-2-70b", "MI300X", "fp16"), {}),
    ("prefill_time", ("llama-2-7b", "H100", "bf16", 2000), {}),
    ("critical_batch_size", ("H100", "bf16"), {}),
    ("min_gpus", (137.95e9, "A100"), {}),
    ("gpus_needed", ("llama-2-70b", "H100", "fp16"), {"context": 4096, "batch": 32}),
    ("transfer_time", (1e9, "ib-hdr"), {}),
    ("ring_allreduce_time", (1e9, 8, "nvlink4"), {}),
    ("cost_per_million_tokens", (3.2, 1500.0), {}),
    ("time_per_token_floor", ("llama-2-7b", "H100", "fp16"), {}),
    ("energy_per_token", ("llama-2-7b", "H100", "fp16"), {"batch": 4, "context": 512}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS, ids=[c[0] for c in CALLS])
def test_explanation_value_equals_the_function_exactly(name, args, kwargs):
    explanation = explain(name, *args, **kwargs)
    assert isinstance(explanation, Explanation)
    assert explanation.value == getattr(physics, name)(*args, **kwargs)
    assert explanation.steps
    for step in explanation.steps:
        assert step.label and step.formula and step.substituted and step.result


def test_every_required_function_is_explainable():
    required = {
        "ridge_point",
        "attainable_flops",
        "kernel_time",
        "arithmetic_intensity",
        "matmul_flops",
        "matmul_bytes",
        "weights_bytes",
        "kv_cache_bytes",
        "decode_step_time",
        "decode_tokens_per_second",
        "prefill_time",
        "critical_batch_size",
        "min_gpus",
        "transfer_time",
        "ring_allreduce_time",
        "cost_per_million_tokens",
        "time_per_token_floor",
        "energy_per_token",
    }
    assert required <= set(explainable())
    assert required <= {c[0] for c in CALLS}


def test_ridge_point_working_shows_units_and_the_result():
    explanation = explain("ridge_point", "H100", "bf16")
    last = explanation.steps[-1]
    assert last.substituted == "\\frac{989.4\\ \\text{TFLOP/s}}{3.35\\ \\text{TB/s}}"
    assert last.result == "295 FLOP/byte"
    assert explanation.unit == "FLOP/B"


def test_final_step_result_is_the_formatted_value():
    explanation = explain("time_per_token_floor", "llama-2-7b", "H100", "fp16")
    assert explanation.steps[-1].result == "4.02 ms"
    explanation = explain("min_gpus", 137.95e9, "A100")
    assert explanation.steps[-1].result == "2 GPUs"


def test_decode_working_names_the_binding_resource():
    memory_bound = explain("decode_step_time", "llama-2-7b", "H100", "bf16")
    compute_bound = explain("decode_step_time", "llama-2-7b", "H100", "bf16", batch=1024)
    assert "memory-bound" in memory_bound.steps[-1].label
    assert "compute-bound" in compute_bound.steps[-1].label


def test_unknown_function_lists_the_explainable_ones():
    with pytest.raises(KeyError, match="ridge_point"):
        explain("ridge_pont", "H100", "bf16")


ACCS = [a.key for a in physics.accelerators() if "bf16" in a.peak_flops and a.power_watts]


@given(
    st.sampled_from([m.key for m in physics.models()]),
    st.sampled_from(ACCS),
    st.sampled_from(["bf16", "fp8", "int4", "nf4"]),
    st.integers(min_value=1, max_value=2048),
    st.integers(min_value=0, max_value=32768),
)
def test_decode_explanations_agree_with_the_functions(mdl, acc, dt, batch, context):
    for name in ("decode_step_time", "decode_tokens_per_second", "energy_per_token"):
        value = getattr(physics, name)(mdl, acc, dt, batch=batch, context=context)
        assert explain(name, mdl, acc, dt, batch=batch, context=context).value == value


def test_one_device_and_one_byte_are_singular():
    assert explain("min_gpus", 10e9, "H100").steps[-1].result == "1 GPU"
    assert "(1 byte per parameter)" in explain("weights_bytes", 7e9, "int8").steps[0].label
    assert "(2 bytes per parameter)" in explain("weights_bytes", 7e9, "fp16").steps[0].label


def test_a_cpu_or_tpu_is_counted_as_what_it_is():
    assert explain("min_gpus", 20e12, "EPYC 9654").steps[-1].result == "4 CPUs"
    assert explain("min_gpus", 40e9, "TPU v5e").steps[-1].result == "3 TPUs"

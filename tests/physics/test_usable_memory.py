"""Usable memory at the three levels: driver, framework (PyTorch) and serving (vLLM's budget)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    accelerators,
    fits,
    measurement,
    min_gpus,
    runtime_reserve_bytes,
    runtime_total_bytes,
    source,
    spare_memory_bytes,
    usable_memory_bytes,
    weights_bytes,
)
from content.physics.catalog.snapshot import recording
from content.physics.memory import (
    DEFAULT_UTILIZATION,
    LEVELS,
    serving_reserve_bytes,
)

MiB = 2**20

# What the CUDA runtime reports (deviceQuery's global memory, PyTorch's total_memory), from the
# sources the catalog cites: a few hundred MiB below nvidia-smi's total.
RUNTIME = {
    "h100-sxm": 85_045_477_376,  # deviceQuery, driver 12.7 / runtime 12.4
    "a100-sxm-80gb": 85_100_068_864,
    "l4": 23_570_219_008,
    "h200": 143156 * MiB,  # PyTorch total_memory=143156MB
    "b200": 182642 * MiB,
}


@pytest.mark.parametrize(("key", "total"), sorted(RUNTIME.items()))
def test_runtime_totals_are_the_published_figures_and_below_the_drivers(key, total):
    part = accelerator(key)
    assert part.memory_runtime_bytes == total
    assert runtime_total_bytes(part) == total
    assert part.memory_runtime_bytes < part.memory_bytes
    # The driver keeps a few hundred MiB: 453 (H100) to 762 (A100) here.
    assert 300 * MiB < part.memory_bytes - total < 800 * MiB
    assert source(part.sources["memory_runtime_bytes"]).verified


def test_parts_without_a_runtime_figure_fall_back_to_the_drivers():
    for key in ("v100-sxm2", "h100-pcie", "mi300x", "tpu-v5e"):
        part = accelerator(key)
        assert part.memory_runtime_bytes is None
        assert runtime_total_bytes(part) == part.memory_bytes


def test_the_cuda_context_is_the_pytorch_measurement_and_only_gpus_pay_it():
    context = measurement("cuda-context")
    assert context.value == 287_047_680 and context.sources["value"] == "pytorch-pr-86509"
    assert measurement("cuda-context-eager").value > context.value  # lazy loading saves it
    assert runtime_reserve_bytes("H100") == context.value
    assert runtime_reserve_bytes("TPU v5e") == runtime_reserve_bytes("EPYC 9654") == 0


def test_the_default_utilization_is_vllms_and_cited():
    policy = measurement("vllm-gpu-memory-utilization")
    assert policy.value == DEFAULT_UTILIZATION == 0.9
    assert policy.sources["value"] == "vllm-cache-config"


def test_the_three_levels_of_an_h100():
    h100 = accelerator("H100")
    assert usable_memory_bytes(h100, "driver") == h100.memory_bytes == 85_520_809_984
    assert usable_memory_bytes(h100, "framework") == 85_045_477_376 - 287_047_680
    # vLLM's budget less what it sets aside inside it (its own log: 1.26 + 1.79 GiB).
    reserve = (1.26 + 1.79) * 2**30
    assert usable_memory_bytes(h100) == pytest.approx(0.9 * 85_045_477_376 - reserve)
    assert usable_memory_bytes(h100, utilization=0.5) == pytest.approx(
        0.5 * 85_045_477_376 - reserve
    )


@pytest.mark.parametrize("acc", accelerators(), ids=lambda a: a.key)
def test_levels_never_grow_from_driver_to_serving(acc):
    driver, framework, serving = (usable_memory_bytes(acc, level) for level in LEVELS)
    assert driver >= framework >= serving > 0
    # At full utilization a server gets what the framework can allocate less what the engine
    # sets aside, never more.
    full = runtime_total_bytes(acc) - serving_reserve_bytes(acc)
    assert usable_memory_bytes(acc, utilization=1.0) == min(full, framework)


def test_bad_levels_and_utilizations_are_refused_by_name():
    with pytest.raises(ValueError, match="driver, framework, serving"):
        usable_memory_bytes("H100", "nvidia-smi")
    for bad in (0, -0.1, 1.01):
        with pytest.raises(ValueError, match="utilization"):
            usable_memory_bytes("H100", utilization=bad)
    with pytest.raises(ValueError, match="gpus"):
        fits(1e9, "H100", gpus=0)
    with pytest.raises(ValueError, match="gpus"):
        fits(1e9, "H100", gpus=1.5)


def test_llama_3_70b_on_one_h200_at_each_level():
    weights = weights_bytes("llama-3-70b", "bf16")  # 141.1 GB
    assert fits(weights, "H200", level="driver")
    assert fits(weights, "H200", level="framework")
    assert not fits(weights, "H200")  # 0.9 x 143,156 MiB = 135.1 GB
    assert spare_memory_bytes(weights, "H200", level="driver") == pytest.approx(9.65e9, abs=0.01e9)
    assert spare_memory_bytes(weights, "H200") < 0
    assert min_gpus(weights, "H200") == 2
    assert min_gpus(weights, "H200", level="driver") == 1


def test_a_server_at_a_higher_utilization_can_hold_what_the_default_cannot():
    weights = weights_bytes("llama-3-70b", "bf16")
    assert not fits(weights, "H200", utilization=0.9)
    assert fits(weights, "H200", utilization=0.99)


def test_usable_memory_records_the_figures_it_used():
    with recording() as used:
        usable_memory_bytes("H100", "framework")
    assert ("measurement", "cuda-context") in used
    assert ("accelerator", "h100-sxm") in used


@given(
    st.floats(1e6, 3e12),
    st.integers(1, 16),
    st.sampled_from(["H100", "H200", "A100", "L4", "MI300X", "TPU v5e"]),
    st.sampled_from(LEVELS),
)
def test_fits_is_exactly_min_gpus_at_most_gpus_at_every_level(need, gpus, acc, level):
    assert fits(need, acc, gpus=gpus, level=level) == (min_gpus(need, acc, level=level) <= gpus)
    spare = spare_memory_bytes(need, acc, gpus=gpus, level=level)
    if abs(spare) > 1e3:  # away from the float tolerance at the boundary
        assert (spare > 0) == fits(need, acc, gpus=gpus, level=level)

"""The serving level takes the GPU count: a model split over several GPUs keeps vLLM's NCCL
buffers on each (non-torch memory 3.58 GiB at tensor parallelism 2 against 1.79 GiB alone, its
own log), so every "does it fit" at the serving level charges the reserve of the split it
judges; and the one serving batch cap (vLLM's default max_num_seqs) every template and rule uses.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    accelerators,
    explain,
    fits,
    gpus_needed,
    kv_cache_bytes,
    max_batch_for_memory,
    measurement,
    min_gpus,
    pipeline_stages,
    quantized_max_batch,
    runtime_total_bytes,
    serving_batch_cap,
    serving_reserve_bytes,
    source,
    spare_memory_bytes,
    usable_memory_bytes,
    weights_bytes,
)

GiB = 2**30


def test_each_gpu_of_a_split_keeps_the_tp2_reserve():
    total = accelerator("H100").memory_runtime_bytes
    alone = 0.9 * total - (1.26 + 1.79) * GiB
    split = 0.9 * total - (1.26 + 3.58) * GiB
    assert usable_memory_bytes("H100") == pytest.approx(alone, rel=1e-12)
    for gpus in (2, 4, 8):
        assert usable_memory_bytes("H100", gpus=gpus) == pytest.approx(split, rel=1e-12)
        assert usable_memory_bytes("H100", gpus=gpus) == pytest.approx(
            0.9 * total - serving_reserve_bytes("H100", gpus=gpus), rel=1e-12
        )
    # 1.79 GiB less on each GPU once the model is split: 1.92 GB.
    assert usable_memory_bytes("H100") - usable_memory_bytes("H100", gpus=2) == pytest.approx(
        1.79 * GiB
    )


@pytest.mark.parametrize("level", ["driver", "framework"])
def test_only_the_serving_level_depends_on_the_gpu_count(level):
    for acc in ("H100", "A100", "L4", "MI300X"):
        assert usable_memory_bytes(acc, level, gpus=8) == usable_memory_bytes(acc, level)


def test_a_tpu_pays_no_serving_reserve_alone_or_split():
    assert usable_memory_bytes("TPU v5e", gpus=4) == usable_memory_bytes("TPU v5e")


def test_a_bad_gpu_count_is_refused():
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="gpus"):
            usable_memory_bytes("H100", gpus=bad)


def test_a_split_that_fit_on_paper_with_one_gpus_reserve_no_longer_fits():
    # Between 2 x the split budget and 2 x one GPU's alone: fitted before, does not now.
    need = usable_memory_bytes("H100", gpus=2) * 2 + 1e9
    assert need < 2 * usable_memory_bytes("H100")
    assert not fits(need, "H100", gpus=2)
    assert min_gpus(need, "H100") == 3
    assert spare_memory_bytes(need, "H100", gpus=2) == pytest.approx(-1e9)
    # One GPU alone keeps its own (smaller) reserve.
    assert fits(usable_memory_bytes("H100"), "H100")


def test_the_recheck_counts_llama_2_70b_fp16_on_l4s_needs_nine():
    # docs/reviews/bank-recheck-2026-12-06.md R-4, seeds 23, 27, 36: 7.69 GPUs' worth of one L4's
    # budget alone, 8.6 of a split's.
    w = weights_bytes("llama-2-70b", "fp16")
    assert 7 < w / usable_memory_bytes("L4") < 8
    assert min_gpus(w, "L4") == 9 == math.ceil(w / usable_memory_bytes("L4", gpus=2))


def test_the_recheck_fits_of_llama_3_70b_on_two_a100s_hold_no_8k_conversation():
    # R-1, seeds 29, 47, 56: 2 x A100 80 GB, bf16 weights, 8,192-token caches: the split's
    # reserve leaves room for none (the one-GPU reserve had room for 2).
    assert max_batch_for_memory("llama-3-70b", "A100", "bf16", 8192, devices=2) == 0
    spare = 2 * usable_memory_bytes("A100") - weights_bytes("llama-3-70b", "bf16")
    assert math.floor(spare / kv_cache_bytes("llama-3-70b", 8192, "bf16")) == 2


@given(
    st.floats(1e9, 3e12),
    st.sampled_from(["H100", "A100", "L4", "MI300X", "B200"]),
)
def test_min_gpus_is_the_fewest_that_fit_and_one_fewer_does_not(need, acc):
    n = min_gpus(need, acc)
    assert fits(need, acc, gpus=n)
    assert n == 1 or not fits(need, acc, gpus=n - 1)


@given(
    st.sampled_from(["llama-2-7b", "llama-3-70b", "llama-2-70b", "llama-3.1-405b"]),
    st.sampled_from(["H100", "A100", "L4", "MI300X"]),
    st.integers(1, 8),
    st.integers(128, 32768),
)
def test_max_batch_fits_with_the_reserve_of_its_split(m, acc, devices, context):
    batch = max_batch_for_memory(m, acc, "bf16", context, devices=devices)
    per_sequence = kv_cache_bytes(m, context, "bf16")
    weights = weights_bytes(m, "bf16")
    if batch:
        assert fits(weights + batch * per_sequence, acc, gpus=devices)
    assert not fits(weights + (batch + 1) * per_sequence, acc, gpus=devices)


def test_quantized_max_batch_and_gpus_needed_use_the_split_budget():
    assert quantized_max_batch("llama-3-70b", "A100", "bf16", 8192, devices=2) == 0
    w = weights_bytes("llama-2-70b", "fp16")
    assert gpus_needed("llama-2-70b", "L4", "fp16") == min_gpus(w, "L4") == 9


def test_pipeline_stages_at_the_serving_level_count_the_split_reserve():
    w = weights_bytes("llama-2-70b", "fp16")
    stages = pipeline_stages("llama-2-70b", "fp16", "L4", 1.0, level="serving")
    assert stages == min_gpus(w, "L4") == 9
    # At the framework level nothing changes with the count.
    assert pipeline_stages("llama-2-70b", "fp16", "L4", 1.0) == math.ceil(
        w / usable_memory_bytes("L4", "framework")
    )


def test_the_worked_count_divides_by_the_split_budget_and_says_why():
    working = explain("min_gpus", weights_bytes("llama-2-70b", "fp16"), "L4")
    assert working.value == 9
    labels = " ".join(step.label for step in working.steps)
    assert "split" in labels and "NCCL" in labels
    assert "16 GB each" in working.steps[-1].label  # 16.02 GB, not one L4's 17.94 GB
    assert "16.02" in working.steps[-1].substituted
    # A count of one shows one GPU's budget and no split.
    one = explain("min_gpus", 10e9, "L4")
    assert one.value == 1 and "split" not in " ".join(s.label for s in one.steps)


def test_worked_budgets_never_label_the_budget_as_the_utilization():
    # bank-recheck R-10: "a serving engine's budget (90%)" read as 90% of the memory.
    for working in (
        explain("min_gpus", 160e9, "H100"),
        explain("usable_memory_bytes", "H100"),
        explain("usable_memory_bytes", "H100", gpus=2),
        explain("max_batch_for_memory", "llama-3-70b", "H100", "bf16", 4096, 2),
        explain("fits", 100e9, "H100", gpus=2),
    ):
        text = working.title + " ".join(step.label for step in working.steps)
        assert "(90%)" not in text
        assert "90% of the runtime's total, less its reserve" in text
    split = explain("usable_memory_bytes", "H100", gpus=2)
    assert split.value == usable_memory_bytes("H100", gpus=2)
    assert "split model" in split.title


def test_the_batch_cap_is_vllms_default_from_the_catalog():
    assert measurement("vllm/max-num-seqs").value == 256
    assert measurement("vllm/max-num-seqs-large").value == 1024
    assert source("vllm-batch-defaults").url.endswith("vllm/engine/arg_utils.py")
    assert serving_batch_cap("H100") == serving_batch_cap("H200") == 1024
    assert serving_batch_cap("MI300X") == 1024
    # An A100 80 GB is large enough but named out; an L4 and a 40 GB A100 are too small.
    assert serving_batch_cap("A100") == serving_batch_cap("a100-sxm-40gb") == 256
    assert serving_batch_cap("L4") == 256


@pytest.mark.parametrize("part", accelerators(), ids=lambda a: a.key)
def test_the_batch_cap_follows_vllms_rule_on_every_part(part):
    large = runtime_total_bytes(part) >= 70 * GiB and "a100" not in part.name.lower()
    assert serving_batch_cap(part) == (1024 if large else 256)

"""The third edition's open findings at the root of the physics module (docs/review.md):

- X-I1: the serving level sets aside what vLLM's own log shows it holds inside its budget (the
  activation peak and the memory outside PyTorch's allocator), so the book's KV-cache budget for
  Llama-3-8B on one H100 is vLLM's logged one;
- G04-I1: every quantized checkpoint keeps its input embedding and output head in 16 bits, as the
  deployed fp8, NVFP4, GPTQ and AWQ checkpoints do;
- G05-I4: one count of the bytes a decode pass reads, for chapter 04's formats and chapter 05's
  tensor-parallel floors.
"""

from __future__ import annotations

import pytest

from content.physics import (
    accelerator,
    allreduce_time,
    kv_cache_bytes,
    max_batch_for_memory,
    model,
    tensor_parallel_decode_time,
    usable_memory_bytes,
    weights_bytes,
)
from content.physics.catalog.measured import measurement
from content.physics.catalog.sources import source
from content.physics.catalog.weight_formats import weight_formats
from content.physics.memory import serving_reserve_bytes
from content.physics.precision import (
    checkpoint_bytes,
    decode_weight_bytes,
    embedding_params,
    quantized_max_batch,
)

GiB = 2**30


def test_x_i1_the_kv_budget_of_llama_3_8b_on_an_h100_is_vllms_logged_one():
    logged = measurement("vllm/kv-cache-llama-3-8b-h100").value
    ours = usable_memory_bytes("H100") - weights_bytes("llama-3-8b", "bf16")
    # vLLM prints 79.22 GiB for the total the runtime reports, the catalog holds 79.20 GiB.
    assert ours == pytest.approx(logged, rel=1e-3)
    # The chapter's running example: 174 conversations of 2,500 tokens, as vLLM's log gives.
    batch = max_batch_for_memory("llama-3-8b", "H100", "bf16", 2500)
    assert batch == int(logged // kv_cache_bytes("llama-3-8b", 2500, "bf16")) == 174


def test_x_i1_the_reserve_is_the_logged_activations_and_buffers_on_gpus_only():
    assert serving_reserve_bytes("H100") == pytest.approx((1.26 + 1.79) * GiB)
    assert serving_reserve_bytes("H100", gpus=2) == pytest.approx((1.26 + 3.58) * GiB)
    assert serving_reserve_bytes("H100", gpus=8) == serving_reserve_bytes("H100", gpus=2)
    assert serving_reserve_bytes("tpu-v5e") == 0
    for key in ("vllm/activation-peak", "vllm/non-torch-tp1", "vllm/non-torch-tp2"):
        assert source(measurement(key).sources["value"]).verified


def test_x_i1_a_utilization_that_leaves_nothing_is_refused():
    with pytest.raises(ValueError, match="leaves nothing"):
        usable_memory_bytes("T4", utilization=0.01)


def test_g04_i1_every_weight_format_keeps_its_tables_in_16_bits_with_a_source():
    for fmt in weight_formats():
        assert fmt.keeps_16bit_embeddings, fmt.key
        assert source(fmt.sources["keeps_16bit_embeddings"]).url


@pytest.mark.parametrize(
    "fmt,bits",
    [("fp8", 8), ("int8", 8), ("int4", 4), ("nvfp4", 4.5), ("mxfp4", 4.25)],
)
def test_g04_i1_a_quantized_checkpoint_stores_both_tables_at_two_bytes(fmt, bits):
    mdl = model("llama-3-70b")
    tables = 2 * embedding_params(mdl)
    expected = (mdl.params - tables) * bits / 8 + tables * 2
    assert checkpoint_bytes(mdl, fmt) == pytest.approx(expected)


def test_g04_i1_the_reviewers_figures():
    # fp8 Llama-3-70B weighs 72.7 GB, NVFP4 42.7 GB, as the deployed checkpoints do.
    assert checkpoint_bytes("llama-3-70b", "fp8") / 1e9 == pytest.approx(72.66, abs=0.01)
    assert checkpoint_bytes("llama-3-70b", "nvfp4") / 1e9 == pytest.approx(42.71, abs=0.01)
    # 16-bit and wider checkpoints store the tables like every other weight.
    assert checkpoint_bytes("llama-3-70b", "bf16") == weights_bytes("llama-3-70b", "bf16")
    assert checkpoint_bytes("llama-3-70b", "fp32") == weights_bytes("llama-3-70b", "fp32")
    # The 16-bit tables cost fp8 a whole 4k conversation on one H100's serving budget.
    assert quantized_max_batch("llama-3-70b", "H100", "fp8", 4096, "fp8") == 0


@pytest.mark.parametrize("n", [2, 4, 8])
def test_g05_i4_tensor_parallel_floors_charge_what_a_decode_pass_reads(n):
    # With no cache and a free link, the TP step is the chapter-04 floor split n ways.
    step = tensor_parallel_decode_time(
        "llama-3-70b", "H100", "bf16", n, "nvlink4", algorithm="ring", step_latency=0.0
    )
    mdl = model("llama-3-70b")
    floor = decode_weight_bytes(mdl, "bf16") / n / accelerator("H100").memory_bandwidth
    message = mdl.d_model * 2  # one token's activations in bf16
    allreduces = 2 * mdl.layers * allreduce_time(message, n, "nvlink4", "ring", 0.0)
    assert step == pytest.approx(floor + allreduces, rel=1e-12)
    assert decode_weight_bytes("llama-3-70b", "bf16") < weights_bytes("llama-3-70b", "bf16")

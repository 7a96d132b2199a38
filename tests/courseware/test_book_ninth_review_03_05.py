"""Chapters 03-05: the ninth independent review's fixes (rv-2, docs/reviews/book-03-05-ninth.md).

Each test fails on the text the review read (cf03507) and passes on the fixed one.  Figures are
recomputed from published inputs (model configurations, datasheet rates, vLLM's profiled
overheads), not by the function the chapter calls, and looked for in the rendered text.
"""

from __future__ import annotations

import math

import pytest

import content.physics as physics
from tests.courseware.book_text import authored, chapter_text, main_text, q, section, takeaways

H100 = physics.accelerator("H100")
PEAK, BANDWIDTH = 989.4e12, 3.35e12  # H100 SXM datasheet: dense bf16, HBM3
# Llama-3-8B's config.json: a pass multiplies by every weight but the input table.
L8 = physics.model("llama-3-8b")
MATMUL8 = L8.params - 128_256 * 4_096
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # bytes per token in bf16: 128 KiB
BATCH = 174  # the chapter's operating point (vLLM's budget, test_book_serving_chapters)
PROMPTS_PER_SEQUENCE = 2000 / 499  # prompt tokens each sequence brings to a pass (chunked prefill)
# Llama-3-70B: 80 layers, 8 KV heads of 128; vLLM's log (#10511): 1.26 GiB of activations and
# 3.58 GiB of non-torch memory on each GPU of a split model, inside its 0.9.
L70 = physics.model("llama-3-70b")
KV70_4096 = 2 * 80 * 8 * 128 * 2 * 4096
SPLIT_BUDGET = 0.9 * H100.memory_runtime_bytes - (1.26 + 3.58) * 2**30


@pytest.fixture(scope="module")
def inference():
    return chapter_text("03-inference.md")


def _colocated_limit(kv_bytes_per_token: float) -> int:
    """The batch whose pass, prompts included, keeps the 25 ms promise: each sequence adds its
    cache's read and the arithmetic of its own token and its share of the prompts."""
    per_sequence = (
        kv_bytes_per_token * 2500 / BANDWIDTH + (1 + PROMPTS_PER_SEQUENCE) * 2 * MATMUL8 / PEAK
    )
    return math.floor(25e-3 / per_sequence)


def test_j1_the_fp8_cache_table_is_decode_only_and_the_service_is_latency_bound(inference):
    bf16, fp8 = _colocated_limit(KV_TOKEN), _colocated_limit(KV_TOKEN / 2)
    assert (bf16, fp8) == (143, 200)  # the review's figures
    fp8_cache = section(inference, "An fp8 KV cache", "The floor's forecast and other read rates")
    assert (
        "The table counts both limits for a decode-only pass priced kernel by kernel, as in the "
        "main text (prompts on GPUs of their own" in fp8_cache
    )
    assert "so memory still binds" not in fp8_cache
    assert "so on a decode-only GPU memory still binds." in fp8_cache
    assert (
        "Our service runs its prompts inside its "
        f"passes, and there latency binds: the promise admits {bf16} conversations with a bf16 "
        f"cache ( napkin ) and {fp8} with an fp8 cache read as fp8." in fp8_cache
    )
    # the napkin's limit is the same 143, one number for one quantity
    assert f"a batch of at most {bf16}," in main_text(inference)


def test_j2_two_gpus_hold_the_70b_weights_and_serving_takes_four(inference):
    weights = 2 * L70.params
    gpus = math.ceil(weights / SPLIT_BUDGET)
    room = math.floor((gpus * SPLIT_BUDGET - weights) / KV70_4096)
    batch64 = weights + 64 * KV70_4096  # chapter 05's capacity example
    serving = 2 ** math.ceil(math.log2(math.ceil(batch64 / SPLIT_BUDGET)))
    assert (gpus, room, serving) == (2, 1, 4)
    assert ", so 2 GPUs, the interconnect chapter" not in inference
    assert (
        f"Split, each GPU keeps {q(SPLIT_BUDGET, 'B', sig=3)}, so {gpus} GPUs hold the weights "
        f"with cache for {room} conversation of 4,096 tokens; serving a batch of them takes "
        f"{serving}, the interconnect chapter 's subject." in inference
    )


def test_j3_the_disaggregated_first_token_is_before_queueing_at_a_stated_load(inference):
    prefill = 2000 * 2 * MATMUL8 / PEAK
    decode_pass = max(2 * MATMUL8 / BANDWIDTH, BATCH * 2 * MATMUL8 / PEAK)
    decode_pass += KV_TOKEN * 2500 * BATCH / BANDWIDTH
    per_request = 499 * decode_pass / BATCH
    ratio = prefill / per_request  # prefill GPUs per decode GPU at balance: always busy
    fleet = section(inference, "Disaggregating prefill", "Speculative decoding:")
    assert (
        f"about one prefill GPU for every {authored(1 / ratio, 1)} decode GPUs keeps prefill "
        f"always busy; at 70% load, one per {authored(0.7 / ratio, 2)} ." in fleet
    )
    assert "a first token arrives after the prefill and the trip, before queueing: 36 ms" in fleet


def test_j4_the_speculative_loss_is_stated_at_zero_context(inference):
    assert "295 short conversations" not in inference
    assert "the same head on 295 conversations at zero context gives 0.88×, a loss" in inference


def test_j5_the_13b_exercise_says_whose_budget_it_borrows(inference):
    assert (
        "of the 73.3 GB a serving engine may use (Llama-3-8B's budget; a wider model's activations "
        "take a little more), leaving room for at most 14 sequences" in inference
    )


def test_j6_j7_j8_chapter_04_states_its_transfers_and_its_arithmetic_rate():
    t = chapter_text("04-precision.md")
    assert "longer-trained models lose more" not in t
    assert (
        "Their 70B model is Llama-3.1-70B, ours with the same architecture and about the same "
        "pretraining, so its losses should carry over." in t
    )
    assert (
        "profiled on Llama-3-8B; a 70B model's activations take more, so the counts below are "
        "upper bounds" in main_text(t)
    )
    assert "arithmetic runs at the datasheet peak" in t


def test_j9_j10_chapter_05_names_the_fitted_crossover_and_its_own_deepep_rates():
    t = chapter_text("05-interconnect.md")
    # one blocking 32 KiB all-reduce on 8 H200s (the catalog's measured seconds) over the ring's
    # 14 steps, against NVLink 4's 450 GB/s per direction and a ring's 2 (n - 1) / n bytes
    alpha = physics.collective_measurement("nccl-8xh200-32kib").seconds / 14
    crossover = 14 * alpha * physics.link("nvlink4").bandwidth / (2 * 7 / 8) / 2**20
    assert "an 8-GPU NCCL all-reduce is latency-bound" not in takeaways(t)
    assert (
        "In the α-β model fitted to one small blocking call, an 8-GPU ring is latency-bound "
        f"below {crossover:.2g} MiB" in takeaways(t)
    )
    assert "The crossover is the model's, not a measurement" in t
    assert "by DeepEP's accounting" not in t
    dispatch = 128 * 8 * 7168  # DeepSeek-V3: 128 tokens to 8 experts of d = 7168, fp8
    assert (
        f"at {q(dispatch / 77e-6, 'B/s', sig=2)} by our count of every per-expert copy" in t
        and "(DeepEP's own table prints slightly more)" in t
    )


def test_chapter_03_main_text_did_not_grow():
    # a guard, not a finding: rendered words before "Key takeaways" at a169883 (the review's
    # text, cf03507, plus the review itself): 4,324
    assert len(main_text(chapter_text("03-inference.md")).split()) <= 4324


def test_s4_the_deepseek_example_derives_its_conversations_per_gpu_in_the_body():
    t = main_text(chapter_text("05-interconnect.md"))
    server = physics.published("deepseek-decode-node-throughput").value  # tokens/s per server
    speed = (
        physics.published("deepseek-output-speed-low").value
        + physics.published("deepseek-output-speed-high").value
    ) / 2  # tokens/s per conversation
    assert (
        f"about {authored(server / speed / 8, 2)} conversations (a server's "
        f"{q(server, 'tokens/s', sig=3)} over {q(speed, 'tokens/s', sig=2)} per conversation, "
        "over 8 GPUs)" in t
    )

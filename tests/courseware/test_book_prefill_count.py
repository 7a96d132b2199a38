"""Chapters 03 and 05 on one forward-pass count (book-h): prefill multiplies each prompt token
by the weights a decode pass multiplies, the input embedding table left out (it is looked up),
so the prompt's FLOPs, its attention share and the per-layer arithmetic of a tensor-parallel
prefill all drop by the table's share; the bill of a request charges the decode pass
``request_latency`` charges.  Figures are recomputed from raw model shapes and datasheet rates
and looked for in the text a reader sees; each test fails on the text before this change
(32 ms of prefill, 3.3% attention share, parity near 61 thousand, 8.3 cents a thousand
requests, 0.39 prefill GPUs per decode GPU, 220 MFLOP per layer and GPU)."""

from __future__ import annotations

import math

import pytest

import content.physics as physics
from content.physics import format_number
from tests.courseware.book_text import authored, chapter_texts, q

H100 = physics.accelerator("H100")
PEAK, BANDWIDTH = H100.peak("bf16"), H100.memory_bandwidth  # 989.4 TFLOP/s, 3.35 TB/s
ENGINE = (1.26 + 1.79) * 2**30  # vLLM's activation peak and non-torch memory
# Llama-3-8B: 32 layers of d = 4096, 32 query heads of 128, 8 KV heads, vocabulary 128,256
L8 = physics.model("llama-3-8b")
MATMUL8 = L8.params - 128256 * 4096  # the weights a forward pass multiplies
KV8 = 2 * 32 * 8 * 128 * 2  # bf16 bytes per token
# Llama-3-70B: 80 layers of d = 8192, vocabulary 128,256
MATMUL70 = physics.model("llama-3-70b").params - 128256 * 8192


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("03-inference.md", "05-interconnect.md"))


def n(value: float, sig: int = 3) -> str:
    return format_number(value, sig)


def full_batch() -> int:
    budget = 0.9 * H100.memory_runtime_bytes - ENGINE
    return math.floor((budget - 2 * L8.params) / (KV8 * 2500))


def test_the_prompt_is_30_ms_of_the_weights_a_pass_multiplies(text):
    t = text["03-inference.md"]
    flops = 2 * MATMUL8 * 2000
    # bk-c3 (item 7): P is defined once, as the weights a pass multiplies (7.5 billion here)
    assert "with P the weights a pass multiplies" in t and n(MATMUL8 / 1e9) == "7.5"
    assert "2,000 tokens by the P weights, 2 P n FLOPs" in t
    assert f"= {q(flops, 'FLOP', sig=3)} {q(PEAK, 'FLOP/s')} = {q(flops / PEAK, 's', sig=2)}" in t
    assert q(flops / PEAK, "s", sig=2) == "30 ms"


def test_attention_share_and_parity_divide_by_the_same_count(text):
    t = text["03-inference.md"]
    per_token = 2 * 32 * 32 * 128  # causal QK and AV: 4 L h d_h n / 2 FLOPs per token, per n
    assert f"For our prompt that is {n(100 * per_token * 2000 / (2 * MATMUL8), 2)}% of the" in t
    assert f"reaching parity near {n(2 * MATMUL8 / per_token / 1e3, 2)} thousand" in t


def test_a_thousand_requests_on_their_own_gpus_charge_the_decode_pass(text):
    t = text["03-inference.md"]
    batch = full_batch()
    step = (2 * MATMUL8 + KV8 * 2500 * batch) / BANDWIDTH
    cents = physics.price("H100").dollars_per_hour / 3600 * 1e5
    own = cents * (2 * MATMUL8 * 2000 / PEAK + 499 * step / batch)
    cached = cents * (2 * MATMUL8 * 500 / PEAK + 499 * step / batch)
    # ninth pass (bk-c): the two own-GPU bills live in the reference's table only (H-6)
    main = t[: t.index("Key takeaways")]
    assert f"{n(own, 2)} cents" not in main and f"{n(cached, 2)} cents" not in main
    assert f"on GPUs of their own {n(own, 2)} " in t
    assert f"the same, system prompt cached {n(cached, 2)} " in t


def test_the_fleet_ratio_prices_the_prompt_on_the_forward_count(text):
    t = text["03-inference.md"]
    batch = full_batch()  # the chapter's one operating point (eighth pass, F-7)
    step = (2 * MATMUL8 + KV8 * 2500 * batch) / BANDWIDTH
    ratio = (2 * MATMUL8 * 2000 / PEAK) / (499 * step / batch)
    # bk-c2: the ratio as a reader holds it, one prefill GPU for every 1/0.49 decode GPUs
    assert f"about one prefill GPU for every {n(1 / ratio, 1)} decode GPUs" in t
    assert t.count("prefill GPU for every") == 1  # one ratio, not a second at 64


def test_tensor_parallel_prefill_counts_the_weights_a_layer_multiplies(text):
    t = text["05-interconnect.md"]
    per_layer = 2 * MATMUL70 / 80 / 8
    sent = 2 * 2 * 7 / 8 * 8192 * 2
    assert "( P the weights a pass multiplies)" in t
    ratio = authored(per_layer / sent, 2)
    # pre-45 (bk-d2): the ratio leaves the equation (it clipped at 390 px) for the sentence after
    assert f"= {q(per_layer, 'FLOP', sig=3)} {q(sent, 'B', sig=3)} That, about {ratio}" in t
    prefill = 2 * MATMUL70 * 2048 / PEAK / 8
    assert f"for a 2,048-token prompt, {q(prefill, 's', sig=2)} of compute per GPU" in t

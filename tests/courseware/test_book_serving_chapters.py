"""Chapters 03-05, third edition: each finding of the 2026-12-06 review fixed, and every new fit,
forecast and cost statement checked live.

A figure here is recomputed from the catalog's raw entries with the formula written out in the
test, not by the physics function the chapter calls, and then looked for in the rendered text;
so a sentence cannot drift from its formula or its sources. Each test names the finding (3.1 ...
5.7, X1 ... X4) or the third-edition item it guards.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import content.physics as physics
from content.expressions.live import scan_live
from content.physics import format_number, format_quantity
from courseware.rendering import render_chapter_text, split_front_matter

# vLLM's own log (vllm-project/vllm#10511): an activation peak of 1.26 GiB and 1.79 GiB of
# non-torch memory, set aside inside its 0.9 before the KV cache gets the rest.
ENGINE_BYTES = (1.26 + 1.79) * 2**30


BOOK = Path(__file__).resolve().parents[2] / "content" / "book"
SERVING = ("03-inference.md", "04-precision.md", "05-interconnect.md")
CONTEXT_BYTES = 287_047_680  # PyTorch's CUDA context (pytorch/pytorch#86509), as book-a's test


@pytest.fixture(scope="module")
def html():
    return {name: render_chapter_text((BOOK / name).read_text()).html for name in SERVING}


@pytest.fixture(scope="module")
def text(html):
    """Rendered chapters as running text: tags dropped, whitespace collapsed."""
    return {name: " ".join(re.sub(r"<[^>]+>", " ", page).split()) for name, page in html.items()}


def q(value: float, unit: str, sig: int = 3) -> str:
    return format_quantity(value, unit, sig=sig)


def n(value: float, sig: int = 3) -> str:
    return format_number(value, sig)


def pct(value: float, sig: int) -> str:
    return format_number(value * 100, sig) + "%"


def serving_memory(part_name: str, gpus: int = 1) -> float:
    """vLLM's budget on each of ``gpus`` GPUs: 0.9 of the runtime's total less its reserve (NCCL's
    buffers added once the model is split), never above runtime total less the context."""
    part = physics.accelerator(part_name)
    runtime = part.memory_runtime_bytes or part.memory_bytes
    split = (3.58 - 1.79) * 2**30 if gpus > 1 else 0
    return min(0.9 * runtime - ENGINE_BYTES - split, runtime - CONTEXT_BYTES)


def weights(model_name: str, bytes_per_param: float) -> float:
    return physics.model(model_name).params * bytes_per_param


def kv_per_token(model_name: str, bytes_per_value: float) -> float:
    m = physics.model(model_name)
    if m.kv_lora_rank is not None:
        return m.layers * (m.kv_lora_rank + m.qk_rope_head_dim) * bytes_per_value
    return 2 * m.layers * m.n_kv_heads * m.head_dim * bytes_per_value


def decode_weights(model_name: str, bytes_per_param: float) -> float:
    """What a decode pass reads of the weights: all but the input embedding table, of which it
    needs one row per token (the output head is a real matmul, read in full)."""
    m = physics.model(model_name)
    return (m.params - m.vocab_size * m.d_model) * bytes_per_param


def matmul_params(model_name: str) -> float:
    """The weights a forward pass (prefill or decode) multiplies by: all but the input embedding
    table, which it only looks up."""
    m = physics.model(model_name)
    return m.params - m.vocab_size * m.d_model


def decode_step(model_name: str, part_name: str, batch: int, context: float) -> float:
    m, part = physics.model(model_name), physics.accelerator(part_name)
    read = decode_weights(model_name, 2) + batch * context * kv_per_token(model_name, 2)
    return max(read / part.memory_bandwidth, 2 * m.active_params * batch / part.peak("bf16"))


def full_batch() -> int:
    """Chapter 03's one operating point (eighth pass, F-7): Llama-3-8B conversations of 2,500
    tokens that vLLM's budget on one H100 holds beside the bf16 weights."""
    return math.floor((serving_memory("H100") - weights("llama-3-8b", 2)) / (2500 * 131072))


def pass_by_kernel(batch: int, context: float, extra: float = 0) -> float:
    """Llama-3-8B's decode pass on an H100 kernel by kernel (eighth review of 03-05, H-1): the
    matmuls' max(weights' read, arithmetic of batch + extra tokens), then the caches' read."""
    part = physics.accelerator("H100")
    weight_time = decode_weights("llama-3-8b", 2) / part.memory_bandwidth
    flops = 2 * decode_weights("llama-3-8b", 1) * (batch + extra)
    caches = batch * context * kv_per_token("llama-3-8b", 2) / part.memory_bandwidth
    return max(weight_time, flops / part.peak("bf16")) + caches


def step(model_name: str, part_name: str, batch: int, context: float, b: float = 2) -> float:
    m, part = physics.model(model_name), physics.accelerator(part_name)
    read = m.params * b + batch * context * kv_per_token(model_name, b)
    compute = 2 * m.active_params * batch / part.peak("bf16")
    return max(read / part.memory_bandwidth, compute)


# ---------------------------------------------------------------- the third edition's shape


@pytest.mark.parametrize("name", SERVING)
def test_each_chapter_ends_with_a_napkin_and_has_exercises_with_answers(html, name):
    page = html[name]
    assert '<h2 id="napkin">' in page
    assert "Check your understanding" in page
    assert page.count("<details>") >= 7 and page.count("Show answer") >= 7


@pytest.mark.parametrize("name", SERVING)
def test_sourcing_chatter_lives_in_notes(html, name):
    assert 'class="footnotes"' in html[name]


@pytest.mark.parametrize(
    "name,example",
    [
        ("03-inference.md", "A chat service runs Llama-3-8B in bf16 on one H100"),
        ("04-precision.md", "Llama-3-70B needs"),
        ("05-interconnect.md", "served on two, four and eight H100s"),
    ],
)
def test_each_chapter_states_its_running_example(text, name, example):
    assert example in text[name]


@pytest.mark.parametrize("name", SERVING)
def test_no_formula_shows_a_tex_escape_the_renderer_did_not_understand(html, name):
    # `\text{\$ per request}` printed "\$ per request" in chapter 03's cost formula.
    maths = re.findall(r"<math\b.*?</math>", html[name], re.S)
    assert maths
    shown = [" ".join(re.sub(r"<[^>]+>", " ", m).split()) for m in maths]
    assert not [m for m in shown if "\\" in m], [m for m in shown if "\\" in m][:3]


def _answers(name: str) -> list[str]:
    body = split_front_matter((BOOK / name).read_text()).body
    exercises = body.split("## Check your understanding", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"<details>(.*?)</details>", exercises, re.S)


@pytest.mark.parametrize("name", SERVING)
def test_a_third_of_the_exercises_compute_several_live_figures(name):
    answers = _answers(name)
    computed = [a for a in answers if len(list(scan_live(a))) >= 3]
    assert len(computed) * 3 >= len(answers), f"{name}: {len(computed)} of {len(answers)}"


# ---------------------------------------------------------------- chapter 03


def test_3_1_input_and_output_tokens_are_priced_apart(text):
    t = text["03-inference.md"]
    assert "the KV cache, not the weights, sets the bill of a busy server" not in t
    price = physics.price("H100").dollars_per_hour
    batch = full_batch()
    # Ninth pass (bk-c): on the colocated server an output token is a 1/B share of the decode
    # pass alone and an input token a share of what the 697 prompt tokens add to it.
    prompts = 2000 * batch / 499
    alone, loaded = pass_by_kernel(batch, 2500), pass_by_kernel(batch, 2500, prompts)
    cents_in = 100 * price / 3600 * (loaded - alone) / prompts * 1e6
    cents_out = 100 * price / 3600 * alone / batch * 1e6
    # bk-c3 (item 6): times to three figures, so the printed ratio follows from them
    assert f"input {q((loaded - alone) / prompts, 's', 3)} {n(cents_in, 2)}" in t
    assert f"output {q(alone / batch, 's', 3)} {n(cents_out, 2)}" in t
    assert cents_out > 5 * cents_in
    # on prefill GPUs of their own (reference): a share of a compute-bound prefill
    per_input_token = 2 * matmul_params("llama-3-8b") / physics.accelerator("H100").peak("bf16")
    assert n(100 * price / 3600 * per_input_token * 1e6, 2) + " cents per million, and each" in t


def test_3_1_a_prompt_heavy_request_is_mostly_prefill(text):
    t = text["03-inference.md"]
    part = physics.accelerator("H100")
    batch = full_batch()
    # eighth review of 03-05 (H-4, ninth pass): attention's causal half counted, 14% more
    matmuls = 2 * matmul_params("llama-3-8b") * 8000 / part.peak("bf16")
    m = physics.model("llama-3-8b")
    attention = 2 * m.layers * m.n_heads * (128 + 128) * 8000 * 8000 / 2 / part.peak("bf16")
    assert attention / matmuls == pytest.approx(0.14, abs=0.005)
    assert f"causal half adds {pct(attention / matmuls, 2)} more FLOPs" in t
    prefill = matmuls + attention
    # rv-4 (L-2): the request's decode reads its own cache of 8,000 to 8,200 tokens each pass,
    # beside its share of the weights' read
    own_cache = (8000 + 8200) / 2 * kv_per_token("llama-3-8b", 2) / part.memory_bandwidth
    decode = 199 * (pass_by_kernel(batch, 0) / batch + own_cache)
    assert prefill / (prefill + decode) > 0.5
    assert q(prefill, "s", 2) + " in all" in t
    assert "so prefill is " + pct(prefill / (prefill + decode), 2) in t


def test_3_the_bill_is_forecast_from_measured_fractions_of_peak(text):
    """Issue 29, item 3 in the serving chapter: the floor-based bill turned into an estimate
    with the H100's best measured matmul rate and its STREAM read bandwidth."""
    t = text["03-inference.md"]
    assert "These are floors: divide by the" not in t
    m, part = physics.model("llama-3-8b"), physics.accelerator("H100")
    mamf = physics.measurement("h100-sxm/mamf-bf16").value
    stream = physics.measurement("h100-sxm/stream-dot").value
    price = physics.price("H100").dollars_per_hour
    batch = math.floor((serving_memory("H100") - weights("llama-3-8b", 2)) / (2500 * 131072))
    prefill = max(2 * matmul_params("llama-3-8b") * 2000 / mamf, weights("llama-3-8b", 2) / stream)
    read = decode_weights("llama-3-8b", 2) + batch * 2500 * kv_per_token("llama-3-8b", 2)
    decode = max(read / stream, 2 * m.params * batch / part.peak("bf16"))
    # Seventh pass (D03-9): the fractions are named once and the table carries the forecast.
    assert (
        f"({pct(mamf / part.peak('bf16'), 2)} of the matmul peak, "
        f"{pct(stream / part.memory_bandwidth, 2)} of the bandwidth" in t
    )
    cents_in = 100 * price / 3600 * prefill / 2000 * 1e6
    cents_out = 100 * price / 3600 * decode / batch * 1e6
    forecast = prefill + 499 * decode / batch
    floor = (
        2 * matmul_params("llama-3-8b") * 2000 / part.peak("bf16")
        + 499 * decode_step("llama-3-8b", "H100", batch, 2500) / batch
    )
    assert forecast > floor
    assert (
        f"on GPUs of their own {n(1e5 * price / 3600 * floor, 2)} "
        f"{n(1e5 * price / 3600 * forecast, 2)}" in t
    )
    # P03-8: the napkin prices the colocated server; input tokens are the disaggregated extra.
    assert cents_out > 0
    # Eighth review of 03-05 (H-1): the colocated pass is priced kernel by kernel, the matmuls'
    # bound (weights or arithmetic of the batch and the 697 prompt tokens) plus the caches' read.
    weight_time = decode_weights("llama-3-8b", 2) / part.memory_bandwidth
    caches = batch * 2500 * kv_per_token("llama-3-8b", 2) / part.memory_bandwidth
    tokens = batch + 2000 * batch / 499
    flops = 2 * decode_weights("llama-3-8b", 1) * tokens
    by_kernel = max(weight_time, flops / part.peak("bf16")) + caches
    cents_colocated = 100 * price / 3600 * by_kernel / batch * 1e6
    # ninth pass (bk-c): a thousand requests on the colocated server; since bk-c4 (pre-03c, 6)
    # the reference table's row, the napkin's one cost being per million output tokens
    assert f"in the decode passes {n(cents_colocated * 499 / 1e3, 2)} " in t
    assert cents_in > 0


def test_3_2_chunking_moves_the_cost_to_the_newcomers_first_token(text):
    t = text["03-inference.md"]
    assert "at almost no cost to the users already being served" not in t
    part = physics.accelerator("H100")
    batch = full_batch()  # the chapter's one operating point (eighth pass, F-7)
    read = decode_weights("llama-3-8b", 2) + batch * 2500 * 131072
    per_token = 2 * decode_weights("llama-3-8b", 1)  # FLOPs of one token's pass
    assert read > 0 and per_token > 0
    # Eighth review of 03-05 (H-1): chunks of the steady-state prompt load, each pass priced
    # kernel by kernel: the matmuls' max(weights, arithmetic), then the attention kernels' caches.
    chunk = 2000 * batch / 499
    total = 0.0
    for i in range(math.ceil(2000 / chunk)):
        piece = min(chunk, 2000 - chunk * i)
        weight_time = decode_weights("llama-3-8b", 2) / part.memory_bandwidth
        caches = (batch * 2500 + chunk * i) * 131072 / part.memory_bandwidth
        flops = 2 * decode_weights("llama-3-8b", 1) * (batch + piece)
        total += max(weight_time, flops / part.peak("bf16")) + caches
    assert "its first token arrives after " + q(total, "s", 2) in t
    # bk-c4 (pre-03c, 2): at a fixed load the chunk size cannot trade the average pass away;
    # it only decides how evenly the load's prompt tokens arrive
    assert "Chunking trades the newcomer's time to first token" not in t
    assert "the chunk size sets the exchange rate" not in t
    assert "the chunk size only decides how evenly they arrive" in t


def test_3_3_the_gain_over_llama_2_splits_into_gqa_and_weights(text):
    t = text["03-inference.md"]
    assert "which is the practical meaning of GQA: about" not in t
    gqa = kv_per_token("llama-2-7b", 2) / kv_per_token("llama-3-8b", 2)
    heavier = decode_weights("llama-3-8b", 2) / decode_weights("llama-2-7b", 2)
    assert gqa == 4
    assert heavier > 1  # the rest of the factor; the text names only the main part (D03-9)
    # ninth pass (bk-c): the crossing comparison left with the KV section's trim; the opening
    # names GQA's quarter, the reference table both caches
    # bk-c2 (fresh-eyes edit, item 10): the intro's GQA aside repeated the KV section and left
    # on purpose; the reference table gives both caches per token
    assert "so it caches a quarter as much per token as the first chapters' Llama-2-7B" not in t
    assert "Llama-2-7B 32 32 KV heads for 32 512 KiB" in t and "8 KV heads for 32 128 KiB" in t


def test_3_4_flashattention_saves_bytes_not_flops(text):
    t = text["03-inference.md"]
    assert "which is why long-context prefill uses fused attention kernels" not in t
    assert "It saves bytes and memory, not FLOPs" in t


def test_3_5_an_answer_takes_the_prefill_pass_and_one_fewer_decode_pass(text):
    t = text["03-inference.md"]
    assert "A 500-token answer needs 500 passes through the network" not in t
    assert "a 500-token answer takes the prompt pass plus 499 more passes" in t


def test_3_6_the_batch_of_64_reads_as_the_same_time_not_a_glitch(text):
    t = text["03-inference.md"]
    # A decode pass multiplies by the weights it reads: the embedding lookup does none (B03-1).
    decoded = physics.model("llama-3-8b").params - 128256 * 4096
    arithmetic = full_batch() * 2 * decoded / physics.accelerator("H100").peak("bf16")
    # ninth pass (bk-c): one number, the pass; the arithmetic is said to hide under it
    floor = decode_weights("llama-3-8b", 2) / physics.accelerator("H100").memory_bandwidth
    assert arithmetic < floor
    # bk-c2: the claim is the matmuls' from the start, no "with no context yet"
    assert "sequences take " + q(floor, "s") + ", the same as one's" in t
    assert "with no context yet" not in t


def test_3_7_no_claim_about_every_accelerator_ever_built(text):
    t = text["03-inference.md"]
    assert "every accelerator ever built" not in t
    # eighth review of 03-05 (H-5): the EPYC's ridge is a derived estimate (30-50 FLOP/byte by
    # clock); the side remark left the chapter in the ninth pass rather than carry a range
    assert "EPYC 9654" not in t


def test_3_8_floors_are_printed_to_two_figures(text):
    t = text["03-inference.md"]
    assert "15,900 tokens/s" not in t and "0.0559 dollars" not in t
    # ninth pass (bk-c): the napkin's throughput, the colocated pass's tokens per second
    batch = full_batch()
    rate = batch / pass_by_kernel(batch, 2500, 2000 * batch / 499)
    assert "throughput " + format_quantity(rate, "tokens/s", sig=2, round_whole=True) in t


def test_the_cache_sets_the_batch_at_the_serving_level(text):
    t = text["03-inference.md"]
    batch = full_batch()
    assert batch < physics.critical_batch_size("H100", "bf16")
    assert f"So memory admits {batch} conversations" in t
    crit = physics.critical_batch_size("H100", "bf16")
    assert f"So memory admits {batch} conversations, {pct(batch / crit, 2)} of the critical" in t
    assert "that leaves a serving budget of " + q(serving_memory("H100"), "B") in t  # bk-c3


def test_speculation_follows_the_acceptance_arithmetic_and_the_measurement(text):
    t = text["03-inference.md"]
    low = physics.published("mtp-acceptance-low").value
    high = physics.published("mtp-acceptance-high").value
    assert f"gives {n(1 + low)} to {n(1 + high)} tokens per pass" in t  # k = 1: E = 1 + a
    # The draft reads a layer, a 2d x d projection and the shared output head (review 03-E1).
    m = physics.model("llama-3-8b")
    # c is the draft's share of the weights a pass reads (sixth pass, B03-2)
    c = (physics.layer_params(m) + m.vocab_size * m.d_model + 2 * m.d_model**2) / (
        m.params - m.vocab_size * m.d_model
    )
    assert "one user gets " + n((1 + low) / (c + 1)) + "×" in t
    # bk-c2 (fresh-eyes edit, A): the condition is the verification's extra arithmetic
    assert "Speculation pays while the verification's extra arithmetic is small next to" in t


def test_prefix_caching_and_disaggregation_are_priced(text):
    t = text["03-inference.md"]
    peak = physics.accelerator("H100").peak("bf16")
    params = matmul_params("llama-3-8b")  # prefill multiplies what a decode pass multiplies
    assert q(2 * params * 500 / peak, "s", 2) + " instead of" in t
    prefill = 2 * params * 2000 / peak
    batch = full_batch()  # one operating point (eighth pass, F-7)
    decode = 499 * decode_step("llama-3-8b", "H100", batch, 2500) / batch
    assert "its answer takes " + q(decode, "s", 2) + " of a decode GPU" in t
    assert "about one prefill GPU for every " + n(decode / prefill, 1) + " decode GPUs" in t
    hits = physics.published("deepseek-cached-input-tokens").value
    assert pct(hits / physics.published("deepseek-input-tokens").value, 3) in t


# ---------------------------------------------------------------- chapter 04


def test_4_1_gptq_is_symmetric_but_stores_zero_points(text):
    t = text["04-precision.md"]
    assert "GPTQ and AWQ checkpoints usually ship are asymmetric" not in t
    assert "quantizes symmetrically by default (the reference code needs --sym ), but its" in t
    assert n(4 + 20 / 128, 4) + " bits per weight" in t


def test_4_2_llm_int8_is_a_memory_method_not_a_speed_method(text):
    t = text["04-precision.md"]
    assert "Eight-bit weights have been regarded as essentially lossless ever since" not in t
    # pre-45c (bk-d4): said once in the main text, once in the reference's citation
    assert "keeps them in 16 bits and loses speed" in t
    assert "runs slower than fp16 in most measurements" in t


def test_4_3_quarot_configurations_are_named(text):
    t = text["04-precision.md"]
    assert "The abstract quoted in the authors' code repository" not in t
    # B04-6 (sixth pass): the configurations are rows of the accuracy table
    assert "QuaRot, g = 128 4 / 4, cache 4 Llama-2-70B 3.32 3.61 +0.29" in t
    assert "round to nearest 8 / 8, cache 8 Llama-2-70B 3.32 3.33 +0.01" in t


def test_4_4_the_t5_overflow_is_a_fine_tuning_report(text):
    t = text["04-precision.md"]
    assert "fine-tuning it in fp16 overflowed on an FFN output of 66,246" in t
    assert "issue #4586 reports the same model returning NaNs at inference" in t


def _decode_bytes(model_name: str, bits: float, keeps_tables: bool) -> float:
    m = physics.model(model_name)
    table = m.vocab_size * m.d_model
    if not keeps_tables:
        return (m.params - table) * bits / 8
    return (m.params - 2 * table) * bits / 8 + table * 2


def test_4_5_the_int4_gain_counts_scales_and_16_bit_tables(text):
    t = text["04-precision.md"]
    bits = 4 + 20 / 128
    gain_70b = _decode_bytes("llama-3-70b", 16, False) / _decode_bytes("llama-3-70b", bits, True)
    gain_8b = _decode_bytes("llama-3-8b", 16, False) / _decode_bytes("llama-3-8b", bits, True)
    assert gain_8b < gain_70b < 4
    assert "4-bit's floor is " + n(gain_70b, 2) + "× lower than bf16's, not the 4×" in t
    assert "gains only " + n(gain_8b, 2) + "×" in t


def test_4_6_fp8_was_standardised_by_ocp_and_amd_uses_fnuz(text):
    t = text["04-precision.md"]
    assert "standardised by NVIDIA, Arm and Intel and then by" not in t
    assert "standardised by the Open Compute Project as OFP8 in 2023" in t
    assert "its E4M3 tops out at 240" in t


def test_4_7_the_working_rule_leads_with_current_models(text):
    t = text["04-precision.md"]
    assert t.index("Kurtic et al. (2025)") < t.index("GPTQ (Frantar et al., 2022)")
    assert "Llama-3.1 at 8B, 70B and 405B" in t


def test_4_8_the_awq_caveats_moved_to_a_note(text):
    t = text["04-precision.md"]
    assert "Two patterns stand out, and the second needs care" not in t
    body, notes = t.split("Sources #", 1)[0], t
    assert "In relative terms the picture is mixed" in notes
    assert "In relative terms the picture is mixed" not in body


def test_block_formats_cost_what_their_blocks_say(text):
    t = text["04-precision.md"]
    assert "4.25" in t and "4.5" in t
    assert n((16 * 4 + 8) / 16) == "4.5"


def test_the_dollar_napkin_recomputes_from_raw_figures(text):
    t = text["04-precision.md"]
    m, part = physics.model("llama-3-70b"), physics.accelerator("B200")
    # NVFP4 for every weight but the two V x d tables, which stay in bf16 (G04-I1).
    tables = 2 * m.vocab_size * m.d_model
    checkpoint = (m.params - tables) * 4.5 / 8 + tables * 2
    per_sequence = 4096 * kv_per_token("llama-3-70b", 1)
    batch = math.floor((serving_memory("B200") - checkpoint) / per_sequence)
    read = checkpoint - m.vocab_size * m.d_model * 2 + batch * per_sequence
    pass_time = max(read / part.memory_bandwidth, 2 * m.params * batch / part.peak("fp4"))
    # The napkin forecasts: the B200 borrows the H200's STREAM fraction (Azure: 4.48 TB/s).
    forecast = pass_time / (4.48e12 / physics.accelerator("H200").memory_bandwidth)
    dollars = physics.price("B200").dollars_per_hour / 3600 / (batch / forecast) * 1e6
    assert f"holds the weights and {batch} conversations" in t
    # ninth pass (bk-d): the table's row, priced kernel by kernel (memory-bound matmuls here)
    assert 2 * m.params * batch / part.peak("fp4") < checkpoint / part.memory_bandwidth
    assert "NVFP4, fp8 cache, B200 1 " + str(batch) in t
    assert format_quantity(dollars, "USD") + " unproven" in t


def test_the_capacity_table_recomputes_from_usable_memory(text):
    t = text["04-precision.md"]
    per_seq = 4096 * kv_per_token("llama-3-70b", 2)
    spare = 2 * serving_memory("H100", gpus=2) - weights("llama-3-70b", 2)
    assert f"| 2 | {math.floor(spare / per_seq)} |" not in t  # rendered, not Markdown
    assert "bf16 16 141 GB 2 " + str(math.floor(spare / per_seq)) in t


# ---------------------------------------------------------------- chapter 05


def test_5_1_the_gradient_all_reduce_uses_every_nic_of_a_server(text):
    t = text["05-interconnect.md"]
    assert "Across eight servers, one GPU each" not in t
    shard = weights("llama-3-70b", 2) / 8
    eight = 2 * 7 / 8 * shard / 50e9
    m = physics.model("llama-3-70b")
    compute = 6 * m.params * 131072 / (8 * physics.accelerator("H100").peak("bf16"))
    assert "= " + q(eight, "s", 2) in t
    assert "queue on it: " + q(8 * eight, "s", 2) in t
    assert pct(eight / compute, 2) + " of that with eight NICs per server and " in t
    assert pct(8 * eight / compute, 2) + " with one" in t


def test_5_1_the_hierarchical_model_brackets_a_measured_all_reduce(text):
    t = text["05-interconnect.md"]
    size = 4 * 2**30
    inside = 2 * 7 / 8 * size / 900e9
    across = 2 * 3 / 4 * size / (8 * 50e9)
    measured = size * (2 * 31 / 32) / 377.34e9
    assert max(inside, across) < measured < inside + across
    assert "all-reduce took " + q(measured, "s") in t
    assert q(max(inside, across), "s") + ", if the phases overlap completely" in t


def test_5_2_deepseek_spreads_experts_over_infiniband(text):
    t = text["05-interconnect.md"]
    assert "the largest MoE deployments are built around keeping it there" not in t
    assert "the 2024 report's decode unit spans 40 servers: 256 GPUs hold one routed expert" in t
    assert "spreads the experts across servers over InfiniBand" in t


def test_5_2_deepseeks_experts_run_near_their_critical_batch(text):
    t = text["05-interconnect.md"]
    speed = (20 + 22) / 2
    per_unit = 18 * 14.8e3 / speed
    per_expert = per_unit * 8 / (256 + 32)
    # B05-3 (sixth pass): per expert slot, both micro-batches together, one token per pass
    # pre-45 (bk-d2): "tokens per expert", beside "conversations per GPU"
    assert "each expert then sees about " + n(per_expert, 2) + " tokens per pass" in t
    assert "each micro-batch carries half, " + n(per_expert / 2, 2) in t
    # D05-2 (seventh pass): DeepEP's 128-token time scaled to the service's 44 per micro-batch
    per_gpu = 14.8e3 / speed / 8
    bench = 58 * (192e-6 + 369e-6)
    assert "all-to-all, bandwidth-bound " + q(bench * per_gpu / 128, "s", 2) in t
    assert "all-to-all, latency-bound " + q(2 * bench, "s", 2) in t


def test_5_3_bus_bandwidth_above_the_link_rate_is_explained(text):
    t = text["05-interconnect.md"]
    assert "482.26 GB/s with NVLS" in t
    assert "it can exceed the link rate without any wire running faster" in t


def test_5_4_the_p2p_measurement_is_the_one_way_figure(text):
    t = text["05-interconnect.md"]
    assert "380 GB/s" not in t
    assert (
        "measures about 376 GB/s one way between H100s, so the copy takes about "
        + q(10e9 / 376e9, "s")
        in t
    )


def test_5_5_the_bubble_target_is_at_most_not_under(text):
    t = text["05-interconnect.md"]
    assert "Keeping it under 10 percent" not in t
    assert 3 / (27 + 3) == pytest.approx(0.1)
    assert "at or below 10 percent needs" in t and "which gives exactly 10%" in t


def test_5_6_the_collective_latency_has_a_model_and_a_measurement(text):
    t = text["05-interconnect.md"]
    measured = 32768 / 0.82e9
    alpha = (measured - 2 * 7 / 8 * 32768 / 450e9) / 14
    assert "α ≈ " + q(alpha, "s") in t
    m, part = physics.model("llama-3-70b"), physics.accelerator("H100")
    ring8 = m.params * 2 / 8 / part.memory_bandwidth + 160 * (
        14 * alpha + 2 * 7 / 8 * 16384 / 450e9
    )
    assert "| 8 | " not in t
    assert q(ring8, "s", 2) in t


def test_5_7_the_link_table_pairs_each_link_with_its_gpu(text):
    t = text["05-interconnect.md"]
    assert "The last column holds the H100's compute fixed" not in t
    # ninth pass (bk-d): the older rows (NVLink 2, PCIe Gen4, HDR) left the table
    a100 = physics.accelerator("A100")
    assert "A100 " + q(a100.peak("bf16") / 300e9, "FLOP/B") in t


def test_x1_fits_are_judged_at_the_serving_level(text):
    t = text["05-interconnect.md"]
    fits_one = weights("llama-3-70b", 2) <= serving_memory("H200")
    assert fits_one is False
    assert "so the bf16 weights need 2 GPUs" in t  # seventh review F-22: the count once


def test_x4_the_capacity_caveat_is_linked_not_repeated(html):
    for name in SERVING:
        assert "the capacity the device itself reports" not in html[name]
        assert 'href="/chapters/intro/' in html[name]

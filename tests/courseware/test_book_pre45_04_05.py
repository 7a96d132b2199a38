"""Chapters 04-05, the fresh-eyes edit (report pre-45, bk-d2).

Each test fails on the text at 441324c. Figures are recomputed from raw inputs (datasheet,
configs, the published measurements), not from the functions the chapters call.
"""

from __future__ import annotations

import re

import pytest

from courseware.book_bars import bandwidth_staircase_html, link_staircase_html
from tests.courseware.book_text import authored, chapter_texts, q

NVLINK = 450e9  # NVLink 4, per direction
ALPHA = 40e-6 / 14  # NCCL, 8 x H200, 32 KiB, blocking: 40 us over the ring's 14 steps
D = 8192  # Llama-3-70B's hidden size


@pytest.fixture(scope="module")
def texts():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


def _main(text: str) -> str:
    return text.split(" Key takeaways ")[0]


def _takeaways(text: str) -> str:
    return text.split(" Key takeaways ")[1].split("Check your understanding")[0]


# ---- chapter 05 ---------------------------------------------------------------------------------


def test_the_measured_pass_rules_out_a_serial_all_to_all(texts):
    t = texts["05-interconnect.md"]
    measured = 2 / (20 + 22)  # one token a request at 20-22 tokens/s
    serial = 2 * 58 * (192e-6 + 369e-6)  # both micro-batches pay DeepEP's full EP128 time
    assert serial > measured
    assert "what keeps the pass that short is overlap, one micro-batch computing" not in t
    # pre-45c (bk-d4): the box states the worst case's conclusion; the hook moves to a note
    assert "so they must overlap each other and the compute" in t
    assert "receive through a hook that occupies no SM" in t


def test_node_limited_forwarding_is_not_attributed_to_decode(texts):
    # pre-45b (bk-d3): the paragraph moved to the DeepSeek reference section
    moe = texts["05-interconnect.md"].split("Reference: DeepSeek-V3's deployment")[1]
    assert "node-limited routing sends each token" not in moe
    assert "Decode sends each token straight to its experts' GPUs over InfiniBand" in moe
    assert "prefill and training, whose transfers are large, send it to at most 4 servers" in moe


def test_the_wire_ridge_names_its_condition(texts):
    main = _main(texts["05-interconnect.md"])
    ring_bytes = 2 * 7 / 8  # per byte of buffer, 8 GPUs
    balance = 14 * ALPHA * NVLINK / ring_bytes  # buffer where latency = bandwidth
    tokens = balance / (D * 2)
    assert 550 < tokens < 650
    # pre-45c (bk-d4): the condition joins its sentence, before the figure
    assert "That holds only while the all-reduces are bandwidth-bound, which they are once" in main
    assert f"more than about {authored(tokens, 1)} tokens (prefill, large batches)" in main


def test_alpha_is_named_an_effective_latency_and_the_crossovers_are_a_note(texts):
    t = texts["05-interconnect.md"]
    main = _main(t)
    assert "an effective per-step latency fitted to one blocking call" in main
    assert (
        "KiB, in-switch reduction wins above that"
        not in main.split("Key takeaways")[0].split("The lines cross")[1].split("When start-up")[0]
    )
    assert "eats into the bandwidth" not in t


def test_one_value_for_flops_per_byte_sent(texts):
    t = texts["05-interconnect.md"]
    per_gpu_flops = 2 * 70_553_706_496 / 80 / 8  # 2P / (L n), the whole pass's weights
    sent = 2 * 2 * 7 / 8 * D * 2  # two ring all-reduces of one bf16 vector
    ratio = per_gpu_flops / sent
    assert f"{3 * D / 7:,.0f}" not in t  # the 12d^2 shortcut's 3,511
    assert f"our model does about {authored(ratio, 2)} FLOPs per byte it sends" in _main(t)


def test_one_value_for_the_latency_bound_size(texts):
    t = texts["05-interconnect.md"]
    mib = 14 * ALPHA * NVLINK / (2 * 7 / 8) / 2**20
    assert "about 10 MB" not in t
    # ninth review of 03-05 (J-9, bk-f): the crossover is the fitted model's, said so
    assert (
        f"In the α-β model fitted to one small blocking call, an 8-GPU ring is latency-bound "
        f"below {mib:.2g} MiB" in _takeaways(t)
    )


def test_the_napkin_prices_two_gpus_in_whole_dollars(texts):
    napkin = texts["05-interconnect.md"].split("The napkin: our model across GPUs")[1]
    assert not re.search(r"\$\d\d\.\d\d", napkin.split("Worked example")[0])
    assert re.search(r" 2 1 \S+ ms \S+ ms \$4\d 4 ", napkin)


def test_the_takeaways_claim_only_what_the_main_text_argues(texts):
    t = _takeaways(texts["05-interconnect.md"])
    assert "m + p" not in t
    assert "eight times faster" not in t
    assert "CUDA graph" not in t
    assert "node-limited" not in t


def test_the_staircase_starts_at_hbm_and_the_shared_figure_keeps_its_rungs(texts):
    t = texts["05-interconnect.md"]
    assert "registers: not published" not in t and "620-fold" not in t
    assert "From an H100's memory to its links" in t
    assert "within a factor of two" not in t  # three ratios became one sentence
    html = str(link_staircase_html())
    assert "registers" not in html and "L2" not in html and "HBM3" in html
    assert "registers: not published" in str(bandwidth_staircase_html())


def test_the_moe_section_says_what_scales(texts):
    t = texts["05-interconnect.md"]
    assert "hundred" not in t
    assert "the same trade, with all-to-alls instead of all-reduces, across servers" in t


def test_sentence_fixes(texts):
    t = texts["05-interconnect.md"]
    assert "the move buys" not in t
    assert "Counting at the serving level" not in t
    assert "Counting the memory a serving engine may use (vLLM's 90%, less its own" in t
    assert "a server's eight GPUs hold in all (raw memory" in t
    assert "88 conversations per GPU" in t and "each slot" not in t


def test_chapter_05_capacity_names_nccls_buffers_for_chapter_04s_link(texts):
    capacity = texts["05-interconnect.md"].split("Capacity: when one chip is not enough")[1]
    capacity = capacity.split("Splitting a model")[0]
    assert "what a GPU of a split model can use" in capacity
    # pre-45c (bk-d4): the buffers are the example's note, not an aside in it
    notes = texts["05-interconnect.md"].split("Less than one GPU's")[1]
    assert f"NCCL's buffers double what vLLM holds outside PyTorch, to {3.58:.3g} GiB" in notes
    # pre-45b (bk-d3): chapter 04 gives one round figure and sends the split case to chapter 05
    assert "less per GPU when the model is split ( chapter 05 )" in texts["04-precision.md"]


# ---- chapter 04 ---------------------------------------------------------------------------------


def test_smoothquant_typical_weights_lose_levels(texts):
    t = texts["04-precision.md"]
    factor_typical, factor_outlier = (1 / 0.25) ** 0.5, (64 / 0.25) ** 0.5
    weight_max = 0.25 * factor_outlier
    before, after = round(0.25 / (0.25 / 127)), round(0.25 * factor_typical / (weight_max / 127))
    assert (before, after) == (127, 16)
    assert "typical values keep" not in t
    # pre-45b (bk-d3): one sentence for both sides, each level count once
    assert f"typical activations and typical weights alike get {after} levels" in t
    assert f"the weights down from {before}" in t


def test_chapter_04_one_b200_time(texts):
    t = texts["04-precision.md"]
    example = t.split("Worked example: Llama-3-70B on one B200")[1].split("The napkin")[0]
    time = re.search(r"stays memory-bound: (\S+ ms), priced as the napkin prices it", example)
    assert time
    row = t.split("NVFP4, fp8 cache, B200 1 ")[1]
    assert row.split()[1] + " " + row.split()[2] == time.group(1)


def test_chapter_04_one_critical_batch_for_the_checkpoint(texts):
    t = texts["04-precision.md"]
    main = _main(t)
    formula = round(989.4e12 / 3.35e12 * 0.5 / 2)  # R_bf16 x 0.5 byte / 2
    assert formula == 74
    assert f"{formula} for 4-bit ones" not in main
    # pre-45c (bk-d4): one number in the text, the bare-weights formula folded into a clause
    assert f"The formula alone gives {formula} for bare 4-bit weights" not in t
    assert "critical batch of about 80 sequences, its scales and 16-bit output head counted" in t


def test_chapter_04_takeaways_and_caveats(texts):
    t = texts["04-precision.md"]
    assert "too small for its bf16 cache" not in t
    main = _main(t)
    accuracy = main.split("What accuracy it costs")[1].split("Eight-bit arithmetic")[0]
    assert "newer, longer-trained" not in accuracy
    # pre-45c (bk-d4): said once, where the study's models are compared with ours
    # ninth review of 03-05 (J-6, bk-f): the 3.1 models had about the same pretraining
    assert "about the same pretraining, so its losses should carry over" in main
    assert "longer-trained models lose more to quantization" not in main
    assert "longer-trained models also lose more accuracy to quantization" not in main
    assert "same shape and longer training" not in t
    assert "The introduction's units apply here too" not in t
    napkin = main.split("The napkin: what a million tokens costs")[1]
    assert "Reads run at the fraction" not in napkin.split("Configuration GPUs")[0]


def test_one_value_for_two_gpus_all_reduces_at_batch_one(texts):
    # Two GPUs hold one conversation; its 160 all-reduces of 16 KiB use vLLM's one-shot kernel
    # (8.8 us at TP 2, sglang PR #2904) in chapter 05's decode table, its napkin and chapter 04.
    all_reduces = 160 * 8.8e-6
    napkin = texts["05-interconnect.md"].split("The napkin: our model across GPUs")[1]
    assert re.search(rf" 2 1 {re.escape(q(all_reduces, 's', sig=2))} \S+ ms ", napkin)
    read = 70_553_706_496 - 128_256 * D + D  # a pass reads the head in full, one input row
    floor = 2 * read / 3.18e12  # bf16, at STREAM's bandwidth (pre-45c, bk-d4)
    assert "about 1.4 ms more" not in texts["04-precision.md"]
    decode = texts["05-interconnect.md"].split("Weights read at STREAM's rate")[1]
    assert f" 2 {q(floor / 2, 's', sig=2)} {q(floor / 2 + all_reduces, 's', sig=2)} " in decode


def test_the_link_staircase_axis_ends_at_10_tb_per_s():
    html = str(link_staircase_html())
    assert ">10 TB/s<" in html and ">100 TB/s<" not in html
    assert ">100 TB/s<" in str(bandwidth_staircase_html())

"""Chapters 04-05, the second fresh-eyes edit (report pre-45b, bk-d3).

Each test fails on the text at 477721e. Figures are recomputed from raw inputs (datasheet,
configs), not from the functions the chapters call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.courseware.book_text import chapter_texts

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"
H100_BF16, H100_FP8, H100_HBM = 989.4e12, 1978.9e12, 3.35e12  # dense peaks, bandwidth


@pytest.fixture(scope="module")
def texts():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


@pytest.fixture(scope="module")
def sources():
    return {name: (BOOK / name).read_text() for name in ("04-precision.md", "05-interconnect.md")}


def _main(text: str) -> str:
    return text.split(" Key takeaways ")[0]


# ---- section 3: wrong or misleading ------------------------------------------------------------


def test_a_tree_pays_two_log_n_steps_against_the_rings_two_n_minus_one(sources):
    md = sources["05-interconnect.md"]
    assert "A tree pays $\\log_2 n$ steps instead of $n$" not in md
    assert "trees cut the steps to $\\log_2 n$;" not in md
    assert "A tree pays $2 \\lceil \\log_2 n \\rceil$ steps instead of the ring's $2(n-1)$" in md
    assert "trees cut the steps from $2(n-1)$ to $2 \\lceil \\log_2 n \\rceil$" in md


def test_fp8_at_batch_256_is_memory_bound_so_its_peak_plays_no_part(texts):
    t = texts["04-precision.md"]
    # fp8 weights, one byte each: 2 FLOPs per weight per sequence, 2 x 256 per byte read
    assert 2 * 256 < H100_FP8 / H100_HBM  # below the fp8 ridge (about 591)
    assert "the fp8 pass, at twice the peak, takes" not in t
    assert "the fp8 pass, still under its doubled roof, reads its bytes in" in t


def test_int4_scales_to_seven(texts):
    t = texts["04-precision.md"]
    assert "−8 to 7" in t
    assert "(7 for int4)" in t.split("int4 are plain integers")[1].split("fp4")[0]


def test_the_napkin_says_why_fp8_on_two_is_the_row_to_deploy(texts):
    t = texts["04-precision.md"]
    assert "H100s, the row to deploy, a token every" not in t
    # pre-45c (bk-d4): the row to deploy is its own bullet, apart from latency
    assert (
        "The row to deploy is fp8 on two H100s: lossless, where the cheaper 4-bit row loses what "
        "int8 arithmetic does" in t
    )


def test_deepseeks_batch_is_the_printed_product_of_32_and_the_critical_batch(texts):
    t = texts["05-interconnect.md"]
    critical = round(H100_FP8 / H100_HBM / 2)  # R x 1 byte / 2
    assert critical == 295
    assert "tokens: 32 times the dense critical batch" not in t
    assert f"32 times the dense critical batch of {critical}: {32 * critical:,} tokens" in t


def test_the_llama_31_transfer_says_why_it_is_conservative(texts):
    t = texts["04-precision.md"]
    assert "ours with the same architecture and more training: in fp8" not in t
    # ninth review of 03-05 (J-6, bk-f): Llama-3.1 had about the same pretraining as Llama-3
    assert "ours with the same architecture and about the same pretraining, so its losses" in t


# ---- section 2: reference out of the main text, one value per quantity, symbols -------------


def test_the_formats_section_keeps_one_job_per_format_and_moves_the_details(texts):
    t = texts["04-precision.md"]
    main = _main(t)
    formats = main.split("The formats one by one")[1].split("Bytes per parameter")[0]
    for detail in ("S.1111.111", "tf32", "Open Compute Project", "FNUZ", "binades"):
        assert detail not in formats, detail
    assert "T5 is the documented case" in formats
    reference = t.split("Reference: format details")[1]
    assert "S.1111.111" in reference and "Open Compute Project" in reference


def test_deepseeks_decode_box_keeps_its_conclusion_and_the_table_moves(texts):
    t = texts["05-interconnect.md"]
    moe = _main(t).split("Serving large mixture-of-experts models")[1].split("The napkin")[0]
    assert "measured pass, if MTP drafts a second" not in moe
    assert "An fp8 dispatch halves the bytes" not in moe
    assert "the network, not HBM, sets the pass" in moe
    reference = t.split("Reference: DeepSeek-V3's deployment")[1]
    assert "measured pass, if MTP drafts a second" in reference
    assert "An fp8 dispatch halves the bytes" in reference


def test_chapter_04s_halving_box_leads_with_the_two_gpu_comparison(texts):
    t = texts["04-precision.md"]
    box = t.split("Llama-3-70B's floor, format by format")[1].split("The gain fades")[0]
    bf16_one_gpu = 2 * 70.55e9 / H100_HBM  # bf16 weights on one H100's bandwidth, about 42 ms
    assert f"{bf16_one_gpu * 1e3:.0f} ms in bf16" not in box
    assert "41 ms in bf16" not in box
    assert box.index("needs two H100s") < box.index("4-bit's floor is")


def test_chapter_05_collective_symbols_do_not_reuse_chapter_04s(sources):
    md = sources["05-interconnect.md"]
    collectives = md.split("## Collectives and their cost")[1].split("## When start-up")[0]
    assert "a buffer of $B$ bytes" not in collectives
    assert "a message of $M$ bytes" in collectives
    assert "\\frac{D}{W}" not in collectives and "$s$ steps" not in collectives
    assert "n_{\\text{steps}}" in collectives and "\\beta" in collectives


def test_chapter_04_makes_the_eight_bit_point_once(texts):
    t = texts["04-precision.md"]
    assert "attack the other roof" not in t
    assert "Halving the bytes per number usually doubles the tensor cores' peak" not in t
    assert "move both the slope and the roof" in t


# ---- section 3 of the report's list: examples, hedges, methods, transitions -------------------


def test_the_step_latency_box_ends_at_alpha_and_the_kernels_move_to_decode(texts):
    t = texts["05-interconnect.md"]
    assert "MiB: below that an all-reduce is latency-bound:" not in t
    decode = t.split("When start-up latency decides multi-GPU decode")[1].split("two, four or")[0]
    assert "Kernels written for small messages cut the start-up" in decode


def test_the_hedge_after_the_all_reduce_chart_is_a_note(texts):
    main = _main(texts["05-interconnect.md"])
    assert "though far less than NCCL's" not in main
    assert "no real collective reaches the model's floor" in main


def test_the_napkins_name_their_methods(texts):
    t = texts["05-interconnect.md"]
    napkin = _main(t).split("The napkin: our model across GPUs")[1]
    assert "each all-reduce is megabytes, so we price it in-switch" in napkin
    # pre-45c (bk-d4): the decode section now reads at STREAM's bandwidth too
    assert "at the bandwidth STREAM measures, as in the decode section" in napkin


def test_chapter_05_opens_on_why_bf16(texts):
    t = texts["05-interconnect.md"]
    assert "We follow the model the previous chapter shrank" not in t
    assert "We take the previous chapter's model back to bf16, the case that forces a split" in t


# ---- section 4: a picture for the wire's ridge ----------------------------------------------


def test_the_link_ridge_has_a_picture_of_each_link_against_the_layers_need(texts):
    d, kv, ffn, gpus = 8192, 1024, 28672, 8  # Llama-3-70B's widths, eight-way tensor parallel
    layer_flops = 2 * (2 * d * d + 2 * d * kv + 3 * d * ffn) / gpus  # per token, one GPU
    sent = 2 * 2 * (gpus - 1) / gpus * d * 2  # two ring all-reduces of a bf16 hidden vector
    need = H100_BF16 / (layer_flops / sent)
    assert 50e9 < 255e9 < need < 270e9 < 450e9  # between a network port and NVLink 4
    section = texts["05-interconnect.md"].split("When the wires become the bottleneck")[1]
    section = section.split("Serving large mixture-of-experts models")[0]
    assert "layer needs 260 GB/s" in section and "the 260 GB/s a tensor-parallel layer" in section
    # pre-45c (bk-d4): the ratio allows overlap; Megatron's schedule does not overlap
    assert (
        "A link whose bar passes it could hide the wire behind the compute if the schedule "
        "overlapped them (only NVLink 4 does); Megatron's does not." in section
    )

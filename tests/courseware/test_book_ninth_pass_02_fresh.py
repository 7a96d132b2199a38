"""Chapter 02, fresh-eyes edit (bk-b2): the pre-02 report (/work/reviews-out/pre-02.md, 7.5/10).

Its "wrong or misleading statements" first, then "what keeps it from 9". Each test fails on the
text of f2ba694, the restructured chapter the report read.
"""

from __future__ import annotations

import html

import pytest

from content import physics
from courseware.book_rooflines import block_roofline_html
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, chapter_text, q


def _source() -> str:
    return (BOOK / "02-roofline.md").read_text()


def _html() -> str:
    return render_chapter_text(_source(), source="02-roofline.md").html


def _text() -> str:
    return chapter_text("02-roofline.md")


def _main() -> str:
    return _text().split("Key takeaways", 1)[0]


def _section(start: str, end: str) -> str:
    return _main().split(start, 1)[1].split(end, 1)[0]


# ---- Wrong or misleading statements -------------------------------------------------------------


def test_the_l2_line_measured_on_an_h200_is_explained_on_both_charts():
    # "L2 (H200): 10 TB/s" on the H100's roofline read as an error: each caption says why.
    # pre-02c (bk-b4): only the live chart draws the L2 slope now; its note says why.
    assert "measured on an H200, whose die is the H100's" in _text()
    caption = str(block_roofline_html()).split("<figcaption>", 1)[1].split("</figcaption>")[0]
    assert "L2" not in html.unescape(caption)


def test_the_reason_to_tile_is_one_sms_shared_memory_not_the_chips_total():
    # pre-02b (bk-b3): the mechanism is the reference section's "Tiles and waves".
    tiling = _text().split("Tiles and waves", 1)[1].split("One tile, and one wave", 1)[0]
    assert "do not fit on chip" not in tiling and "on-chip total" not in tiling
    smem = physics.accelerator("H100").shared_memory_per_sm_bytes
    assert smem == 228 * 1024
    assert "at most 228 KiB of shared memory" in tiling
    assert "even a product whose operands fit in L2 is cut into tiles" in tiling


def test_the_1024_product_is_capped_by_its_wave_and_the_rest_is_named():
    cap = physics.wave_efficiency(1024, 1024, "H100")
    measured = physics.matmul_efficiency("H100", "bf16", 1024, 1024, 1024)
    assert cap == pytest.approx(64 / 132) and measured < cap / 1.9
    # pre-02b (bk-b3): the 48% holds only for 128 x 128 tiles, and says so; wave quantization
    # is reference (the main text's compute-bound regime keeps two sentences on tiling).
    assert "caps it" not in _text()
    assert "with 128 × 128 tiles, its 64 output tiles fill 48% of the 132 SMs" in _text()
    assert "the launch take much of the rest" in _text()
    waves = _text().split("Waves also set how close", 1)[1].split("Predicting a measured", 1)[0]
    assert "With the same tiles a side of 1024 makes 64, which fill 48% of the SMs" in waves
    assert "libraries pick smaller tiles for small shapes" in waves
    assert "wave quantization" not in _main().lower()


def test_the_overhead_regime_says_which_launch_cost_it_means():
    overhead = _section("Overhead-bound: the small kernels", "Attention on the roofline")
    node = physics.measurement("launch/graph-node").value
    nbytes = (14 * 4096 + 3 * 11008) * 2
    assert node > 10 * nbytes / 3.35e12  # even in a graph the launch outweighs the bytes
    # pre-02b (bk-b3): one eager cost, the timeline's; the graph's per-kernel cost is what was
    # measured (wall time of a replay, on a consumer card), not the H100's GPU time.
    assert q(2.65e-6, "s") not in overhead
    assert f"and up to {q(20e-6, 's')} of CPU time eagerly" in overhead
    assert f"eager, {q(20e-6, 's')} per launch" in overhead  # the timeline draws the same
    assert "costs about 10× that inside a CUDA graph (measured on a consumer card)" in overhead
    assert "GPU's time" not in overhead and "only fusion" not in overhead


def test_the_window_row_no_longer_claims_what_grouped_query_attention_does():
    main = _main()
    assert "every modern design cuts the bytes per cached token" not in main
    assert "| sliding window | tokens kept | Mistral-7B" not in _source()
    variants = _html().split('id="attention-variants"', 1)[1].split('id="wave-reuse"', 1)[0]
    assert "cuts neither the bytes per cached token nor the intensity" in variants
    assert "cuts nothing at our 1,024 tokens" in variants
    # the fp8 row's 16 FLOP/byte is named as the product of two cuts
    assert physics.decode_attention_intensity("llama-3-70b", "fp8") == pytest.approx(16)
    assert "gains 8× from its grouping and 2× from fp8" in _text()


def test_llama_3_8b_at_its_memory_limit_has_compute_bound_projections_and_a_memory_bound_step():
    batch = physics.max_batch_for_memory("llama-3-8b", "H100", "bf16", 1024)
    params = physics.model("llama-3-8b").params
    # rv-3's K-16: the embedding lookup does no arithmetic (Llama-3-8B: 128,256 x 4,096 rows)
    arithmetic = 2 * (params - 128_256 * 4096) * batch / 989.4e12
    weights = 2 * params / 3.35e12
    assert arithmetic > weights
    text = _text()
    assert "past the ridge, yet memory-bound" not in text
    assert (
        f"its projections turn compute-bound at the datasheet peaks, with {q(arithmetic, 's')} of "
        f"arithmetic (the embedding lookup does none) against "
        f"{q(weights, 's')} of weight traffic" in text
    )


# ---- What keeps it from 9 ----------------------------------------------------------------------


def test_ridge_means_only_p_over_b():
    text = _text()
    assert "a ridge near" not in text
    # pre-02b (bk-b3): the ridge paragraph is two sentences, without editorial scaffolding.
    assert "in this book the word means only this ratio" not in _main()
    assert "The ridge belongs to the chip and the number format" in _main()
    assert "fp8 doubles the peak, not the bandwidth, so the ridge doubles to 591" in _main()
    assert "Memory stops the batch before the ridge does" not in text
    assert "about three hundred FLOPs" not in text


def test_prefill_attention_has_one_verdict_in_the_main_text():
    main = _main()
    assert "limited by its arithmetic" not in main
    assert "a shorter prompt is unlikely to do better" not in main
    # pre-02b (bk-b3): one verdict, the same in the text, the block's paragraph, the caption
    # and the takeaway: left of the datasheet ridge, compute-bound at achieved rates.
    assert "where both limits matter" not in _text()
    # pre-02c (bk-b4): said once in the text, once in the chart's caption.
    assert main.count("just left of the datasheet ridge") == 2
    assert "just left of the datasheet ridge but is\n" not in main


def test_the_block_table_has_one_time_column_and_the_phases_are_named():
    block = _html().split('id="one-block"', 1)[1].split('id="napkin"', 1)[0]
    header = block.split("<table")[-1].split("</thead>", 1)[0]  # the block's, after the chart's
    assert "phase" in header
    assert "floor" not in header and "at achieved rates" in header
    main = _main()
    assert "operating points" not in main
    assert "the block reads a 1,024-token prompt in about the time it writes 4 tokens" in main
    assert "without launches or correction" not in main


def test_the_napkin_gives_one_value_per_cell_and_its_error_once():
    napkin = _html().split('id="napkin"', 1)[1].split('id="key-takeaways"', 1)[0]
    table = napkin.split("<table", 1)[1].split("</table>", 1)[0]
    assert " to " not in table and "share of the serving budget" not in table
    # pre-02b (bk-b3): one error statement in the text, chapter 1's 20%; the batch range is
    # the note's.
    assert "ten percent" not in _main()
    assert _text().count("the forecast\nerrs on the slow side") <= 1
    # the batch check and the Llama-3-8B digression are notes
    assert "TensorRT-LLM" not in _main() and "Llama-3-8B" not in _main()


def test_the_overhead_regime_has_its_picture_on_this_page():
    overhead = _html().split('id="overhead-bound"', 1)[1].split('id="attention"', 1)[0]
    assert "overhead-timeline" in overhead
    assert "each lasting about its 580 ns node cost, not its bytes" in overhead
    memory = _section("Memory-bound: decode at batch one", "Compute-bound: prefill")
    assert "elementwise" not in memory  # one regime per kernel
    assert "These are points 1 and 2, on the slope" in memory


def test_what_moves_a_point_is_a_table_and_the_slope_stays_one():
    moving = _html().split("What moves an operating point", 1)[1].split('id="key-takeaways"')[0]
    assert "<table" in moving
    assert "lifts the slope" not in moving
    assert "raises the slanted line (its slope stays one)" in moving


def test_the_legend_is_the_charts_caption_and_attention_opens_on_its_bytes():
    main = _main()
    # pre-02c (bk-b4): the dashed roofs are explained in the live chart's note.
    assert "the dashed ones are the ordinary lanes and the L2 cache" in main
    assert "The lower dashed roof is the ordinary lanes" in _text()
    assert "Attention is where inference stops being one matrix-vector product" not in main
    assert "Attention is the one matrix work of the block whose bytes are not weights." in main


def test_the_takeaways_agree_with_the_text():
    takeaways = _text().split("Key takeaways", 1)[1].split("Check your understanding", 1)[0]
    assert "nine-tenths" not in takeaways and "softmax" not in takeaways.lower()
    assert "95% of the bandwidth" in takeaways
    assert "recipe" not in takeaways

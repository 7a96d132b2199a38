"""Chapter 02, third fresh-eyes edit (bk-b4): the pre-02c report (/work/reviews-out/pre-02c.md,
7.5/10).

Its wrong or misleading statements first, then the structure. Each test fails on the text of
792eccc, the chapter the report read.
"""

from __future__ import annotations

import html

from content import physics
from courseware.book_rooflines import block_chart, block_roofline_html
from courseware.book_timeline import block_timeline_html
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, authored, chapter_text, q


def _html() -> str:
    return render_chapter_text((BOOK / "02-roofline.md").read_text(), source="02-roofline.md").html


def _text() -> str:
    return chapter_text("02-roofline.md")


def _main() -> str:
    return _text().split("Key takeaways", 1)[0]


def _caption(figure: str) -> str:
    return html.unescape(figure.split("<figcaption>", 1)[1].split("</figcaption>", 1)[0])


# ---- Wrong or misleading statements -------------------------------------------------------------


def test_the_serving_budget_includes_the_weights():
    main = _main()
    budget = physics.usable_memory_bytes("H100")
    weights = physics.weights_bytes("llama-2-7b", "bf16")
    batch = physics.max_batch_for_memory("llama-2-7b", "H100", "bf16", 1024)
    per_sequence = physics.kv_cache_bytes("llama-2-7b", 1024, "bf16")
    assert weights + batch * per_sequence <= budget < weights + (batch + 1) * per_sequence
    assert "beside the weights, the" not in main
    assert (
        f"Of the {q(budget, 'B')} an H100 leaves for serving, the weights take {q(weights, 'B')}, "
        f"and the rest holds the 1,024-token caches of {batch} sequences" in main
    )


def test_point_3_is_memory_bound_on_the_chart_and_compute_bound_at_the_achieved_ridge():
    chart = block_chart()
    point = next(p for p in chart.points if p.label == "prefill 1,024: attention")
    assert point.intensity < chart.ridge and point.memory_bound
    assert point.flops < chart.peak  # on the slope: 858 TFLOP/s is the memory roof
    figure = str(block_roofline_html())
    row = figure.split("<table", 1)[1].split("3. prefill 1,024: attention", 1)[1]
    row = row.split("</tr>", 1)[0]
    # Ninth review (rv-1), I-14: the row and the caption give both readings, as the text does.
    assert '<td class="bound">memory (datasheet); compute (achieved)</td>' in row
    caption = _caption(figure)
    achieved_ridge = physics.measurement("h100-sxm/flash-attention-2").value / (
        physics.achievable_bandwidth("H100")
    )
    assert 95 < achieved_ridge < 110
    point_3 = caption.split("Point 3", 1)[1].split("Point 4", 1)[0]
    assert "just left of the datasheet ridge but right of the ridge at achieved rates" in point_3
    assert f"(about {authored(achieved_ridge, 2)} FLOP/byte), so compute-bound in practice" in (
        point_3
    )
    main = _main()
    assert f"STREAM's bandwidth the ridge is about {authored(achieved_ridge, 2)} FLOP/byte" in main
    assert main.count("compute-bound at achieved rates") == 0
    assert main.count("in practice prefill attention is compute-bound") == 1


def test_attention_is_the_one_matrix_work_whose_bytes_are_not_weights():
    main = _main()
    assert "Attention is the one part of the block whose bytes are not weights" not in main
    assert "Attention is the one matrix work of the block whose bytes are not weights" in main


def test_the_bytes_per_step_are_roughly_the_memory_in_use():
    main = _main()
    assert "so the bytes per step are also the memory in use" not in main
    assert "so the bytes per step are roughly the memory in use" in main


def test_the_napkins_note_names_the_consumer_card_and_the_prompt_comparison_its_basis():
    text = _text()
    note = text.split("The block's 133 µs at achieved rates", 1)[1][:400]
    assert "measured on a consumer card, not an H100" in note
    assert "without launches, the block reads a 1,024-token prompt" in _main()


# ---- One time for the block, definitions first --------------------------------------------------


def test_one_time_for_the_decode_block_after_the_floor():
    main = _main()
    assert "floor = 121 µs" in main
    per_block = physics.decode_forecast_time("llama-2-7b", "H100", "bf16", 1, 1024) / 32
    assert f"At batch one that is {q(per_block, 's')} per block." in main
    assert "133 µs" not in main and "140 µs" not in _caption(str(block_timeline_html()))


def test_achieved_rates_are_defined_before_the_regimes_use_them():
    main = _main()
    assert main.index("Floors and achieved rates") < main.index("Three regimes, one block")
    assert main.index("Priced at achieved rates") < main.index("Kernels do not reach the datasheet")


def test_tiling_is_a_pointer_and_the_overhead_paragraph_has_two_figures():
    main = _main()
    compute = main.split("Compute-bound: prefill", 1)[1].split("Overhead-bound", 1)[0]
    assert "735" not in compute and "64 FLOP/byte" not in compute
    overhead = main.split("Overhead-bound: the small kernels", 1)[1].split("One decoder block", 1)[
        0
    ]
    assert "4,096 or 11,008" not in overhead and "181 kB" not in overhead
    assert "54 ns at the datasheet bandwidth" in overhead
    assert "with whatever each still costs inside a graph" not in main


def test_the_block_table_has_four_columns_and_its_counts_are_reference():
    page = _html()
    one_block = page.split('id="one-block"', 1)[1].split('id="napkin"', 1)[0]
    assert one_block.split("<thead>", 1)[1].split("</thead>", 1)[0].count("<th") == 4
    counts = page.split('id="block-counts"', 1)[1].split('id="vector-addition"', 1)[0]
    assert "8.6 GFLOP" in counts and "33.6 MB" in counts
    assert "Three of the six rows land on the same spot, one FLOP per byte" in _main()


def test_the_block_chart_draws_only_hbm_and_the_tensor_cores():
    chart = block_chart()
    assert chart.ceilings == () and chart.slopes == ()
    assert "fp32 lanes" not in str(block_roofline_html())


def test_the_regimes_intro_names_each_point_as_the_legend_does():
    main = _main()
    assert "(points 3 and 4)" not in main
    assert "3, prefill's attention; 4, prefill's projections" in main


# ---- The ending, takeaways, terms ---------------------------------------------------------------


def test_the_ending_and_the_takeaways():
    main = _main()
    assert "So locate a kernel first" not in main and "Locate a kernel first." in main
    assert "launch less CUDA graphs, fusion" in main  # the third regime's row
    assert "An fp8 cache halves the bytes, and a window caps the tokens kept" in main
    takeaways = _text().split("Key takeaways", 1)[1].split("Check your understanding", 1)[0]
    assert "One SM's tile" not in takeaways
    assert "Prefill attention, with FlashAttention keeping" in takeaways


def test_terms_have_one_meaning():
    main = _main()
    assert "its speed is proportional" not in main and "its FLOP/s is proportional" in main
    assert "the step is the weights' bytes" not in main
    assert "their time is the weights' bytes over the bandwidth" in main
    assert "the charts draw each point on the roof, its best case" in main
    assert "This section adds one term, the forecast" in main
    assert "1024-token" not in _text()
    answers = _text().split("Check your understanding", 1)[1]
    assert (
        'copy, not the text\'s "dot", because these kernels write as much as they read' in answers
    )

"""Chapter 02, second fresh-eyes edit (bk-b3): the pre-02b report (/work/reviews-out/pre-02b.md,
7.5/10).

Its wrong or misleading statements first, then the structure and the phone layout. Each test
fails on the text of efc1382, the chapter the report read.
"""

from __future__ import annotations

import html
import re

from content import physics
from courseware.book_rooflines import block_chart, block_roofline_html, prefill_attention_ratio
from courseware.book_timeline import block_timeline_html
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, chapter_text, q


def _source() -> str:
    return (BOOK / "02-roofline.md").read_text()


def _html() -> str:
    return render_chapter_text(_source(), source="02-roofline.md").html


def _main() -> str:
    return chapter_text("02-roofline.md").split("Key takeaways", 1)[0]


def _caption(figure: str) -> str:
    return html.unescape(figure.split("<figcaption>", 1)[1].split("</figcaption>", 1)[0])


# ---- Wrong or misleading statements -------------------------------------------------------------


def test_the_48_percent_cap_is_stated_for_128_tiles_only():
    text = chapter_text("02-roofline.md")
    assert "fewer than there are SMs, which caps it" not in text
    assert "with 128 × 128 tiles, its 64 output tiles fill 48% of the 132 SMs" in text
    assert "libraries pick smaller tiles for small shapes" in text


def test_the_graph_node_cost_is_what_was_measured_and_where():
    main = _main()
    node = physics.measurement("launch/graph-node")
    assert node.value == 0.58e-6  # ocannl #488: a graph replay's wall time, on an RTX card
    assert "of the GPU's time per kernel" not in main
    # pre-02c (bk-b4): the node cost is the timeline caption's; the text gives its ratio to the
    # bytes' time, and the cure's sentence parses.
    assert f"lasting about its {q(node.value, 's')} node cost" in _caption(
        str(block_timeline_html())
    )
    assert "inside a CUDA graph (measured on a consumer card)" in main
    assert "only fusion removes the GPU's" not in main
    assert "a graph only makes each launch cheaper; fusion removes launches outright" in main


def test_prefill_attention_has_one_verdict_in_text_chart_table_and_caption():
    ratio = prefill_attention_ratio()
    assert 2.4 < ratio < 2.6
    main = _main()
    verdict = "just left of the datasheet ridge"
    assert "attention sits near the ridge" not in main and "both limits matter" not in main
    assert "FLOP/byte: **near the ridge" not in _source()
    # pre-02c (bk-b4): the chart, its table and its caption are the datasheet's (memory-bound,
    # on the slope); the text gives the achieved verdict once, with the achieved ridge. The
    # ratio is the note's.
    assert f"arithmetic takes {ratio:.1f}× as long as its traffic" in chapter_text("02-roofline.md")
    assert "so in practice it is" not in main
    # rv-3's K-17: the chart draws both readings; the text names the datasheet's one
    assert "just left of the datasheet ridge, so memory-bound at the datasheet peaks" in main
    assert "in practice prefill attention is compute-bound" in main
    chart = block_chart()
    attention = next(p for p in chart.points if p.label == "prefill 1,024: attention")
    assert attention.intensity < chart.ridge and attention.memory_bound
    figure = str(block_roofline_html())
    table = figure.split("<table", 1)[1]
    row = table.split("3. prefill 1,024: attention", 1)[1].split("</tr>", 1)[0]
    # Ninth review (rv-1), I-14: the table row gives both readings, as the text does.
    assert '<td class="bound">memory (datasheet); compute (achieved)</td>' in row
    caption = _caption(figure)
    assert verdict in caption and "compute-bound, so" not in caption
    assert "marked compute-bound" not in caption
    takeaways = chapter_text("02-roofline.md").split("Key takeaways", 1)[1]
    assert "enough at 1,024 tokens to be compute-bound at achieved rates" in takeaways


def test_one_error_statement_in_the_main_text():
    main = _main()
    assert "ten percent" not in main and "error bar" not in main
    error = physics.decode_recipe_error()
    assert f"raised by {round(100 * error)}%, chapter 1's measured correction" in main
    assert main.count(f"{round(100 * error)}%") == 1


def test_the_timelines_block_time_names_its_basis():
    # The graph row charges the block its share of the token's one launch (chapter 01, G-11):
    # 15 µs over 32 blocks, so the block ends at 140 µs (it was 155 µs with the whole launch).
    caption = _caption(str(block_timeline_html()))
    # pre-02c (bk-b4): no block time in the caption (the napkin's is the chapter's one).
    assert "140 µs" not in caption and "133 µs" not in caption
    assert "the block takes its bytes at the achieved bandwidth plus its launches" in caption
    assert "its share of the token's one 15 µs graph launch and 12 node costs" in caption
    assert "The graph's costs were measured on a consumer card" in caption
    assert "The launch costs were measured on a consumer card" not in caption


# ---- The regimes beside their pictures ----------------------------------------------------------


def test_the_block_chart_opens_the_regimes_and_each_regime_names_its_point():
    page = _html()
    regimes = page.split('id="regimes"', 1)[1].split('id="memory-bound"', 1)[0]
    assert "block-roofline" in regimes
    one_block = page.split('id="one-block"', 1)[1].split('id="napkin"', 1)[0]
    assert "block-roofline" not in one_block
    main = _main()
    assert "pipe" not in main and "factory" not in main
    points = ("points 1 and 2, on the slope", "point 4, under the flat roof", "point 3, just left")
    for phrase in points:
        assert phrase in main, phrase


def test_one_launch_cost_in_the_overhead_section_and_the_napkin_joins_the_step_times():
    main = _main()
    overhead = main.split("Overhead-bound: the small kernels", 1)[1].split("Attention on", 1)[0]
    assert q(2.65e-6, "s") not in overhead
    assert f"up to {q(20e-6, 's')} of CPU time eagerly" in overhead
    assert f"eager, {q(20e-6, 's')} per launch" in overhead  # the timeline draws the same cost
    assert "floor = 121 µs" in main and "t = 121 µs" not in main
    napkin = main.split("The napkin: a token at three", 1)[1]
    per_block = physics.decode_forecast_time("llama-2-7b", "H100", "bf16", 1, 1024) / 32
    # pre-02c (bk-b4): the per-block derivation is a note.
    assert f"At batch one that is {q(per_block, 's')} per block. [" in napkin
    assert "per block: the block's 133 µs" not in napkin


# ---- Structure and the smaller items ------------------------------------------------------------


def test_the_tiling_detour_is_two_sentences_and_waves_are_reference():
    main = _main()
    compute = main.split("Compute-bound: prefill", 1)[1].split("Overhead-bound", 1)[0]
    # pre-02c (bk-b4): one sentence, a pointer.
    tiling = compute.split("A real kernel gets there only through reuse on chip and in L2", 1)[1]
    assert len(re.findall(r"[.!?](?:\s|$)", tiling)) == 1
    assert "waves of" not in compute and "quantization" not in compute
    reference = _html().split('id="reference"', 1)[1]
    assert 'id="tiling"' in reference and 'id="wave-reuse"' in reference
    assert "wave quantization" in reference


def test_what_moves_a_point_comes_after_the_napkin_and_the_chapter_still_closes_on_its_ratio():
    main = _main()
    assert main.index("The napkin: a token at three") < main.index("What moves an operating")
    assert main.rstrip().endswith("where only the arithmetic is left to buy.")
    assert "narrower stored formats (fp8 weights or cache)" in main
    assert "smaller numbers" not in main


def test_symbols_terms_and_the_opening():
    source = _source()
    assert r"\div 2\ \text{B}" not in source and r"2\ \text{bytes} = b$ FLOP/byte" in source
    main = _main()
    assert (
        "the rate it actually achieves, is its operating point ; the charts draw each point on"
        in main
    )
    assert "but by the cost of launching them. This chapter shows all three" in main
    assert "in this book the word means only this ratio" not in main
    assert "The roofline's floor is no estimate here" not in main
    assert "Here the floor is far too low to be an estimate" in main
    assert "a little more once the activations' own bytes count" not in main.lower()
    prefill = main.split("**Prefill.**", 1)[-1] if "**Prefill.**" in main else main
    assert "tokens, 256 FLOP/byte: near" not in prefill  # the double colon is gone
    first_chart = _html().split('id="roofline"', 1)[1].split('id="ridge-point"', 1)[0]
    assert "whose die is the H100's" not in first_chart  # said once, in the block's caption


def test_the_phone_layout_folds_the_charts_table_and_leads_with_the_time():
    figure = str(block_roofline_html())
    assert '<details class="figure-data">' in figure
    assert figure.index("<details") < figure.index("<table") < figure.index("</details>")
    one_block = _html().split('id="one-block"', 1)[1].split('id="napkin"', 1)[0]
    header = re.sub(r"<[^>]+>", " ", one_block.split("<thead>", 1)[1].split("</thead>", 1)[0])
    assert header.split() == "phase part intensity time at achieved rates".split()

"""The ninth independent review of chapters 00-02 (rv-1, docs/reviews/book-00-02-ninth.md): each
finding's fix, checked on the rendered text against figures recomputed from published inputs."""

from __future__ import annotations

import re

from tests.courseware.book_text import chapter_text, main_text, q, section

INTRO = "00-intro.md"
GPUS = "01-gpus.md"
ROOFLINE = "02-roofline.md"

MiB = 2**20
GiB = 2**30
# Published inputs: nvidia-smi on a V100-SXM2-32GB (insightface's README), deviceQuery's total on
# an H100 SXM (thamada/nvidia-smi), vLLM's reserve for Llama-3-8B on one H100 (vllm#10511).
V100_SMI = 32510 * MiB
H100_RUNTIME = 85_045_477_376
RESERVE = (1.26 + 1.79) * GiB
NCCL = 1.79 * GiB


def test_i1_the_v100_row_shows_the_reported_capacity_and_its_budget():
    text = chapter_text(INTRO)
    row = section(text, "V100 32 GB 2018", "A100 80 GB")
    assert f"{q(32e9, 'B')} {q(V100_SMI, 'B')} {q(0.9 * V100_SMI - RESERVE, 'B')} ‡" in row
    assert q(V100_SMI, "B") == "34.1 GB" and q(0.9 * V100_SMI - RESERVE, "B") == "27.4 GB"
    assert "no reported capacity is published" not in text


def test_i6_the_gpu_table_states_the_v100s_reported_capacity():
    text = chapter_text(GPUS)
    assert "no reported figure is published" not in text
    start = text.index("power V100 80")
    row = text[start : text.index("A100 80 GB", start)]
    assert f"{q(V100_SMI, 'B')} 900 GB/s" in row and "†" not in row


def test_i2_the_serving_level_is_named_at_0_9_and_0_92_is_priced_once():
    text = chapter_text(INTRO)
    budget = q(0.9 * H100_RUNTIME - RESERVE, "B")
    # rv-3's K-4: 0.9 is named in the levels, not beside the budget in the main text
    assert f"{budget} of an H100 ( the levels say where" in text
    assert "long-standing default" in text.split("Reference: memory levels", 1)[1]
    assert "under vLLM's defaults" not in text and "budgets by default" not in text
    gain = q((0.92 - 0.9) * H100_RUNTIME, "B", sig=2)
    assert gain == "1.7 GB"
    assert f"0.92 in its newest releases, which adds {gain}" in text


def test_i3_the_nccl_reserve_has_one_figure():
    text = chapter_text(INTRO)
    assert f"each H100 keeps {q(NCCL, 'B', sig=2)} more for communication buffers (NCCL's" in text
    assert q(NCCL, "B", sig=2) == "1.9 GB"


def test_i4_the_floor_price_names_its_hourly_price_and_idle_time():
    text = main_text(chapter_text(INTRO))
    assert "an hour it idles raises the price of the rest" in text
    assert re.search(
        r"At \$3\.20 an hour, with one conversation in bf16, even the floor costs", text
    )


def test_i5_short_conversations_are_quantified():
    assert "short conversations, a hundred tokens or so, costs barely more" in chapter_text(INTRO)


def test_i14_the_block_figure_gives_prefill_attention_both_readings():
    from courseware.book_rooflines import block_chart, block_roofline_html

    chart = block_chart()
    point = next(p for p in chart.points if p.label == "prefill 1,024: attention")
    # At the datasheet peaks: left of the ridge (989.4 TFLOP/s over 3.35 TB/s), memory-bound.
    assert point.intensity < 989.4e12 / 3.35e12 and point.memory_bound
    # At achieved rates: FlashAttention-2's 327.9 TFLOP/s over STREAM dot's 3.18 TB/s.
    achieved_ridge = 327.9e12 / 3.18e12
    assert point.intensity > achieved_ridge
    figure = str(block_roofline_html())
    row = figure.split("<table", 1)[1].split("3. prefill 1,024: attention", 1)[1]
    assert (
        '<td class="bound">memory (datasheet); compute (achieved)</td>' in row.split("</tr>", 1)[0]
    )
    assert "so compute-bound in practice" in figure
    assert "in practice prefill attention is compute-bound" in main_text(chapter_text(ROOFLINE))


def test_i7_the_timeline_says_why_the_eager_token_is_not_32_blocks():
    from courseware.book_timeline import overhead_timeline_html, timeline

    eager_block = timeline()["rows"][0]["end"]
    # Llama-2-7B: 32 blocks of 12 kernels, plus the embedding, final norm and head: 388
    # launches at HTA's dear end of 20 µs.
    token = 388 * 20e-6
    assert 32 * eager_block > token
    caption = str(overhead_timeline_html())
    assert (
        "each block's last kernels overlap the next block's launches, so eager, the token takes "
        f"its 388 launches, {q(token, 's')}, less than 32 times this block" in caption
    )


def test_i8_the_core_count_covers_the_footnotes_288():
    text = chapter_text(GPUS)
    assert "up to about three hundred in a large server socket" in text
    assert "up to 288 efficiency cores" in text


def test_i9_the_ladder_gives_hbm_in_the_chapters_one_unit():
    text = chapter_text(GPUS)
    assert f"HBM3 {q(81559 * MiB, 'B')} 3.35 TB/s" in text
    assert "79.6 GiB" not in section(
        text, "The memory ladder of the H100, rung by rung", "Capacities"
    )


def test_i10_the_l2_ratio_is_like_for_like():
    text = chapter_text(GPUS)
    assert "Measured on the same card, its bandwidth is about three times HBM's" in text
    # RRZE: L2 10 TB/s over HBM 3.9 TB/s on the H200; 7 over 2.0 TB/s on the H100 PCIe.
    assert f"{10 / 3.9:.1f}× and {7 / 2.0:.1f}×" in text


def test_i11_the_offloading_batch_is_the_prompts_not_the_decode():
    text = chapter_text(GPUS)
    assert "which a million documents supply easily" not in text
    assert "A million documents' prompts supply that easily; in decoding the batch" in text
    assert "(FlexGen offloads it), so expect a fraction of the ideal" in text


def test_i13_the_check_names_its_borrowed_inputs_beside_the_napkin():
    napkin = section(chapter_text(GPUS), "The napkin: one token", "That is the chapter's argument")
    assert "a power-capped A100, with launch costs from a consumer card" in napkin


def test_i15_the_critical_batch_names_both_rates():
    text = main_text(chapter_text(ROOFLINE))
    # Achieved: cuBLASLt's best bf16 product over STREAM dot on the H100.
    from content.physics import achievable_flops

    achieved = achievable_flops("H100", "bf16") / 3.18e12
    assert 245 < achieved < 255
    assert (
        f"= {round(989.4e12 / 3.35e12)} on an H100 in bf16 at the datasheet peaks, about "
        f"{round(achieved, -1):.0f} at achieved rates" in text
    )


def test_i16_the_prefill_activation_count_states_its_convention():
    text = chapter_text(ROOFLINE)
    elements = 7 * 4096 + 3 * 11008  # 8 x 4096 + 3 x 11008 less the O projection's input
    assert (
        f"add {elements:,} elements per token (the output projection's input, attention's "
        "output, is counted with attention)" in text
    )


def test_i17_the_block_forecast_is_named_against_the_floor_and_the_table():
    text = main_text(chapter_text(ROOFLINE))
    per_block = 5.58e-3 / 32
    assert f"At batch one that is {q(per_block, 's')} per block." in text
    assert (
        "That forecast is the block's price from here on: the floor above is the datasheet's"
        in (text)
    )


def test_i12_i19_display_formulas_on_a_phone_show_that_they_scroll():
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "book.css").read_text()
    narrow = css.split("@media (max-width: 40rem) {\n  .math-display", 1)[1].split("\n}\n", 1)[0]
    assert "no-repeat local" in narrow and "no-repeat scroll" in narrow
    assert ".worked-example .math-display { --math-cover: #f3f7fd; }" in narrow


def test_i18_the_ridge_dot_leaves_a_point_beside_it_visible():
    from courseware.book_rooflines import block_roofline_html

    figure = str(block_roofline_html())
    ridge = figure.split('<g class="ridge"', 1)[1].split("</g>", 1)[0]
    assert 'r="3.5"' in ridge and 'r="5"' not in ridge

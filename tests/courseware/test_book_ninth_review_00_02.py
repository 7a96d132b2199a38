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
    assert f"{budget} of an H100 at vLLM's long-standing default of 0.9" in text
    assert "under vLLM's defaults" not in text and "budgets by default" not in text
    gain = q((0.92 - 0.9) * H100_RUNTIME, "B", sig=2)
    assert gain == "1.7 GB"
    assert f"0.92 in its newest releases, which adds {gain}" in text


def test_i3_the_nccl_reserve_has_one_figure():
    text = chapter_text(INTRO)
    assert f"each H100 keeps {q(NCCL, 'B', sig=2)} more for NCCL's buffers" in text
    assert q(NCCL, "B", sig=2) == "1.9 GB"


def test_i4_the_floor_price_names_its_hourly_price_and_idle_time():
    text = main_text(chapter_text(INTRO))
    assert "an hour it idles raises the price of the rest" in text
    assert re.search(r"At \$3\.20 an hour, with one conversation in bf16, no H100 server", text)


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
    assert "<td>memory (datasheet); compute (achieved)</td>" in row.split("</tr>", 1)[0]
    assert "so compute-bound in practice" in figure
    assert "in practice prefill attention is compute-bound" in main_text(chapter_text(ROOFLINE))

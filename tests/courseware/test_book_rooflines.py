"""The running example on each chapter's roofline (P00-11, P02-1, P04-7 of the fourth prose
review): each point computed from ``content.physics``, each figure in the section that reads it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from content.physics import (
    accelerator,
    attainable_flops,
    decode_attention_intensity,
    decode_weight_bytes,
    model,
    model_flops_per_token,
    ridge_point,
    weights_bytes,
)
from courseware.book_rooflines import (
    block_points,
    block_roofline_html,
    intro_points,
    intro_roofline_html,
    precision_chart,
    precision_roofline_html,
)
from courseware.rendering import render_chapter_text


def _render(name: str) -> str:
    return str(render_chapter_text(Path(f"content/book/{name}").read_text(), source=name).html)


def _section(html: str, start: str, end: str) -> str:
    return html.split(f'id="{start}"')[1].split(f'id="{end}"')[0]


def test_intro_points_are_the_token_and_a_large_matmul():
    points = {label: intensity for label, intensity, _ in intro_points()}
    token = points["one token of Llama-2-7B"]
    assert token == pytest.approx(
        model_flops_per_token("llama-2-7b") / weights_bytes("llama-2-7b", "bf16")
    )
    assert token < 2 < ridge_point("H100", "bf16")
    # 2n³ FLOPs over three n×n bf16 matrices: n/3 FLOP/byte, far past the ridge.
    assert points["4,096 × 4,096 matrix product"] == pytest.approx(4096 / 3)


def test_block_points_are_the_tables_intensities():
    points = {label: intensity for label, intensity, _ in block_points()}
    assert points["decode: projections at batch 1, attention at any batch"] == pytest.approx(1)
    assert decode_attention_intensity("llama-2-7b", "bf16") == pytest.approx(1, abs=0.05)
    assert points["decode, batch 64: projections"] == pytest.approx(64)
    assert points["prefill 1,024: projections"] == pytest.approx(1024)
    ridge = ridge_point("H100", "bf16")
    # A02-1 (fifth review): the point is the L2-served bound, and says so. C02-1 (sixth review):
    # Llama-2-7B is causal, 1,024 · 1,025 / 2 pairs of 4 · 128 FLOPs per head, over Q, K, V and O
    # read once (4 · 1,024 · 128 bf16 values per head): (N + 1) / 4 = 256.25, just under the ridge.
    prefill = points["prefill 1,024: attention"]
    assert prefill == pytest.approx(1025 / 4)
    assert prefill < ridge


def test_precision_chart_puts_4_bit_weights_on_the_bf16_roof_before_fp8_leaves_the_slope():
    chart = precision_chart()
    part = accelerator("H100")
    assert chart.peak == part.peak("fp8")
    assert chart.ceilings == (("bf16 roof", part.peak("bf16")),)
    by_label = {p.label: p for p in chart.points}
    flops = model_flops_per_token("llama-3-70b") - 2 * 128256 * 8192  # no matmul in the lookup
    int4 = by_label["4-bit GPTQ, batch 256"]
    fp8 = by_label["fp8, batch 256"]
    bf16 = by_label["bf16, batch 256"]
    assert int4.intensity == pytest.approx(
        256 * flops / decode_weight_bytes("llama-3-70b", "gptq-int4-g128")
    )
    # 4-bit weights multiply in bf16: at batch 256 they have reached the bf16 roof ...
    assert int4.flops == part.peak("bf16") and not int4.memory_bound
    # ... while fp8, twice the bytes under a roof twice as high, is still memory-bound ...
    assert fp8.memory_bound and fp8.flops < part.peak("fp8")
    assert fp8.flops == pytest.approx(attainable_flops(part, "fp8", fp8.intensity))
    # ... and so is bf16.
    assert bf16.memory_bound


def test_each_figure_names_its_sources_and_model():
    for html, name in (
        (str(block_roofline_html()), "Llama-2-7B"),
        (str(precision_roofline_html()), model("llama-3-70b").name),
    ):
        # one picture in two drawings, the wide one and the phone's, one shown (issue 29)
        assert html.count('role="img"') == 2
        assert html.count('class="chart-wide"') == html.count('class="chart-narrow"') == 1
        assert name in html
        assert "huggingface.co/meta-llama" in html  # the model's config, under the caption
        assert "nvidia.com" in html  # the H100's datasheet figures
    # Neither the block chart (pre-02c, bk-b4) nor the intro's (A00-4, fifth review) draws more
    # than the HBM slope and the bf16 roof, and neither cites the L2 measurement.
    block = str(block_roofline_html())
    assert "L2 (H200): " not in block and "gpu-benches" not in block and "fp32 lanes" not in block
    intro = str(intro_roofline_html())
    assert "L2 (H200): " not in intro and "gpu-benches" not in intro and "fp32 lanes" not in intro


def test_chapters_place_the_running_examples_roofline_where_they_explain_it():
    intro = _render("00-intro.md")
    ridge_section = _section(intro, "compute-outran-bandwidth", "floor")
    assert "intro-roofline" in ridge_section
    roofline = _render("02-roofline.md")
    # pre-02b (bk-b3): at the top of the regimes it pictures, before the first of them.
    assert "block-roofline" in _section(roofline, "regimes", "memory-bound")
    precision = _render("04-precision.md")
    # pre-45b (bk-d3): the picture follows the one paragraph that makes the point, and the
    # example where 4-bit and fp8 trade places reads the picture
    eight_bit = precision.split('id="eight-bit-arithmetic"')[1].split('id="block-scaling"')[0]
    assert "precision-roofline" in eight_bit
    assert eight_bit.index("critical batch stays") < eight_bit.index("precision-roofline")
    assert eight_bit.index("precision-roofline") < eight_bit.index("trade places")
    assert eight_bit.index("precision-roofline") < eight_bit.index("SmoothQuant</strong>")
    assert "Precision and the roofline" not in precision
    text = " ".join(re.sub(r"<[^>]+>", " ", precision).split())
    assert "The figure draws both cases for our model, at batch 1 and 256" in text

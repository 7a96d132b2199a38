"""Chapters 03 and 04's figures: the serving roofline and the bit layouts, computed from the
physics module and its catalogs, each readable without the picture."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from content.physics import (
    critical_batch_size,
    decode_weight_bytes,
    dtype,
    format_quantity,
    model_flops_per_token,
    ridge_point,
    weights_bytes,
)
from courseware.book_figures import (
    FORMATS,
    format_bits_html,
    format_rows,
    serving_points,
    serving_roofline_html,
)
from courseware.rendering import render_chapter_text


def _render(name: str) -> str:
    return str(render_chapter_text(Path(f"content/book/{name}").read_text(), source=name).html)


def test_serving_points_are_the_chapters_intensities():
    points = {label: intensity for label, intensity, _ in serving_points()}
    # Decode reads every weight but the input embedding table (one row of it per token).
    # ... and does no multiply-adds with the rest of it: FLOPs and bytes both leave it out.
    table = 128256 * 4096
    flops = model_flops_per_token("llama-3-8b") - 2 * table
    weights = decode_weight_bytes("llama-3-8b", "bf16")
    assert weights < weights_bytes("llama-3-8b", "bf16")
    assert flops / weights == pytest.approx(1)
    assert points["decode, batch 1"] == pytest.approx(flops / weights)
    # The chapter's one operating point (eighth pass, F-7): as many conversations at 2,500
    # tokens as vLLM's budget holds (recomputed from vLLM's log in test_book_serving_chapters).
    batch = 174
    assert "decode, batch 64" not in points
    assert points[f"decode matmuls, batch {batch}"] == pytest.approx(batch * flops / weights)
    # bk-c2 (fresh-eyes edit, item 5): the critical batch's matmuls sit on the ridge, which the
    # chart marks; their own point read "memory-bound" by a hair
    critical = int(critical_batch_size("H100", "bf16"))
    assert f"decode matmuls, batch {critical}" not in points
    # Ninth pass (bk-c; eighth review of 03-05, H-1): the caches are read by the attention
    # kernels, a point of their own: 2 · heads · (d_k + d_v) FLOPs per cached token and layer
    # over 2 · kv_heads · 128 · 2 bytes, 4 FLOP/byte whatever the batch; no averaged pass point.
    assert points["decode attention, any batch"] == pytest.approx(
        2 * 32 * (128 + 128) / (2 * 8 * 128 * 2)
    )
    assert not any("at 2,500 tokens" in label for label in points)
    assert points["prefill, 2,000 tokens"] > ridge_point("H100", "bf16")


def test_serving_roofline_draws_only_the_chapters_points():
    html = str(serving_roofline_html())
    # each point once in the wide drawing and once, numbered, in the phone's (issue 29)
    assert html.count('class="point ') == 2 * len(serving_points())
    assert "softmax" not in html  # the chart's own examples are off (the matmuls are ours)
    assert "prefill, 2,000 tokens" in html and "<figcaption>" in html
    assert f"ridge point {format_quantity(ridge_point('H100', 'bf16'), 'FLOP/B')}" in html


def test_each_format_row_has_one_cell_per_bit_in_sign_exponent_mantissa_order():
    for name, row in zip(FORMATS, format_rows(), strict=True):
        fmt = dtype(name)
        kinds = [c["kind"] for c in row["cells"]]
        assert len(kinds) == fmt.bits
        assert (
            kinds == ["sign"] + ["exponent"] * fmt.exponent_bits + ["mantissa"] * fmt.mantissa_bits
        )


def test_bit_layouts_print_the_exact_largest_values_a_reader_can_check():
    html = str(format_bits_html())
    assert 'role="img"' in html and "<desc" in html
    for value in ("65,504", "448", "57,344"):
        assert f">{value}</text>" in html
    assert "1 mantissa bit;" in html and "1 mantissa bits" not in html
    # one cell per bit in each of the two drawings, the wide one and the phone's (issue 29)
    assert html.count("<rect") == 2 * sum(dtype(name).bits for name in FORMATS)


def test_chapters_place_their_figures_in_the_sections_that_explain_them():
    inference = _render("03-inference.md")
    # second fresh-eyes edit (bk-c3, item 3): the roofline with its attention point sits in the
    # KV-cache section, after the cache is defined, where the text names the two kernels
    batching = inference.split('id="kv-cache"')[1].split('id="continuous-batching"')[0]
    assert "serving-roofline" in batching
    text = " ".join(re.sub(r"<[^>]+>", " ", batching).split())
    # ninth pass (bk-c; eighth review of 03-05, H-1): the text reads the figure kernel by kernel,
    # the matmuls along the slope and attention at its own 4 FLOP/byte (2 x 32 x 256 / 4,096)
    assert "batching carries the matmuls right along the slope, while attention stays near" in text
    assert f"stays near {2 * 32 * 256 / (2 * 8 * 128 * 2):.0f} FLOP/byte at any batch" in text
    assert "pull it back from" not in text
    precision = _render("04-precision.md")
    built = precision.split("How a floating-point number is built")[1].split("The formats one")[0]
    assert "format-bits" in built


def _cited(html: str) -> list[tuple[str, str]]:
    """(url, title) of every link in the figure's "Sources:" line."""
    line = re.search(r'<p class="figure-sources">Sources: (.*?)</p>', html, re.S)
    assert line, "the figure names no sources"
    return re.findall(r'<a href="([^"]+)" rel="noopener">([^<]+)</a>', line.group(1))


def test_each_figure_names_the_catalog_sources_of_what_it_draws():
    from content.physics import accelerator, memory_hierarchy, model, source

    h100 = accelerator("H100")
    serving = {url for url, _ in _cited(str(serving_roofline_html()))}
    assert source(h100.source_key("memory_bandwidth")).url in serving
    assert source(h100.source_key("peak_flops.bf16")).url in serving
    # bk-c2: no L2 slope drawn, so none of its measurements cited
    assert not {s.url for s in memory_hierarchy(h100)[2].citations()} & serving
    assert model("llama-3-8b").citations()[0].url in serving

    formats = _cited(str(format_bits_html()))
    wanted = {s.url for name in FORMATS for s in dtype(name).citations()}
    assert {url for url, _ in formats} == wanted
    assert len(formats) == len(wanted)  # each source once, however many formats it covers


def test_the_all_reduce_figure_cites_the_link_and_each_measurement():
    from content.physics import collective_measurements, link
    from courseware.allreduce_chart import allreduce_figure_html

    html = str(allreduce_figure_html())
    assert {s.url for s in link("nvlink4").citations()} <= {url for url, _ in _cited(html)}
    listed = re.search(r'<ul class="allreduce-measured">(.*?)</ul>', html, re.S).group(1)
    items = re.findall(r"<li>(.*?)</li>", listed, re.S)
    shown = [m for m in collective_measurements() if m.gpus == 8 and m.link == "nvlink4"]
    assert len(items) == len(shown) > 0
    for item, measured in zip(items, shown, strict=True):
        assert f'<a href="{measured.citations()[0].url}"' in item

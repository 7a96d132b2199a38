"""The book's bar figures (issue 29 item 9): chapter 03's weights and KV cache against usable
memory, chapter 05's bandwidth staircase.  Each is computed from the physics module's catalog
entries, carries its sources, and says the same numbers in its description and table."""

from __future__ import annotations

import math
import re

import pytest

import content.physics as physics
from content.physics import format_quantity
from courseware.book_bars import (
    bandwidth_staircase_html,
    kv_memory_html,
    kv_memory_rows,
    staircase_chart,
    staircase_rows,
)
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK

# vLLM's own log (vllm-project/vllm#10511): an activation peak of 1.26 GiB and 1.79 GiB of
# non-torch memory, set aside inside its 0.9 before the KV cache gets the rest.
ENGINE_BYTES = (1.26 + 1.79) * 2**30


H100 = physics.accelerator("H100")
BUDGET = 0.9 * H100.memory_runtime_bytes - ENGINE_BYTES  # vLLM's default budget, its reserve out
WEIGHTS = 2 * physics.model("llama-3-8b").params
CACHE = 2 * 32 * 8 * 128 * 2 * 2500  # bf16 cache of one 2,500-token conversation


def test_kv_memory_rows_stack_weights_and_cache_against_the_serving_budget():
    rows, budget = kv_memory_rows()
    assert budget == pytest.approx(BUDGET)
    largest = math.floor((BUDGET - WEIGHTS) / CACHE)
    assert [r["batch"] for r in rows if r["largest"]] == [largest]
    for r in rows:
        assert r["weights"] == pytest.approx(WEIGHTS)
        assert r["cache"] == pytest.approx(CACHE * r["batch"])
        assert r["fits"] == (r["batch"] <= largest)
    assert not rows[-1]["fits"]  # one bar shows what does not fit


def test_kv_memory_figure_is_accessible_and_sourced():
    html = str(kv_memory_html())
    assert re.search(
        r'<svg[^>]+role="img"[^>]+aria-labelledby="kv-memory-title kv-memory-desc"', html
    )
    assert '<title id="kv-memory-title">' in html and '<desc id="kv-memory-desc">' in html
    rows, _ = kv_memory_rows()
    # Every bar in the picture is a row of the table and a clause of the description.
    assert html.count('<rect class="weights"') == len(rows)
    assert html.count('<tr><th scope="row">') == len(rows)
    total = format_quantity(WEIGHTS + 64 * CACHE, "B", sig=3)
    assert f"batch 64: weights {format_quantity(WEIGHTS, 'B', sig=3)}" in html
    assert f"total {total}" in html
    assert 'class="cache over"' in html and "does not fit" in html
    assert f"serving budget {format_quantity(BUDGET, 'B', sig=3)}" in html
    # bk-c2 (fresh-eyes edit, item 10): vLLM's log filled a phone's screen under the caption;
    # the figure points to the chapter's list, which holds its sources (test_f10_...)
    assert 'href="#sources"' in html and "71.29 GiB" not in html


def test_the_staircase_draws_each_step_at_its_catalog_rate_on_a_log_axis():
    rows = {r["name"]: r["bandwidth"] for r in staircase_rows()}
    assert rows["registers"] is None  # not published: named, never drawn
    assert rows["HBM3"] == H100.memory_bandwidth
    assert rows["NVLink 4"] == 450e9 and rows["InfiniBand NDR"] == 50e9
    assert rows["PCIe Gen5 x16"] == pytest.approx(63e9, rel=0.01)
    drawn = [r for r in staircase_rows() if r["bandwidth"]]
    assert [r["bandwidth"] for r in drawn] == sorted((r["bandwidth"] for r in drawn), reverse=True)
    bars = [b for b in staircase_chart()["bars"] if b.segments]
    # Equal ratios are equal lengths: a decade is a quarter of the plot.
    (hbm,) = [b for b in bars if b.label.startswith("HBM3")]
    (nvlink,) = [b for b in bars if b.label == "NVLink 4"]
    width = hbm.segments[0].width - nvlink.segments[0].width
    assert width == pytest.approx(300 / 4 * math.log10(H100.memory_bandwidth / 450e9))


def test_the_staircase_figure_says_what_it_does_not_draw():
    html = str(bandwidth_staircase_html())
    assert "registers: not published" in html
    assert "The register file&#x27;s bandwidth is not published." in html
    assert html.count('<tr><th scope="row">') == len(staircase_rows())
    assert "Sources:" in html


@pytest.mark.parametrize(
    "chapter, marker",
    [("03-inference.md", "kv-memory-title"), ("05-interconnect.md", "link-staircase-title")],
)
def test_the_chapters_show_the_figures(chapter, marker):
    html = str(render_chapter_text((BOOK / chapter).read_text(), source=chapter).html)
    assert marker in html

"""Chapter 05's all-reduce chart: every line and table cell is the physics module's α-β time,
the circles are the catalog's measurements, and the figure reads without the picture."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from content.physics import (
    allreduce_crossover_bytes,
    allreduce_time,
    collective_measurement,
    format_quantity,
    latency_bound_below,
    step_latency,
)
from courseware.allreduce_chart import (
    ALGORITHMS,
    SIZES,
    TABLE_SIZES,
    _spread,
    allreduce_chart,
    allreduce_figure_html,
    binary_size,
)
from courseware.rendering import render_chapter_text

ALPHA = step_latency("nccl-8xh200-32kib")


@pytest.fixture(scope="module")
def figure() -> str:
    return str(allreduce_figure_html())


def test_each_line_is_the_alpha_beta_time_of_its_algorithm():
    chart = allreduce_chart()
    assert chart.alpha == ALPHA
    assert [s.algorithm for s in chart.series] == list(ALGORITHMS)
    for series in chart.series:
        expected = [allreduce_time(b, 8, "nvlink4", series.algorithm, ALPHA) for b in SIZES]
        assert list(series.times) == expected
    assert chart.ring_latency_bound_below == latency_bound_below(8, "nvlink4", "ring", ALPHA)
    assert chart.one_shot_until == allreduce_crossover_bytes(
        8, "nvlink4", "one-shot", "in-switch", ALPHA
    )


def test_the_circles_are_the_single_server_measurements_on_nvlink_4():
    measured = {m.label for m in allreduce_chart().measured}
    assert collective_measurement("nccl-ring-8xh200-16gib").name in measured
    assert collective_measurement("trtllm-custom-8xh100-16kib").name in measured
    # NVLink 5 and the 32-GPU run over EFA are other wires: not on this chart.
    assert collective_measurement("nccl-8xb200-4gib").name not in measured
    assert collective_measurement("nccl-4x8xb200-4gib").name not in measured


def test_the_figure_is_an_accessible_svg_with_the_same_numbers_in_a_table(figure):
    assert 'role="img"' in figure and "<title" in figure and "<desc" in figure
    # each line and circle in the wide drawing and in the phone's (issue 29)
    assert figure.count("<polyline") == 2 * len(ALGORITHMS)
    assert figure.count("<circle") == 2 * len(allreduce_chart().measured)
    cells = re.findall(r'<td class="num">([^<]+)</td>', figure)
    expected = [
        format_quantity(allreduce_time(b, 8, "nvlink4", a, ALPHA), "s", sig=2)
        for b in TABLE_SIZES
        for a in ALGORITHMS
    ]
    assert cells == expected
    crossover = allreduce_crossover_bytes(8, "nvlink4", "one-shot", "in-switch", ALPHA)
    assert f"fastest up to {binary_size(crossover)}" in figure


def test_buffers_print_in_binary_units():
    assert binary_size(2**10) == "1 KiB"
    assert binary_size(16 * 2**10) == "16 KiB"
    assert binary_size(9.8 * 2**20) == "9.8 MiB"
    assert binary_size(208.4 * 2**10) == "208 KiB"
    assert binary_size(2**34) == "16 GiB"
    assert binary_size(100) == "100 B"


def test_line_labels_never_overlap_and_stay_inside_the_plot():
    # Ring and tree end 14% apart: a few pixels on a log axis, so their labels are spread.
    placed = _spread([100.0, 103.0, 104.0, 300.0], 30, 380)
    assert sorted(placed)[1] - sorted(placed)[0] >= 14
    assert sorted(placed)[2] - sorted(placed)[1] >= 14
    assert placed[3] == 300.0
    assert all(30 <= y <= 380 for y in _spread([375.0, 379.0, 380.0], 30, 380))


def test_chapter_05_shows_the_figure_in_its_collectives_section():
    text = Path("content/book/05-interconnect.md").read_text()
    html = str(render_chapter_text(text, source="05-interconnect.md").html)
    collectives = html.split('id="collectives"')[1].split('id="tp-decode"')[0]
    assert 'class="allreduce-figure"' in collectives
    # pre-45 (bk-d2): the model's crossovers are in a note, beside the figure's description
    crossover = allreduce_crossover_bytes(8, "nvlink4", "tree", "ring", ALPHA) / 2**20
    assert f"the tree beats the ring up to {crossover:.2g} MiB" in " ".join(
        re.sub(r"<[^>]+>", " ", html.split('id="collectives"')[1]).split()
    )

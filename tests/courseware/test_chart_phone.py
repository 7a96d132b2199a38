"""Charts on a phone and labels that never overlap (issue 29; the sixth reviews' C00-8, D03-10,
D04-7, D05-8): each book chart carries a narrow drawing beside its wide one, and a label that
finds no free place beside its mark moves further out with a leader line instead of overprinting
another."""

from __future__ import annotations

import re

from courseware.allreduce_chart import (
    ALGORITHMS,
    allreduce_chart,
    allreduce_figure_html,
    binary_size,
)
from courseware.book_anatomy import h100_anatomy_html
from courseware.book_figures import format_bits_html
from courseware.book_rooflines import precision_chart
from courseware.book_timeline import overhead_timeline_html
from courseware.chart_labels import label_box, overlaps
from courseware.charts import (
    _CHAR_WIDTH,
    _context,
    _place_labels,
    chart_figure_html,
    roofline,
)


def _svgs(html: str) -> list[str]:
    return re.findall(r"<svg .*?</svg>", html, re.S)


def _text_boxes(ctx: dict) -> list[tuple[str, tuple]]:
    """Every point's and lower ceiling's label as drawn, with its box."""
    boxes = [
        (m["label"], label_box(m["tx"], m["ty"], m["anchor"], len(m["label"]) * _CHAR_WIDTH))
        for m in ctx["marks"]
        if m.get("shown", True)
    ]
    boxes += [
        (c["label"], label_box(c["x"], c["y"], c["anchor"], len(c["label"]) * _CHAR_WIDTH))
        for c in ctx["ceilings"]
    ]
    return boxes


def test_a_label_with_no_free_place_beside_its_point_moves_out_with_a_leader_line():
    # Everything around the point is taken: before, the label fell back to its first choice,
    # on top of what was there.
    mark = {"label": "kernel", "x": 200.0, "y": 200.0, "memory_bound": True}
    wall = (100.0, 150.0, 250.0, 110.0)
    _place_labels([mark], (20, 20, 740, 400), [wall])
    box = label_box(mark["tx"], mark["ty"], mark["anchor"], len("kernel") * _CHAR_WIDTH)
    assert not overlaps(box, [wall]), box
    leader = mark["leader"]
    assert (leader["x1"], leader["y1"]) == (200.0, 200.0)
    # the leader ends on the label's edge
    x0, y0, w, h = box
    assert x0 <= leader["x2"] <= x0 + w and y0 <= leader["y2"] <= y0 + h


def test_a_label_is_left_to_the_table_when_the_whole_chart_is_taken():
    mark = {"label": "kernel", "x": 200.0, "y": 200.0, "memory_bound": False}
    _place_labels([mark], (20, 20, 740, 400), [(0.0, 0.0, 800.0, 500.0)])
    assert mark["shown"] is False


def test_d04_7_no_label_of_the_fp8_chart_overlaps_another_in_either_drawing():
    for narrow in (False, True):
        size = {"width": 360, "height": 330, "numbered": True} if narrow else {}
        ctx = _context(precision_chart(), None, **size)
        boxes = _text_boxes(ctx)
        for i, (label, box) in enumerate(boxes):
            others = [b for _, b in boxes[:i] + boxes[i + 1 :]]
            assert not overlaps(box, others), (narrow, label)


def test_d04_7_the_fp8_chart_marks_the_bf16_ridge():
    ctx = _context(precision_chart(), None)
    (ceiling,) = ctx["ceilings"]
    assert ceiling["label"] == "bf16 roof: 989 TFLOP/s, ridge 295"
    # the knee sits where the dashed roof starts, on the memory slope
    start_x, start_y = map(float, ceiling["points"].split()[0].split(","))
    assert ceiling["knee"] == {"x": start_x, "y": start_y}
    html = str(chart_figure_html(precision_chart()))
    assert 'class="secondary-ridge"' in html
    assert "It meets the memory slope at 295 FLOP/byte." in html


def test_a_book_roofline_has_a_wide_and_a_numbered_narrow_drawing_with_its_key():
    chart = roofline("h100-sxm", "bf16")
    html = str(chart_figure_html(chart))
    wide, narrow = _svgs(html)
    assert 'viewBox="0 0 760 460"' in wide and 'viewBox="0 0 360 330"' in narrow
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 4  # each drawing its own <title> and <desc>
    numbers = re.findall(r'<text [^>]*class="number">(\d+)</text>', narrow)
    assert sorted(map(int, numbers)) == list(range(1, len(chart.points) + 1))
    key = re.findall(r'<li><span class="number">(\d+)</span> ([^<]+)</li>', html)
    by_intensity = sorted(chart.points, key=lambda p: p.intensity)
    assert key == [(str(n), p.label) for n, p in enumerate(by_intensity, start=1)]
    assert '<div class="chart-wide">' in html and '<div class="chart-narrow">' in html
    # the table under the figure stays, once
    assert html.count("<table") == 1


def test_the_alpha_beta_chart_names_its_lines_in_a_key_in_the_narrow_drawing():
    html = str(allreduce_figure_html())
    wide, narrow = _svgs(html)
    assert 'viewBox="0 0 360 330"' in narrow
    for algorithm in ALGORITHMS:
        assert f">{algorithm}</text>" in wide and f">{algorithm}</text>" not in narrow
        assert f'<span class="key alg-{algorithm}"><span class="swatch"></span>{algorithm}' in html
    assert narrow.count("<polyline") == wide.count("<polyline") == len(ALGORITHMS)
    bound = binary_size(allreduce_chart().ring_latency_bound_below)
    assert ">ring latency-bound</text>" in narrow and f">below {bound}</text>" in narrow


def test_the_bit_layouts_fit_a_phone_in_their_narrow_drawing():
    html = str(format_bits_html())
    wide, narrow = _svgs(html)
    width = float(re.search(r'viewBox="0 0 (\S+) ', narrow).group(1))
    assert width <= 360
    assert narrow.count("<rect") == wide.count("<rect")
    assert ">65,504</text>" in narrow


def test_the_h100_anatomy_stacks_its_parts_in_a_phone_column():
    html = str(h100_anatomy_html())
    wide, narrow = _svgs(html)
    assert 'viewBox="0 0 360 ' in narrow
    # every SM and every band's figure in both drawings
    assert narrow.count('class="sm') == wide.count('class="sm')
    for text in ("L2 cache: 50 MiB", "shared by all SMs", "over 18 links", "PCIe to the host"):
        assert text in narrow, text
    # no text row runs past the column: the longest line, at about 6.5 units a character
    lines = re.findall(r'<text[^>]* x="([\d.]+)"[^>]*>([^<]+)</text>', narrow)
    assert max(float(x) + 6.5 * len(t) for x, t in lines) <= 354


def test_the_overhead_timeline_has_a_phone_drawing_whose_row_ends_keep_off_the_row_labels():
    html = str(overhead_timeline_html())
    wide, narrow = _svgs(html)
    assert 'viewBox="0 0 360 ' in narrow
    assert narrow.count("<rect") == wide.count("<rect")
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 4
    # each row's end label sits below its lanes, not on the row label's line
    rows = re.findall(r'<text class="row-label" x="8" y="([\d.]+)"', narrow)
    ends = re.findall(r'<text class="end-label" x="[\d.]+" y="([\d.]+)"', narrow)
    assert len(rows) == len(ends) == 2
    assert all(float(e) > float(r) + 60 for r, e in zip(rows, ends, strict=True))


def test_a_results_page_roofline_carries_a_phone_drawing_with_the_kernel_labelled_inline():
    from courseware.charts import roofline_pair_html

    html = str(
        roofline_pair_html(
            "h100-sxm", "bf16", [("your kernel", 12.5, None)], examples=False, title="Yours"
        )
    )
    wide, narrow = _svgs(html)
    assert 'viewBox="0 0 760 460"' in wide and 'viewBox="0 0 360 330"' in narrow
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 4
    label = re.search(
        r'<text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)">your kernel</text>', narrow
    )
    x, anchor = float(label.group(1)), label.group(2)
    width = len("your kernel") * _CHAR_WIDTH
    left = {"start": x, "end": x - width, "middle": x - width / 2}[anchor]
    assert left >= 0 and left + width <= 360

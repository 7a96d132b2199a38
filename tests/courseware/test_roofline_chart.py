"""The roofline chart: its numbers come from the physics module; page, fragment, bad input."""

from __future__ import annotations

import math
import re

import pytest
from django.urls import reverse

from content.physics import (
    accelerator,
    arithmetic_intensity,
    attainable_flops,
    format_quantity,
    matmul_bytes,
    matmul_flops,
    ridge_point,
)
from courseware.charts import example_kernels, roofline, roofline_svg

URL = "/roofline/"


def test_url_name_resolves_to_the_chart():
    assert reverse("courseware:roofline_chart") == URL


def test_example_kernels_are_computed_with_the_physics_functions():
    kernels = {label: (i, f) for label, i, f in example_kernels("H100", "bf16")}
    intensity = arithmetic_intensity(
        matmul_flops(4096, 4096, 4096), matmul_bytes(4096, 4096, 4096, "bf16")
    )
    assert kernels["matmul n=4096"] == (intensity, attainable_flops("H100", "bf16", intensity))
    assert kernels["vector add, fp32"][0] == pytest.approx(1 / 12)
    assert kernels["vector add, fp16"][0] == pytest.approx(1 / 6)
    assert any(label.startswith("decode GEMV") for label in kernels)
    assert any(label.startswith("softmax") for label in kernels)


def test_points_left_of_the_ridge_are_memory_bound():
    chart = roofline("H100", "bf16")
    assert chart.ridge == ridge_point("H100", "bf16")
    for point in chart.points:
        assert point.memory_bound == (point.intensity < chart.ridge)
    assert {p.memory_bound for p in chart.points} == {True, False}


def test_svg_is_accessible_and_labels_the_ridge_point():
    svg = str(roofline_svg("H100", "bf16"))
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    ridge = format_quantity(ridge_point("H100", "bf16"), "FLOP/B")
    assert f"ridge point {ridge}" in svg
    assert "matmul n=16384" in svg


def test_an_extra_point_without_examples_is_drawn_alone():
    svg = str(roofline_svg("A100", "bf16", points=[("your kernel", 12.5, None)], examples=False))
    assert "your kernel" in svg and "matmul" not in svg
    assert svg.count('class="point ') == 1
    assert "highlighted" in svg


def test_an_extra_point_needs_a_positive_intensity():
    with pytest.raises(ValueError, match="intensity"):
        roofline_svg("H100", "bf16", points=[("bad", 0, None)])


@pytest.mark.django_db
def test_plain_get_returns_the_page_with_chart_and_table(client):
    response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html and "<svg" in html and "<table" in html
    assert "H100" in html and '<option value="h100-sxm" selected>' in html


@pytest.mark.django_db
def test_htmx_request_returns_only_the_chart_fragment(client):
    response = client.get(
        URL, {"accelerator": "a100-sxm-80gb", "dtype": "bf16"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert "<html" not in html and "<form" not in html
    assert "<svg" in html and "<table" in html
    ridge = format_quantity(ridge_point("A100", "bf16"), "FLOP/B")
    assert ridge in html and accelerator("A100").name in html


@pytest.mark.django_db
def test_the_table_repeats_the_chart_numbers(client):
    html = client.get(URL, {"accelerator": "h100-sxm", "dtype": "fp8"}).content.decode()
    table = re.search(r"<table class=\"roofline-table\">.*?</table>", html, re.S).group(0)
    peak = format_quantity(accelerator("H100").peak("fp8"), "FLOP/s")
    assert peak in table
    assert format_quantity(ridge_point("H100", "fp8"), "FLOP/B") in table


@pytest.mark.django_db
def test_a_format_the_part_cannot_compute_in_is_a_form_error(client):
    response = client.get(URL, {"accelerator": "v100-sxm2", "dtype": "bf16"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "no published bf16 rate" in html and "<svg" not in html


@pytest.mark.django_db
def test_an_unknown_accelerator_is_a_form_error(client):
    response = client.get(URL, {"accelerator": "z9000", "dtype": "bf16"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Unknown accelerator" in response.content.decode()


def _label_boxes(acc, dt):
    from courseware.charts import _CHAR_WIDTH, _LABEL_HEIGHT, _context, roofline

    marks = _context(roofline(acc, dt), None)["marks"]
    boxes = []
    for m in marks:
        width = len(m["label"]) * _CHAR_WIDTH
        x0 = {"start": m["tx"], "end": m["tx"] - width, "middle": m["tx"] - width / 2}[m["anchor"]]
        boxes.append((m, (x0, m["ty"] - _LABEL_HEIGHT + 3, width, _LABEL_HEIGHT)))
    return boxes


def _distance(mark, box) -> float:
    x0, y0, w, h = box
    dx = max(x0 - mark["x"], 0, mark["x"] - (x0 + w))
    dy = max(y0 - mark["y"], 0, mark["y"] - (y0 + h))
    return (dx * dx + dy * dy) ** 0.5


@pytest.mark.parametrize(
    ("acc", "dt"),
    [("h100-sxm", "bf16"), ("a100-sxm-80gb", "bf16"), ("v100-sxm2", "fp16"), ("l4", "bf16")],
)
def test_matmul_labels_near_the_ridge_stay_apart_and_beside_their_points(acc, dt):
    boxes = _label_boxes(acc, dt)
    for i, (mark, (x, y, w, h)) in enumerate(boxes):
        if "n=" in mark["label"]:
            assert _distance(mark, (x, y, w, h)) <= 40, f"{mark['label']} strays from its point"
        for other, (ox, oy, ow, oh) in boxes[i + 1 :]:
            apart = x + w + 2 <= ox or ox + ow + 2 <= x or y + h + 1 <= oy or oy + oh + 1 <= y
            assert apart, f"{mark['label']} crowds {other['label']}"


@pytest.mark.django_db
def test_the_kernel_table_is_sorted_by_intensity(client):
    html = client.get(URL, {"accelerator": "a100-sxm-80gb", "dtype": "bf16"}).content.decode()
    labels = re.findall(r'<th scope="row">(.*?)</th>', html)
    expected = [p.label for p in sorted(roofline("A100", "bf16").points, key=lambda p: p.intensity)]
    assert labels == expected and labels.index("decode GEMV, Llama-2-7B") < labels.index(
        "softmax, bf16"
    )


def test_square_matmuls_are_labelled_as_one_series_on_the_chart():
    svg = roofline_svg("H100", "bf16")
    assert svg.count(">matmul n=") == 1 and ">n=1024<" in svg and ">n=16384<" in svg


def test_the_fp32_lanes_and_the_l2_cache_are_drawn_as_lighter_lines():
    # The review's 02-S3: elementwise kernels run under the lanes' lower ceiling, and a working
    # set that fits in L2 sees a steeper slope.
    chart = roofline("H100", "bf16")
    assert chart.ceilings == (("fp32 lanes", 67e12),)
    assert chart.slopes == (("L2 (H200)", 10e12),)  # F-6: measured on the H200
    svg = roofline_svg("H100", "bf16")
    assert 'class="secondary-roof"' in svg
    assert "fp32 lanes: 67 TFLOP/s" in svg and "L2 (H200): 10 TB/s" in svg
    assert "A lower ceiling marks the fp32 lanes at 67 TFLOP/s." in svg
    # In fp32 the lanes are the roof; a part without a measured L2 gets no slope.
    assert roofline("H100", "fp32").ceilings == ()
    assert roofline("A100", "bf16").slopes == ()


# -- a chart from given figures, on fixed axes (an answer kind's) --------------------------------


def test_a_chart_from_given_figures_on_fixed_axes_names_its_decades_for_a_script():
    from django.template import engines

    from courseware.charts import roofline_chart_html, roofline_of

    chart = roofline_of("Any GPU", "bf16", 1e15, 2e12, [("yours", 10.0, 2e13)])
    assert chart.ridge == 500 and not chart.points[0].example
    svg = roofline_chart_html(chart, x_range=(0.1, 1e5), y_range=(1e11, 1e16))
    assert 'data-decades="-1 5 11 16"' in svg and 'data-plot="92 28 736 402"' in svg
    assert "ridge point 500 FLOP/byte" in svg
    drawn = (
        engines["django"]
        .from_string("{% load charts %}{% roofline_chart figures points %}")
        .render({"figures": {"name": "Any GPU", "dtype": "bf16", "peak": 1e15, "bandwidth": 2e12}})
    )
    assert "<svg" in drawn and "ridge point 500" in drawn


def test_a_chart_without_values_leaves_the_ridge_point_and_the_ceilings_unlabelled():
    from courseware.charts import roofline_chart_html, roofline_of

    svg = roofline_chart_html(roofline_of("Any GPU", "bf16", 1e15, 2e12), values=False)
    assert "500" not in svg and "1 PFLOP/s peak" not in svg
    assert "peak (bf16)" in svg and ">ridge point<" in svg
    assert "2 TB/s" in svg  # the description keeps the figures a screen reader needs


def test_a_compact_chart_is_narrow_with_short_labels_and_the_book_chart_is_unchanged():
    # a question's chart on a 390 px phone (the new-templates review's B-S9)
    from courseware.charts import roofline_chart_html, roofline_of

    chart = roofline_of("H100 SXM 80 GB", "bf16", 989e12, 3.35e12, [("k", 1.0, 3.35e12)])
    compact = roofline_chart_html(chart, compact=True)
    assert 'viewBox="0 0 360 330"' in compact
    assert '10<tspan class="exponent" dy="-5">3</tspan>' in compact and ">1000<" not in compact
    assert ">3.35 TB/s<" in compact and "memory bandwidth" not in compact
    assert "989 TFLOP/s peak<" in compact and ">ridge 295<" in compact
    wide = roofline_chart_html(chart)
    assert 'viewBox="0 0 760 460"' in wide and ">1,000<" in wide and "exponent" not in wide
    assert "3.35 TB/s memory bandwidth" in wide and "ridge point 295 FLOP/byte" in wide


# -- the question figure of roofline-read-two-kernels (compact) ----------------------------------


def _question_charts():
    """The compact chart of each (accelerator, side) that ``roofline-read-two-kernels`` draws,
    through its figure drawer, as the attempt page draws it."""
    from pathlib import Path

    import content
    from courseware.charts import COMPACT_HEIGHT, COMPACT_WIDTH, _context, roofline_of
    from quizzes.engine import generate_variant, load_template_file
    from quizzes.engine.figures import draw_figure

    questions = Path(content.__file__).resolve().parent / "questions"
    t = load_template_file(
        questions / "roofline" / "roofline-read-two-kernels.yaml", root=questions.parent
    )
    charts = {}
    for seed in range(120):
        v = generate_variant(t, seed)
        key = (v.params["acc"].name, v.params["n"])
        if key in charts:
            continue
        d = draw_figure(t, v)
        chart = roofline_of(d.accelerator, d.dtype, d.peak, d.bandwidth, d.points)
        charts[key] = _context(
            chart,
            d.title,
            x_range=d.x_range,
            y_range=d.y_range,
            values=d.values,
            width=COMPACT_WIDTH,
            height=COMPACT_HEIGHT,
        )
    return charts


def _gap_to_line(box, line) -> float:
    """The least distance from ``box`` to the polyline ``line``, sampled every 0.2 units."""
    x0, y0, w, h = box
    least = math.inf
    for (ax, ay), (bx, by) in zip(line, line[1:]):
        steps = max(1, int(math.hypot(bx - ax, by - ay) / 0.2))
        for i in range(steps + 1):
            px, py = ax + (bx - ax) * i / steps, ay + (by - ay) * i / steps
            dx = max(x0 - px, 0, px - (x0 + w))
            dy = max(y0 - py, 0, py - (y0 + h))
            least = min(least, math.hypot(dx, dy))
    return least


def test_the_question_chart_labels_keep_off_the_roofline():
    # the third bank re-check's S3-5 leftover: at A100 n=1024 (seeds 20, 29, ...) the matmul's
    # label, centred under a point just right of the ridge, ran across the slope
    from courseware.charts import _CHAR_WIDTH, _LABEL_HEIGHT

    charts = _question_charts()
    assert len(charts) >= 15 and ("A100 SXM 80 GB", 1024) in charts
    for key, ctx in charts.items():
        line = [tuple(map(float, corner.split(","))) for corner in ctx["roof"].split()]
        plot = ctx["plot"]
        for m in ctx["marks"]:
            width = len(m["label"]) * _CHAR_WIDTH
            x0 = {"start": m["tx"], "end": m["tx"] - width, "middle": m["tx"] - width / 2}
            box = (x0[m["anchor"]], m["ty"] - _LABEL_HEIGHT + 3, width, _LABEL_HEIGHT)
            # half the roof's 2.5-unit stroke and a visible gap
            assert _gap_to_line(box, line) >= 2, (key, m["label"])
            assert plot["left"] <= box[0] and box[0] + width <= plot["right"], (key, m["label"])
            assert _distance(m, box) <= 40, (key, m["label"])

"""The roofline kind on the pages: the variant's chart and a box per coordinate (student page
and studio alike), the chart's script and style from the kind's folder, Check with partial
credit, an exam's read-back, "Your answer" and the key drawn on the chart."""

from __future__ import annotations

import math
import re
from pathlib import Path

from quizzes.engine.kinds.roofline_point.test_roofline_point import RIDGE

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


def test_the_page_draws_the_variants_chart_and_two_labelled_boxes(kind_site):
    taking = kind_site.homework(STARTER)
    html = taking.page()
    x, y = taking.answers["kernel"]
    assert '<svg class="roofline-svg"' in html and "data-decades=" in html
    assert "Arithmetic intensity (FLOP/byte)" in html and "Attainable performance (FLOP/s)" in html
    assert html.count('name="answer" data-coordinate=') == 2
    assert "kinds/roofline_point/roofline.js" in html and "<script>" not in html
    # The chart's axes and points do not depend on the answer: nothing of it is on the page
    # (a key on a decade, "1" or "100", is also an axis tick: that says nothing about a leak).
    svg = html.split("</svg>")[0].split("<svg", 1)[1]
    for value in (x, y):
        shown = f"{value:.3g}"  # 0.9996 is "1" at three figures: a decade's tick, not a leak
        if not math.log10(float(shown)).is_integer():
            assert shown not in svg


def test_a_check_grades_the_point_and_the_input_shows_it_on_the_chart(kind_site):
    taking = kind_site.homework(STARTER)
    x, y = taking.answers["kernel"]
    half = taking.check("kernel", [f"{x:.4g}", f"{y * 10:.4g}"])
    assert "The intensity is right; the FLOP/s are not" in half
    taking.check("kernel", [f"{x:.4g}", f"{y / 1e12:.4g} TFLOP/s"])
    assert [(s, score) for s, score, *_ in taking.responses()] == [
        ("incorrect", 0.5),
        ("correct", 1.0),
    ]
    html = taking.page()
    assert "your point" in html and f'value="{y / 1e12:.4g} TFLOP/s"' in html


def test_a_missing_coordinate_is_refused_and_stores_nothing(kind_site):
    taking = kind_site.homework(STARTER)
    assert "Give the attainable FLOP/s" in taking.check("kernel", ["52", ""])
    assert taking.responses() == []


def test_an_exam_reads_the_saved_point_back(kind_site):
    taking = kind_site.exam(STARTER, time_limit_minutes=30)
    x, y = taking.answers["kernel"]
    assert "Read as" in taking.save("kernel", [f"{x:.4g}", f"{y:.4g}"])
    assert "Cannot be read" in taking.save("kernel", [f"{x:.4g}", "fast"], sequence=2)
    taking.save("kernel", [f"{x:.4g}", f"{y:.4g}"], sequence=3)
    taking.submit()
    assert [(s, score) for s, score, *_ in taking.responses()] == [("correct", 1.0)]


def test_results_draw_your_point_and_the_right_point(kind_site):
    taking = kind_site.homework(STARTER)
    x, y = taking.answers["kernel"]
    taking.check("kernel", [f"{x * 2:.4g}", f"{y:.4g}"])
    taking.submit()
    html = taking.results()
    given = html.split("Your answer:", 1)[1].split("The correct answer is", 1)[0]
    key = html.split("The correct answer is", 1)[1]
    assert "<svg" in given and "your point" in given
    assert "<svg" in key and "the right point" in key
    ids = re.findall(r'<title id="([\w-]+)"', html)
    assert len(ids) == len(set(ids))


def test_a_reading_question_hides_the_value_it_asks_for(kind_site):
    taking = kind_site.homework(RIDGE)
    ridge, _ = taking.answers["r"]
    html = taking.page()
    chart = html.split("<svg", 1)[1].split("</svg>", 1)[0]
    # the text a student reads, not the coordinates (a gridline may sit at x="295.3")
    text = re.sub(r'="[^"]*"', "", chart)
    assert "ridge point" in chart and f"{ridge:.3g}" not in text and "data-ridge" not in chart
    assert (
        html.count('data-coordinate="intensity"') == 1
        and 'data-coordinate="performance"' not in html
    )
    assert "correct" in taking.check("r", f"{ridge:.3g}")


def test_the_studio_tries_a_point_with_the_students_own_chart_and_boxes(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(3)
    assert html.count('name="response_kernel"') == 2 and '<svg class="roofline-svg"' in html
    x, y = studio.answer(3, "kernel")
    tried = studio.preview(3, tried="kernel", kernel=[f"{x:.4g}", f"{y:.4g}"])
    assert "feedback correct" in tried and "the right point" in tried
    refused = studio.preview(3, tried="kernel", kernel=[f"{x:.4g}", ""])
    assert "feedback invalid" in refused

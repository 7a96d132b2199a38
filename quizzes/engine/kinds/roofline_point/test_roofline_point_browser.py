"""A roofline part in Chromium at desktop and phone width: placed by a click on the chart, and
by keyboard alone through the coordinate boxes; axe-core finds nothing serious."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_student_places_the_kernel_by_keyboard(kind_site, kind_browser, width):
    taking = kind_site.homework(STARTER)
    x, y = taking.answers["kernel"]
    kind_browser.width(width)
    kind_browser.open(taking)
    page = kind_browser.page
    assert kind_browser.axe() == []
    kind_browser.tab_to("input[data-coordinate=intensity]")
    page.keyboard.type(f"{x:.3g}")
    kind_browser.tab_to("input[data-coordinate=performance]")
    page.keyboard.type(f"{y / 1e12:.3g} TFLOP/s")
    page.keyboard.press("Enter")  # submits the part's form, as Check does
    page.locator(".feedback.correct").wait_for()
    kind_browser.shot(f"roofline-correct-{width}")
    assert kind_browser.axe() == []
    assert [s for s, *_ in taking.responses()] == ["correct"]


def test_on_a_phone_the_chart_fits_with_its_y_axis_in_view_and_readable(kind_site, kind_browser):
    # the new-templates review's B-S9: at 390 px the chart kept 544 px in a scroll box, its
    # right half (ridge, roof) off screen and, scrolled there, its y-axis labels
    taking = kind_site.homework(STARTER)
    kind_browser.width(390)
    kind_browser.open(taking)
    page = kind_browser.page
    scroll = page.locator(".roofline-input .chart-scroll").first
    svg = scroll.locator("svg.roofline-svg")
    box = svg.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    wide, room = scroll.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert wide <= room, f"the chart scrolls: {wide} px in {room} px"
    # every y-axis label is on screen, and a tick label is drawn at least 7 px tall
    ticks = svg.locator("text.tick")
    heights = []
    for i in range(ticks.count()):
        tick = ticks.nth(i).bounding_box()
        assert tick["x"] >= 0 and tick["x"] + tick["width"] <= 390, tick
        heights.append(tick["height"])
    assert min(heights) >= 7, heights
    kind_browser.shot("roofline-phone-390")
    # still usable: a click in the plot fills both boxes in
    svg.click(position={"x": box["width"] * 0.5, "y": box["height"] * 0.4})
    assert float(page.locator("input[data-coordinate=intensity]").input_value()) > 0
    assert float(page.locator("input[data-coordinate=performance]").input_value()) > 0


def test_a_click_on_the_chart_fills_the_coordinates_in(kind_site, kind_browser):
    taking = kind_site.homework(STARTER)
    kind_browser.open(taking)
    page = kind_browser.page
    svg = page.locator("svg.roofline-svg").first
    box = svg.bounding_box()
    # The middle of the plot: both boxes get positive numbers and the ring shows.
    svg.click(position={"x": box["width"] * 0.5, "y": box["height"] * 0.5})
    intensity = float(page.locator("input[data-coordinate=intensity]").input_value())
    performance = float(page.locator("input[data-coordinate=performance]").input_value())
    assert intensity > 0 and performance > 0
    assert page.locator("circle.placed").get_attribute("visibility") == "visible"
    kind_browser.shot("roofline-clicked")


def test_without_javascript_the_coordinates_post_as_a_plain_form(
    kind_site, kind_browser_without_js
):
    browser, page = kind_browser_without_js, kind_browser_without_js.page
    homework = kind_site.homework(STARTER)
    x, y = homework.answers["kernel"]
    browser.open(homework)
    page.locator("input[data-coordinate=intensity]").fill(f"{x:.4g}")
    page.locator("input[data-coordinate=performance]").fill(f"{y:.4g}")
    page.get_by_role("button", name="Check").click()
    page.locator(".feedback.correct").wait_for()
    browser.shot("roofline-nojs-homework-390")
    assert [s for s, *_ in homework.responses()] == ["correct"]
    page.context.clear_cookies()
    exam = kind_site.exam(STARTER, time_limit_minutes=30)
    x, y = exam.answers["kernel"]
    browser.open(exam)
    page.locator("input[data-coordinate=intensity]").fill(f"{x:.4g}")
    page.locator("input[data-coordinate=performance]").fill(f"{y:.4g}")
    page.get_by_role("button", name="Save answer").click()
    page.wait_for_load_state()
    assert "Read as" in page.locator(".part").first.inner_text()
    browser.shot("roofline-nojs-exam-390")
    exam.submit()
    assert [(s, score) for s, score, *_ in exam.responses()] == [("correct", 1.0)]

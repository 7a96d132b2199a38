"""The book in a real browser: chapter pages, the roofline chart and the napkin calculator."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from content.physics import (
    decode_tokens_per_second,
    format_quantity,
    ridge_point,
)
from tests.browser.conftest import log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def book():
    call_command("setup_demo", verbosity=0)
    call_command("sync_content", verbosity=0)


def _ridge_label(acc: str, dt: str) -> str:
    return f"ridge point {format_quantity(ridge_point(acc, dt), 'FLOP/B')}"


def test_changing_the_accelerator_redraws_the_roofline_and_moves_the_ridge(page, book):
    page.goto("/roofline/")
    ridge = page.locator(".chart-wide svg .ridge-label")
    assert ridge.text_content() == _ridge_label("H100", "bf16")
    ridge_x = page.locator(".chart-wide svg .ridge circle").get_attribute("cx")
    page.get_by_label("Accelerator").select_option("a100-sxm-80gb")
    expected = _ridge_label("A100", "bf16")
    page.wait_for_function(
        "text => document.querySelector('svg .ridge-label').textContent === text", arg=expected
    )
    assert page.locator(".chart-wide svg title").text_content().startswith("Roofline of the A100")
    assert page.locator(".chart-wide svg .ridge circle").get_attribute("cx") != ridge_x
    assert page.locator("h1").inner_text() == "Roofline chart"  # the page itself stayed
    screenshot(page, "roofline-a100")


def test_the_roofline_chapter_chart_is_interactive(page, book):
    page.goto("/chapters/roofline/")
    screenshot_top(page)
    widget = page.locator(".roofline-widget")
    widget.get_by_label("Data type").select_option("fp8")
    expected = _ridge_label("H100", "fp8")
    page.wait_for_function(
        "text => document.querySelector('.roofline-widget .ridge-label').textContent === text",
        arg=expected,
    )
    assert page.url.endswith("/chapters/roofline/")
    widget.scroll_into_view_if_needed()
    page.screenshot(path=_shot("chapter-roofline-chart"))
    page.locator("blockquote.worked-example").first.scroll_into_view_if_needed()
    page.screenshot(path=_shot("chapter-worked-example"))


def _shot(name: str) -> str:
    from tests.browser.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(exist_ok=True)
    return str(SCREENSHOTS / f"{name}.png")


def screenshot_top(page) -> None:
    page.screenshot(path=_shot("chapter-top"))


def test_a_student_marks_a_chapter_read_without_a_page_reload(page, book):
    log_in(page, "student1", "learn-hardware")
    page.goto("/chapters/gpus/")
    page.evaluate("window.__stayed = true")
    page.get_by_role("button", name="Mark as read").click()
    page.get_by_text("✓ Read").wait_for()
    assert page.evaluate("window.__stayed === true"), "htmx swapped the status in place"
    page.goto("/")
    assert "You have read 1 of" in page.locator(".progress-line").inner_text()


def test_the_calculator_updates_its_results_as_the_batch_changes(page, book):
    page.goto("/calculator/")
    tokens = page.locator("#result-tokens_per_second .figure-value")
    one = format_quantity(
        decode_tokens_per_second("llama-2-7b", "H100", "fp16", 1, 4096), "tokens/s"
    )
    assert tokens.inner_text() == one
    page.get_by_label("Batch size").fill("32")
    page.get_by_label("Batch size").press("Tab")
    expected = format_quantity(
        decode_tokens_per_second("llama-2-7b", "H100", "fp16", 32, 4096), "tokens/s"
    )
    page.wait_for_function(
        "text => document.querySelector('#result-tokens_per_second .figure-value')"
        ".textContent === text",
        arg=expected,
    )
    page.wait_for_load_state("networkidle")
    page.locator("#result-decode_step summary").click()
    assert page.locator("#result-decode_step .working math").first.is_visible()
    assert "Does not fit" not in page.locator(".fit").inner_text() or "needs at least 2" in (
        page.locator(".fit").inner_text()
    )
    screenshot(page, "calculator")


def test_the_calculator_shows_a_clear_message_for_a_bad_batch(page, book):
    page.goto("/calculator/")
    form = page.locator(".calculator-form")
    left = form.bounding_box()["x"]
    page.get_by_label("Batch size").fill("0")
    page.get_by_role("alert").wait_for()
    assert "Batch size" in page.get_by_role("alert").inner_text()
    assert form.bounding_box()["x"] == left, "an error must not move the page sideways"
    page.get_by_label("Batch size").fill("4")
    page.locator("#result-weights").wait_for()
    # The price placeholder follows the accelerator: the A100's catalog price, then none.
    price = page.get_by_label("Price per device-hour ($)")
    assert price.get_attribute("placeholder") == "3.20"
    page.get_by_label("Accelerator").select_option("a100-sxm-80gb")
    page.wait_for_function("() => document.querySelector('#id_price').placeholder === '2.79'")
    page.get_by_label("Accelerator").select_option("t4")
    page.wait_for_function("() => document.querySelector('#id_price').placeholder === ''")
    assert form.bounding_box()["x"] == left


def test_chapter_tables_fit_a_desktop_and_scroll_on_a_phone(browser, live_server, book):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    widths = (
        "() => [...document.querySelectorAll('.chapter-body .table-scroll')]"
        ".map(box => [box.scrollWidth, box.clientWidth])"
    )
    try:
        cut = []
        for slug in ("intro", "gpus", "roofline", "inference", "precision", "interconnect"):
            page.goto(f"/chapters/{slug}/")
            cut += [slug for inner, outer in page.evaluate(widths) if inner > outer + 1]
        assert len(cut) <= 1, f"tables cut off at 1280 px: {cut}"
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto("/chapters/roofline/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # The phone's drawing is shown, at a readable size (its labels at least 7 px on screen).
        assert not page.locator(".roofline-widget .chart-wide svg").is_visible()
        box = page.locator(".roofline-widget .chart-narrow svg").bounding_box()
        assert box["width"] * 11 / 360 >= 7
        page.locator(".roofline-widget").scroll_into_view_if_needed()
        page.screenshot(path=_shot("chapter-roofline-390"))
    finally:
        context.close()


def test_the_calculator_warns_about_a_long_context_and_a_borrowed_rate(page, book):
    page.goto(
        "/calculator/?model=llama-2-7b&weight_dtype=fp8&kv_dtype=fp8&accelerator=v100-sxm2"
        "&gpus=2&batch=4&context=8192&prompt=1024&price=2"
    )
    warnings = page.locator(".warnings li")
    assert warnings.count() == 2
    assert "4096" in warnings.nth(0).inner_text() and "fp16" in warnings.nth(1).inner_text()
    assert (
        "you chose within a serving engine's budget; 1 would do"
        in page.locator(".fit").inner_text()
    )
    screenshot(page, "calculator-warnings")


def test_chapter_one_memory_hierarchy_table_reads_in_binary_units(page, book):
    log_in(page, "student1", "learn-hardware")
    # Second fresh-eyes edit (bk-a3): the table is reference (#ladder-numbers), five columns a
    # row; on-chip sizes are binary, and since the ninth review (rv-1, I-9) HBM's is 85.5 GB, the
    # figure the chapter's GPU table gives.
    page.goto("/chapters/gpus/#ladder-numbers")
    table = page.locator("#ladder-numbers ~ .table-scroll table").first
    cells = table.locator("td").all_inner_texts()
    assert cells[1] == cells[6] == "256 KiB" and cells[11] == "50 MiB"
    assert cells[16] == "85.5 GB"
    table.scroll_into_view_if_needed()
    page.screenshot(path=_shot("chapter-1-hierarchy"))


CHAPTERS = ("intro", "gpus", "roofline", "inference", "precision", "interconnect")
# Each shown drawing: its box and its parent's, the smallest text's height, and whether its
# parent scrolls sideways; the hidden drawing of each pair has no box.
_DRAWINGS = """() => [...document.querySelectorAll('.chapter-body svg')]
  .filter(svg => svg.getBoundingClientRect().width > 0)
  .map(svg => {
    const box = svg.getBoundingClientRect(), parent = svg.parentElement;
    const texts = [...svg.querySelectorAll('text')].map(t => t.getBoundingClientRect())
      .filter(r => r.width > 0);
    return {
      name: svg.getAttribute('class'),
      left: box.left, right: box.right,
      parentRight: parent.getBoundingClientRect().right,
      scrolls: parent.scrollWidth > parent.clientWidth + 1,
      smallest: Math.min(...texts.map(r => r.height)),
      textRight: Math.max(...texts.map(r => r.right)),
    };
  })"""


@pytest.mark.parametrize("width", [390, 1280])
def test_no_chapter_chart_overflows_its_frame_or_shrinks_its_text(
    browser, live_server, book, width
):
    # Issue 29 (the sixth reviews' C00-8, D03-10, D05-8): at 390 px every chart used to render
    # about 610 px wide in a sideways scroll box, its labels off-screen.
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    try:
        for slug in CHAPTERS:
            page.goto(f"/chapters/{slug}/")
            scroll, viewport = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert scroll <= viewport, slug  # the page does not scroll sideways
            drawings = page.evaluate(_DRAWINGS)
            assert drawings, slug
            for d in drawings:
                assert not d["scrolls"], (slug, d)
                assert d["left"] >= 0 and d["right"] <= min(d["parentRight"], viewport) + 0.5
                assert d["textRight"] <= viewport, (slug, d)
                assert d["smallest"] >= 7, (slug, d)  # drawn text stays readable
    finally:
        context.close()

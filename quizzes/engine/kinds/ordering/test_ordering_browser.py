"""An ordering part answered by keyboard alone in Chromium, at desktop and phone width: Tab to
each position box, arrow keys to pick, Enter on Check; axe-core finds nothing serious."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_student_orders_the_items_by_keyboard(kind_site, kind_browser, width):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    kind_browser.width(width)
    kind_browser.open(taking)
    page = kind_browser.page
    assert kind_browser.axe() == []
    for position, item in enumerate(right, start=1):
        kind_browser.tab_to(f"select[id$='-{taking.name('paths', item)}']")
        for _ in range(position):
            page.keyboard.press("ArrowDown")
    kind_browser.tab_to(".answer-actions button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".feedback.correct").wait_for()
    kind_browser.shot(f"ordering-correct-{width}")
    assert kind_browser.axe() == []
    assert [s for s, *_ in taking.responses()] == ["correct"]


def test_without_javascript_the_boxes_post_as_a_plain_form(kind_site, kind_browser_without_js):
    browser, page = kind_browser_without_js, kind_browser_without_js.page
    homework = kind_site.homework(STARTER)
    browser.open(homework)
    for position, item in enumerate(homework.answers["paths"], start=1):
        name = homework.name("paths", item)
        page.locator(f"select[id$='-{name}']").select_option(f"{name}:{position}")
    page.get_by_role("button", name="Check").click()
    page.locator(".feedback.correct").wait_for()
    browser.shot("ordering-nojs-homework-390")
    assert [s for s, *_ in homework.responses()] == ["correct"]
    page.context.clear_cookies()
    exam = kind_site.exam(STARTER, time_limit_minutes=30)
    right = list(exam.answers["paths"])
    browser.open(exam)
    names = [exam.name("paths", item) for item in right]
    for position, name in enumerate(names, start=1):
        page.locator(f"select[id$='-{name}']").select_option(f"{name}:{position}")
    page.get_by_role("button", name="Save answer").click()
    page.wait_for_load_state()
    assert page.locator(f"select[id$='-{names[0]}']").input_value() == f"{names[0]}:1"
    browser.shot("ordering-nojs-exam-390")
    exam.submit()
    assert [(s, score) for s, score, *_ in exam.responses()] == [("correct", 1.0)]

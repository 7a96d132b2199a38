"""A matching part answered by keyboard alone in Chromium, at desktop and phone width."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_student_matches_the_items_by_keyboard(kind_site, kind_browser, width):
    taking = kind_site.homework(STARTER)
    right = dict(taking.answers["bound"])
    order = ["memory", "compute"]  # the categories' order in each box, after "Choose…"
    kind_browser.width(width)
    kind_browser.open(taking)
    page = kind_browser.page
    assert kind_browser.axe() == []
    for item, category in right.items():
        kind_browser.tab_to(f"select[id$='-{taking.name('bound', item)}']")
        for _ in range(order.index(category) + 1):
            page.keyboard.press("ArrowDown")
    kind_browser.tab_to(".answer-actions button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".feedback.correct").wait_for()
    kind_browser.shot(f"matching-correct-{width}")
    assert kind_browser.axe() == []
    assert [s for s, *_ in taking.responses()] == ["correct"]


def test_without_javascript_the_boxes_post_as_a_plain_form(kind_site, kind_browser_without_js):
    browser, page = kind_browser_without_js, kind_browser_without_js.page
    homework = kind_site.homework(STARTER)
    browser.open(homework)
    for item, category in dict(homework.answers["bound"]).items():
        name = homework.name("bound", item)
        page.locator(f"select[id$='-{name}']").select_option(f"{name}:{category}")
    page.get_by_role("button", name="Check").click()
    page.locator(".feedback.correct").wait_for()
    browser.shot("matching-nojs-homework-390")
    assert [s for s, *_ in homework.responses()] == ["correct"]
    page.context.clear_cookies()
    exam = kind_site.exam(STARTER, time_limit_minutes=30)
    right = dict(exam.answers["bound"])
    browser.open(exam)
    named = {exam.name("bound", item): c for item, c in right.items()}
    for name, category in named.items():
        page.locator(f"select[id$='-{name}']").select_option(f"{name}:{category}")
    page.get_by_role("button", name="Save answer").click()
    page.wait_for_load_state()
    name, category = next(iter(named.items()))
    assert page.locator(f"select[id$='-{name}']").input_value() == f"{name}:{category}"
    browser.shot("matching-nojs-exam-390")
    exam.submit()
    assert [(s, score) for s, score, *_ in exam.responses()] == [("correct", 1.0)]

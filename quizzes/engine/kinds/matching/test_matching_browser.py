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
        kind_browser.tab_to(f"select[id$='-{item}']")
        for _ in range(order.index(category) + 1):
            page.keyboard.press("ArrowDown")
    kind_browser.tab_to(".answer-actions button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".feedback.correct").wait_for()
    kind_browser.shot(f"matching-correct-{width}")
    assert kind_browser.axe() == []
    assert [s for s, *_ in taking.responses()] == ["correct"]

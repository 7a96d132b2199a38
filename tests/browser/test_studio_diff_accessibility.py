"""The studio's diff of two versions that differ is clean under axe-core at both widths (the
walkthrough's M10: a sign's label on a plain span, line numbers below contrast)."""

from __future__ import annotations

import pytest

from quizzes.services import authoring
from tests.quizzes.test_studio_views import make_template

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_diff_with_added_and_removed_lines_has_no_serious_violation(
    kind_browser, course, author, width
):
    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    text = template.draft_source.replace("rtol: 0.02", "rtol: 0.05")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    kind_browser.width(width)
    kind_browser.log_in(author)
    kind_browser.page.goto(f"/studio/templates/{template.slug}/diff/?a=1&b=draft")
    kind_browser.page.wait_for_load_state("networkidle")
    assert kind_browser.page.locator(".diff tr.add").count() == 1
    assert kind_browser.axe() == []

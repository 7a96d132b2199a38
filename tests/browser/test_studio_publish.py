"""Publishing in Chromium: the page answers at once with the gate's progress and a Cancel
button, polls while the task worker checks the draft, and shows the new version when it is
done; axe finds nothing serious on the progress page at either width."""

from __future__ import annotations

import pytest

from tests.quizzes.test_studio_views import make_template

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1280, 390])
def test_publish_shows_progress_then_the_new_version(
    kind_browser, course, author, database_tasks, task_worker, width
):
    template = make_template(course)
    page = kind_browser.page
    kind_browser.width(width)
    kind_browser.log_in(author)
    page.goto(f"/studio/templates/{template.slug}/")
    page.get_by_label("Note for this version").fill("first")
    page.get_by_role("button", name="Publish version 1").click()
    page.locator("#publish-progress").wait_for()
    assert "Waiting for the task worker" in page.locator("#publish-status").inner_text()
    assert page.get_by_role("button", name="Cancel publishing").is_visible()
    kind_browser.shot(f"publish-waiting-{width}")
    assert kind_browser.axe() == []
    task_worker()  # the worker takes the run; the page's next poll sees it done
    page.locator("#publish-status", has_text="Published version 1").wait_for()
    page.locator(".badge", has_text="current").wait_for()
    kind_browser.shot(f"publish-done-{width}")
    assert kind_browser.axe() == []

"""The worst payloads in Chromium: an author's template carries them in every text field, a
student takes it (htmx checks included), an instructor reads that student's history, and a
chapter holds them too. No dialog may fire, no request may leave the site, and every page
comes with its Content-Security-Policy."""

from __future__ import annotations

import pytest

from quizzes.models import Variant
from quizzes.services.questions import common_error_values, option_token
from tests.browser.conftest import log_in, screenshot
from tests.factories import (
    OFFERING,
    PASSWORD,
    ChapterFactory,
    CourseFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
    site_role,
)
from tests.security.hostile import hostile_chapter, hostile_source

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site():
    course = CourseFactory()
    chapter = ChapterFactory(part__course=course, slug="inference", title="Inference")
    ChapterFactory(part__course=course, slug="hostile-chapter", source=hostile_chapter())
    template = QuestionTemplateFactory(
        course=course, slug="hostile-payloads", title="Hostile", draft_source=hostile_source()
    )
    quiz = QuizFactory(
        course=course, slug="hostile", title="Hostile quiz", chapter=chapter, tries_per_variant=1
    )
    QuizItemFactory(quiz=quiz, template=template, position=1)
    people = {
        role: EnrollmentFactory(course=course, role=role, user__username=role).user
        for role in ("student", "instructor")
    }
    people["author"] = UserFactory(username="author")
    site_role(people["author"], "author")  # the bank is the site's authors'
    return quiz, people


class Watch:
    """Records dialogs, requests to anywhere but the live server, and each document's CSP."""

    def __init__(self, page, origin: str):
        self.dialogs: list[str] = []
        self.outside: list[str] = []
        self.missing_csp: list[str] = []
        self.origin = origin
        page.on("dialog", self._dialog)
        page.on("request", self._request)
        page.on("response", self._response)

    def _dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _request(self, request):
        if not request.url.startswith(self.origin + "/"):
            self.outside.append(request.url)

    def _response(self, response):
        kind = response.request.resource_type
        if kind in ("document", "fetch", "xhr") and response.url.startswith(self.origin):
            if "content-security-policy" not in response.headers:
                self.missing_csp.append(response.url)

    def assert_clean(self):
        assert self.dialogs == []
        assert self.outside == []
        assert self.missing_csp == []


def _visit(page, url):
    response = page.goto(url)
    page.wait_for_load_state("networkidle")
    assert response.ok, url
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    # Hovering and focusing would fire any handler that survived.
    page.mouse.move(300, 300)
    page.mouse.move(600, 500)
    return response


def test_hostile_template_taken_and_reviewed_fires_nothing(page, browser, live_server, site):
    quiz, people = site
    watch = Watch(page, live_server.url)

    log_in(page, "author", PASSWORD)
    _visit(page, "/studio/templates/hostile-payloads/edit/")
    page.wait_for_selector("#workbench")
    screenshot(page, "security-studio-preview")
    page.context.clear_cookies()

    log_in(page, "student", PASSWORD)
    _visit(page, f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    page.wait_for_load_state("networkidle")
    assert page.locator("math mtext").count() > 0  # the math still renders as MathML
    variant = Variant.objects.get(attempt__student=people["student"])
    slip = common_error_values(variant)["bw"]["bits-for-bytes"]
    numeric = page.locator(f"#part-{variant.pk}-bw")
    numeric.get_by_label("Your answer").fill(f"{slip:.6g} B/s")
    numeric.get_by_role("button", name="Check").click()
    numeric.locator(".feedback").first.wait_for()
    choice = page.locator(f"#part-{variant.pk}-pick")
    choice.locator(f"input[value='{option_token(variant, 'pick', 'no')}']").check()
    choice.get_by_role("button", name="Check").click()
    choice.locator(".feedback").first.wait_for()
    page.wait_for_load_state("networkidle")
    screenshot(page, "security-student-checked")
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    page.wait_for_load_state("networkidle")
    screenshot(page, "security-student-results")
    page.context.clear_cookies()

    log_in(page, "instructor", PASSWORD)
    _visit(page, f"/o/{OFFERING}/instructor/students/{people['student'].pk}/")
    screenshot(page, "security-instructor-history")
    watch.assert_clean()


def test_hostile_chapter_fires_nothing(page, live_server, site):
    watch = Watch(page, live_server.url)
    log_in(page, "student", PASSWORD)
    _visit(page, "/chapters/hostile-chapter/")
    assert page.locator(".chapter-body math").count() > 0
    screenshot(page, "security-chapter")
    watch.assert_clean()

"""From the LMS's page in Chromium, through a quiz in its iframe, to the score in its gradebook."""

from __future__ import annotations

import pytest

from lti.demo_platform import DemoPlatform
from lti.tool import register_platform
from quizzes.models import Variant
from quizzes.services.questions import correct_answers, option_token
from tests.factories import CourseFactory, make_quiz, offering_of
from tests.lti.conftest import link_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_learner_launches_from_the_platform_takes_the_quiz_and_the_score_arrives(page, live_server):
    course = CourseFactory()
    quiz = make_quiz(course, examples=["bound-by-what"], slug="bound", title="Bound by what")
    lms = DemoPlatform(live_server.url).start(poll_interval=0.02)
    try:
        register_platform(**lms.registration_args())
        link_context(lms, lms.shape.context_id, quiz.offering)  # the course the site teaches
        lineitem = lms.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
        lms.links.append(
            {
                "link": "link-1",
                "title": quiz.title,
                "custom": {"quiz": quiz.slug},
                "lineitem": lineitem,
            }
        )
        page.goto(lms.url + "/")
        page.get_by_role("link", name="Open “Bound by what” as Ada (student)").click()
        tool = page.frame_locator("iframe[name=tool]")
        tool.get_by_role("button", name="Start attempt").click()
        tool.locator(".question").first.wait_for()
        variant = Variant.objects.get(attempt__quiz=quiz)
        part = tool.locator(f"#part-{variant.pk}-bound")
        right = correct_answers(variant)["bound"][0]
        part.locator(f"input[value='{option_token(variant, 'bound', right)}']").check()
        part.get_by_role("button", name="Check").click()
        part.locator(".feedback.correct").wait_for()
        tool.get_by_role("button", name="Submit attempt").click()
        tool.locator(".score-card").wait_for()
        assert "1 / 1 points" in tool.locator(".score-card").inner_text()
        assert [(s["userId"], s["scoreGiven"], s["scoreMaximum"]) for s in lms.scores] == [
            ("student-ada", 1.0, 1.0)
        ]
        page.goto(lms.url + "/")
        assert "1.0 / 1.0" in page.locator("#scores").inner_text()
    finally:
        lms.stop()


def test_a_refused_launch_shows_its_reason_in_the_lms_frame(page, live_server):
    """A refusal comes before anyone is signed in: the page must still be allowed in the LMS's
    frame, or the student sees only the browser's "refused to connect"."""
    course = CourseFactory()
    lms = DemoPlatform(live_server.url).start(poll_interval=0.02)
    try:
        register_platform(**lms.registration_args())
        link_context(lms, lms.shape.context_id, offering_of(course))  # a course set up here
        lms.links.append(
            {"link": "link-1", "title": "Gone", "custom": {"quiz": "gone"}, "lineitem": None}
        )
        page.goto(lms.url + "/")
        page.get_by_role("link", name="Open “Gone” as Ada (student)").click()
        tool = page.frame_locator("iframe[name=tool]")
        tool.get_by_role("heading", name="This launch was refused").wait_for(timeout=10_000)
        assert "not (or no longer) here" in tool.locator(".error-page").inner_text()
    finally:
        lms.stop()

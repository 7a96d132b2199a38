"""Deep linking round trip with the independent platform: pick, sign, validate, launch it."""

from __future__ import annotations

import re

import pytest
import requests

from lti.models import QuizLineItem
from tests.factories import ChapterFactory, make_quiz
from tests.lti.conftest import launch

pytestmark = pytest.mark.django_db(transaction=True)


def pick(session, tool_url, *values):
    page = session.get(tool_url + "/lti/deep-link/")
    assert page.status_code == 200, page.text[:300]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return session.post(
        tool_url + "/lti/deep-link/",
        data={"csrfmiddlewaretoken": token, "pick": list(values)},
        headers={"Referer": tool_url + "/lti/deep-link/"},
    )


def test_instructor_places_a_quiz_with_its_line_item_and_a_learner_lands_on_it(platform, course):
    quiz = make_quiz(course)
    chapter = ChapterFactory(part__course=course)
    done = launch(platform, user="teacher-grace", roles=("Instructor",), deep_link=True)
    assert done.response.headers["Location"] == "/lti/deep-link/"
    answer = pick(done.session, platform.tool_url, f"quiz:{quiz.slug}", f"chapter:{chapter.slug}")
    assert answer.status_code == 200
    # Directives come in no fixed order: compare the one directive, not a piece of the header.
    policy = answer.headers["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    assert directives["form-action"] == ["'self'", platform.url], policy
    jwt = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    back = requests.post(f"{platform.url}/deep_link_return", data={"JWT": jwt})
    assert back.status_code == 200, back.text[:300]
    quiz_item, chapter_item = platform.deep_linked
    assert quiz_item["type"] == "ltiResourceLink" and quiz_item["custom"] == {"quiz": quiz.slug}
    assert quiz_item["lineItem"]["scoreMaximum"] == 1.0
    assert quiz_item["lineItem"]["resourceId"] == f"quiz:{quiz.slug}"
    assert chapter_item["custom"] == {"chapter": chapter.slug} and "lineItem" not in chapter_item
    placed = platform.links[0]
    learner = launch(
        platform,
        user="student-ada",
        link=placed["link"],
        custom=placed["custom"],
        lineitem=placed["lineitem"],
    )
    assert learner.response.headers["Location"] == quiz.get_absolute_url()
    assert QuizLineItem.objects.get(quiz=quiz).url == placed["lineitem"]


def test_learner_cannot_deep_link(platform, course):
    done = launch(platform, user="student-ada", deep_link=True)
    assert done.response.status_code == 403


def test_deep_link_page_without_a_deep_link_launch_is_refused(platform, course):
    done = launch(platform, user="teacher-grace", roles=("Instructor",))
    page = done.session.get(platform.tool_url + "/lti/deep-link/")
    assert page.status_code == 400 and "no longer tied" in page.text

"""Deep linking round trip with the independent platform: pick, sign, validate, launch it."""

from __future__ import annotations

import re

import pytest
import requests

from lti.models import QuizLineItem
from tests.factories import ChapterFactory, make_quiz
from tests.lti.conftest import assert_refused, launch

DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"

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


def test_a_request_without_a_return_url_is_refused_at_launch(platform, course):
    done = launch(
        platform,
        user="teacher-grace",
        roles=("Instructor",),
        deep_link=True,
        dl={"deep_link_return_url": None},
    )
    assert_refused(done.response, "return-url", claim="deep_link_return_url")
    # And one whose return URL is not a web address (a form action the browser would run).
    done = launch(
        platform,
        user="teacher-grace",
        roles=("Instructor",),
        deep_link=True,
        dl={"deep_link_return_url": "javascript:alert(1)"},
    )
    assert_refused(done.response, "return-url", claim="deep_link_return_url")


def test_a_request_that_takes_no_resource_links_is_refused(platform, course):
    done = launch(
        platform,
        user="teacher-grace",
        roles=("Instructor",),
        deep_link=True,
        dl={"accept_types": ["file"]},
    )
    assert_refused(done.response, "placement", claim="accept_types")


@pytest.mark.parametrize("value", [False, "false"])
def test_accept_multiple_false_is_held_on_the_server(platform, course, value):
    first, second = make_quiz(course), make_quiz(course)
    done = launch(
        platform,
        user="teacher-grace",
        roles=("Instructor",),
        deep_link=True,
        dl={"accept_multiple": value},
    )
    page = done.session.get(platform.tool_url + "/lti/deep-link/")
    assert 'type="radio"' in page.text and 'type="checkbox"' not in page.text
    answer = pick(done.session, platform.tool_url, f"quiz:{first.slug}", f"quiz:{second.slug}")
    assert answer.status_code == 200 and 'name="JWT"' not in answer.text
    assert "takes one item here" in answer.text
    one = pick(done.session, platform.tool_url, f"quiz:{first.slug}")
    assert 'name="JWT"' in one.text


def test_data_is_echoed_only_when_the_request_sent_it(platform, course):
    quiz = make_quiz(course)
    done = launch(platform, user="teacher-grace", roles=("Instructor",), deep_link=True)
    answer = pick(done.session, platform.tool_url, f"quiz:{quiz.slug}")
    jwt = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    assert requests.post(f"{platform.url}/deep_link_return", data={"JWT": jwt}).status_code == 200
    assert DATA not in platform.last_deep_link_response
    sent = "opaque-Canvas-state:AbC=="
    done = launch(
        platform, user="teacher-grace", roles=("Instructor",), deep_link=True, dl={"data": sent}
    )
    answer = pick(done.session, platform.tool_url, f"quiz:{quiz.slug}")
    jwt = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    assert requests.post(f"{platform.url}/deep_link_return", data={"JWT": jwt}).status_code == 200
    assert platform.last_deep_link_response[DATA] == sent


def test_the_deep_link_page_is_served_by_whichever_worker_from_the_session(platform, course):
    """The request's settings live in the session (the database), not in one process's cache:
    emptying every cache between the launch and the pick changes nothing."""
    from django.core.cache import caches

    quiz = make_quiz(course)
    done = launch(platform, user="teacher-grace", roles=("Instructor",), deep_link=True)
    for alias in caches:
        caches[alias].clear()
    answer = pick(done.session, platform.tool_url, f"quiz:{quiz.slug}")
    assert 'name="JWT"' in answer.text

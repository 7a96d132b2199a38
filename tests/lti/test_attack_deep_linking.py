"""Deep linking under attack: a return URL that would write into our Content-Security-Policy
header, or that a parser reads two ways; picks that are not ours; and the response's form.
Forged tokens through the real endpoints (tests/lti/forge.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import ChapterFactory, make_quiz
from tests.lti.conftest import assert_refused
from tests.lti.forge import DL, INSTRUCTOR, LTI, Forge

pytestmark = pytest.mark.django_db

RETURN = "https://lms.example.edu/deep_link_return?course=1"


@pytest.fixture
def forge(course):
    return Forge()


def deep_link(forge, client, return_url=RETURN, **settings):
    claims = {
        LTI + "message_type": "LtiDeepLinkingRequest",
        LTI + "roles": [INSTRUCTOR],
        DL: {
            "deep_link_return_url": return_url,
            "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["iframe", "window"],
            **settings,
        },
    }
    return forge.launch(client, claims=claims, drop=[LTI + "resource_link"])


def form_action(response) -> list[str]:
    policy = response["Content-Security-Policy"]
    directive = next(d for d in policy.split(";") if d.strip().startswith("form-action"))
    return directive.split()[1:]


@pytest.mark.parametrize(
    "return_url",
    [
        # A semicolon in the host ends our form-action directive and starts another.
        "https://lms.example.edu;script-src 'unsafe-inline' *;x/return",
        "https://lms.example.edu;report-uri https://evil.example/r/return",
        "https://lms.example.edu /return",
        "https://lms.example.edu/re\nturn",
        "https://lms.example.edu/re\tturn",
        # urlsplit's host is lms.example.edu, a browser's (and urllib3's) is evil.example.
        "https://evil.example\\@lms.example.edu/return",
        "https://user:secret@lms.example.edu/return",
        "https://lms.example.edu:99999/return",
        "https://[::1/return",
        "javascript://lms.example.edu/%0aalert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//lms.example.edu/return",
    ],
)
def test_a_return_url_that_is_not_a_plain_web_address_is_refused_at_launch(forge, return_url):
    response = deep_link(forge, Client(), return_url)
    assert_refused(response, "return-url", claim="deep_link_return_url")


def test_the_return_urls_origin_alone_joins_form_action(forge, course):
    quiz = make_quiz(course, is_published=True)
    client = Client()
    assert deep_link(forge, client, "https://LMS.example.edu:8443/dl?x=1&y='2'").status_code == 302
    response = client.post("/lti/deep-link/", {"pick": f"quiz:{quiz.slug}"})
    assert response.status_code == 200
    assert form_action(response) == ["'self'", "https://lms.example.edu:8443"]
    assert 'action="https://LMS.example.edu:8443/dl?x=1&amp;y=&#x27;2&#x27;"' in response.text


# -- attacks that held ---------------------------------------------------------------------------


def test_picks_of_another_kind_or_not_in_the_course_are_dropped(forge, course):
    quiz = make_quiz(course, is_published=True)
    client = Client()
    assert deep_link(forge, client).status_code == 302
    picks = ["quiz:no-such-quiz", "chapter:nope", "user:1", "quiz:", ":", "quiz:" + "x" * 5000]
    response = client.post("/lti/deep-link/", {"pick": picks})
    assert "Choose at least one chapter or quiz." in response.text
    response = client.post("/lti/deep-link/", {"pick": [*picks, f"quiz:{quiz.slug}"]})
    assert response.status_code == 200 and 'name="JWT"' in response.text


def test_two_picks_are_refused_when_the_lms_takes_one(forge, course):
    quiz = make_quiz(course, is_published=True)
    chapter = ChapterFactory(part__course=course)
    client = Client()
    assert deep_link(forge, client, accept_multiple=False).status_code == 302
    response = client.post(
        "/lti/deep-link/", {"pick": [f"quiz:{quiz.slug}", f"chapter:{chapter.slug}"]}
    )
    assert "The LMS takes one item here" in response.text and 'name="JWT"' not in response.text


def test_the_picker_needs_the_sessions_own_deep_link_launch(forge, course):
    """A resource-link launch (a learner's, or an instructor's) gives no picker."""
    client = Client()
    assert forge.launch(client, claims={LTI + "roles": [INSTRUCTOR]}).status_code == 302
    response = client.post("/lti/deep-link/", {"pick": "chapter:x"})
    assert response.status_code == 400 and "no longer tied to an LMS request" in response.text


def test_the_picker_posts_only_with_the_csrf_token(forge, course):
    quiz = make_quiz(course, is_published=True)
    client = Client(enforce_csrf_checks=True)
    assert deep_link(forge, client).status_code == 302
    response = client.post("/lti/deep-link/", {"pick": f"quiz:{quiz.slug}"})
    assert response.status_code == 403

"""Each big LMS's shape, driven from lti1p3platform configured to send it (lti.demo_shapes):
registered with `lti_add_platform` as docs/lti.md says, then deep linking, a student's launch,
the score to its line item (query strings kept), and the roster from its NRPS URL."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
import requests
from django.core.management import call_command
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.demo_shapes import BRIGHTSPACE, CANVAS, SHAPES
from lti.models import GradeSync, SyncStatus
from quizzes.services.attempts import start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import make_quiz, offering_of
from tests.lti.conftest import assert_refused, launch, link_context

pytestmark = pytest.mark.django_db(transaction=True)


def place_quiz(lms, quiz) -> dict:
    """The instructor's deep-linking round trip; the link the LMS then shows."""
    done = launch(lms, user="teacher-grace", roles=("Instructor",), deep_link=True)
    assert done.response.headers.get("Location") == "/lti/deep-link/", done.response.text[-500:]
    page = done.session.get(lms.tool_url + "/lti/deep-link/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = done.session.post(
        lms.tool_url + "/lti/deep-link/",
        data={"csrfmiddlewaretoken": token, "pick": f"quiz:{quiz.slug}"},
        headers={"Referer": lms.tool_url + "/lti/deep-link/"},
    )
    jwt = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    assert requests.post(f"{lms.service_url}/deep_link_return", data={"JWT": jwt}).ok
    return lms.links[-1]


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_each_lms_shape_from_registration_to_gradebook_and_roster(
    platforms, course, client, instructor, shape
):
    quiz = make_quiz(course)
    lms = platforms(shape, register=False)
    call_command("lti_add_platform", *lms.command_args())
    link_context(lms, lms.shape.context_id, offering_of(course))  # as the site had
    registration = LtiRegistration.objects.get()
    assert registration.issuer == (shape.issuer or lms.service_url)
    assert LtiDeployment.objects.get().deployment_id == shape.deployment_id

    link = place_quiz(lms, quiz)
    assert link["lineitem"] == lms.service(shape.lineitem, id=1)
    if shape.dl_data:
        assert lms.last_deep_link_response[DATA] == shape.dl_data
    else:
        assert DATA not in lms.last_deep_link_response

    done = launch(
        lms, user="student-ada", link=link["link"], custom=link["custom"], lineitem=link["lineitem"]
    )
    assert done.response.headers.get("Location") == quiz.get_absolute_url()
    sync = GradeSync.objects.get()
    start = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=start, student=sync.user, now=timezone.now())
    assert GradeSync.objects.get().status == SyncStatus.SENT
    score = lms.scores[-1]
    assert (score["lineitem"], score["userId"]) == (link["lineitem"], "student-ada")
    item = urlsplit(link["lineitem"])
    scores_path = item.path + "/scores" + (f"?{item.query}" if item.query else "")
    assert f"POST {scores_path}" in lms.requests
    wanted = shape.token_audience or registration.token_url
    assert {a["aud"] for a in lms.assertions} == {wanted}

    client.force_login(instructor)
    text = client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()
    assert "3 member(s) in the LMS" in text, text[text.find("<main") :][:600]
    roster = urlsplit(lms.service(shape.memberships)).path
    pages = [r for r in lms.requests if r.startswith(f"GET {roster}")]
    assert pages[0] == f"GET {path_of(lms.service(shape.memberships))}"
    assert len(pages) == (2 if shape.page_size else 1)


DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"


def test_canvas_without_the_schools_own_host_is_refused_with_what_to_add(platforms, course):
    lms = platforms(CANVAS, register=False)
    args = [a for a in lms.command_args() if not a.startswith("--frame-origin")]
    call_command("lti_add_platform", *args)
    link_context(lms, lms.shape.context_id, offering_of(course))  # as the site had
    done = launch(lms, user="student-ada")
    assert_refused(done.response, "service-url")
    assert "--service-host localhost" in done.response.text


def test_brightspace_without_its_token_audience_gets_no_token(platforms, course):
    quiz = make_quiz(course)
    lms = platforms(BRIGHTSPACE, register=False)
    args = [a for a in lms.command_args() if not a.startswith("--token-audience")]
    call_command("lti_add_platform", *args)
    link_context(lms, lms.shape.context_id, offering_of(course))  # as the site had
    item = lms.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    done = launch(lms, user="student-ada", custom={"quiz": quiz.slug}, lineitem=item)
    sync = GradeSync.objects.get()
    attempt = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=attempt, student=sync.user, now=timezone.now())
    sync.refresh_from_db()
    assert done.response.status_code == 302 and lms.scores == []
    assert sync.status != SyncStatus.SENT and "401" in sync.last_error
    assert lms.assertions[0]["aud"] == lms.registration_args()["token_url"]

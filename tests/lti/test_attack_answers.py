"""A platform's answers that are not what the service specs say: JSON nested too deep to parse,
a token answer that is a list, a line item whose id no column can hold. Each becomes a refusal
or a failure recorded on the student's row (retried, shown to the instructor), never a 500 on
a launch or the roster page, nor a grade task that dies and leaves its row waiting for ever."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from lti import passback
from lti.models import GradeSync, PlatformKeySet, QuizLineItem, SyncStatus
from quizzes.services.attempts import start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import OFFERING, make_quiz
from tests.lti.conftest import assert_refused
from tests.lti.forge import AGS, LTI, NRPS, Forge
from tests.lti.hostile_server import HostileServer

pytestmark = pytest.mark.django_db

DEEP = b'{"keys": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


@pytest.fixture
def lms(course):
    with HostileServer() as server:
        server.forge = Forge(issuer=server.url, allow_local_network=True)
        yield server


def test_a_key_set_nested_too_deep_to_parse_refuses_the_launch(lms):
    PlatformKeySet.objects.all().delete()
    lms.answers["/jwks"] = (200, DEEP)
    assert_refused(lms.forge.launch(Client()), "keyset", claim="jwks")


@pytest.mark.parametrize(
    "path, answer",
    [
        ("/members", DEEP.replace(b"keys", b"members")),
        ("/token", DEEP.replace(b"keys", b"access_token")),
        ("/token", ["not", "an", "object"]),
        ("/token", {"access_token": {"a": "dict"}, "expires_in": 3600}),
    ],
)
def test_a_roster_answer_of_the_wrong_shape_is_a_message_not_a_500(
    lms, path, answer, client, instructor
):
    claims = {NRPS: {"context_memberships_url": lms.url + "/members", "service_versions": ["2.0"]}}
    assert lms.forge.launch(Client(), claims=claims).status_code == 302
    lms.answers["/members"] = (200, {"members": []})
    lms.answers["/token"] = (200, {"access_token": "t", "token_type": "bearer", "expires_in": 3600})
    lms.answers[path] = (200, answer)
    client.force_login(instructor)
    response = client.post(f"/o/{OFFERING}/lms/roster/", follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    messages = ["did not send its roster", "is not a membership container", "Roster: 0 member(s)"]
    assert any(message in text for message in messages), text


@pytest.mark.parametrize(
    "path, answer",
    [
        ("/token", DEEP.replace(b"keys", b"access_token")),
        ("/token", ["not", "an", "object"]),
        ("/lineitems", [{"id": "LONG", "tag": "TAG"}]),
        ("/lineitems", [{"id": {"not": "a URL"}, "tag": "TAG"}]),
        ("/lineitems", {"not": "a list"}),
        ("/lineitems", DEEP),
    ],
)
def test_a_score_answer_of_the_wrong_shape_is_recorded_and_retried(lms, course, path, answer):
    quiz = make_quiz(course, is_published=True)
    scopes = [passback.SCORE_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"]
    ags = {"scope": scopes, "lineitems": lms.url + "/lineitems"}
    claims = {LTI + "custom": {"quiz": quiz.slug}, AGS: ags}
    assert lms.forge.launch(Client(), claims=claims).status_code == 302
    sync = GradeSync.objects.get()
    lms.answers["/token"] = (200, {"access_token": "t", "token_type": "bearer", "expires_in": 3600})
    lms.answers["/lineitems"] = (200, [])
    if isinstance(answer, list) and isinstance(answer[0], dict):
        item = dict(answer[0], tag=f"quiz:{quiz.slug}")
        if item["id"] == "LONG":
            item["id"] = lms.url + "/lineitems/" + "i" * 600
        answer = [item]
    lms.answers[path] = (200, answer)
    attempt = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=attempt, student=sync.user, now=timezone.now())
    assert passback.push(sync.pk) is False  # to be tried again
    sync.refresh_from_db()
    assert sync.status == SyncStatus.RETRYING and sync.last_error
    assert QuizLineItem.objects.get().url == ""

"""What a platform says reaches our log as one line: a newline (or any control character) in a
URL it names, or in its answer to a score, would start a forged `LTI refused …` line of its
own. Service URLs a parser could read two ways are refused at launch."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.utils import timezone
from pylti1p3.exception import LtiException

from lti import passback
from lti.models import GradeSync, QuizLineItem
from tests.factories import make_quiz
from tests.lti.conftest import assert_refused
from tests.lti.forge import AGS, LTI, NRPS, Forge

pytestmark = pytest.mark.django_db

FORGED = "\nLTI refused [signature] signature: kid 'forged'"


@pytest.fixture
def forge(course):
    return Forge()


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("lti")]


@pytest.mark.parametrize(
    "claims, claim",
    [
        ({AGS: {"scope": [], "lineitem": "https://lms.example.edu/li" + FORGED}}, "lineitem"),
        ({AGS: {"scope": [], "lineitems": "http://evil.example/" + FORGED}}, "lineitems"),
        (
            {NRPS: {"context_memberships_url": "https://lms.example.edu/\x1b[2Jm"}},
            "context_memberships_url",
        ),
        # urlsplit's host is lms.example.edu; urllib3's (and a browser's) is evil.example.
        ({AGS: {"scope": [], "lineitem": "https://evil.example\\@lms.example.edu/li"}}, "lineitem"),
        ({AGS: {"scope": [], "lineitem": "https://u:p@lms.example.edu/li"}}, "lineitem"),
    ],
)
def test_a_service_url_with_a_line_break_or_two_readings_is_refused_in_one_log_line(
    forge, caplog, claims, claim
):
    with caplog.at_level(logging.WARNING, logger="lti"):
        response = forge.launch(Client(), claims=claims)
    assert_refused(response, "service-url", claim=claim)
    assert lines(caplog) and all("\n" not in line and "\x1b" not in line for line in lines(caplog))


def test_a_refusals_detail_is_logged_on_one_line(forge, caplog):
    """Whatever a detail holds (our own messages quote the platform), the log line is one."""
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from lti.refusals import Refused, refusal_page

    request = RequestFactory().post("/lti/launch/")
    request.user, request.session = AnonymousUser(), {}
    with caplog.at_level(logging.WARNING, logger="lti"):
        refusal_page(request, Refused("service-url", claim="lineitem\r\n", detail="a" + FORGED))
    (line,) = lines(caplog)
    assert "\n" not in line and "\r" not in line and "\\nLTI refused" in line


def test_a_platforms_answer_to_a_score_is_logged_on_one_line(forge, course, caplog):
    quiz = make_quiz(course, is_published=True)
    item = "https://lms.example.edu/lineitems/1"
    claims = {LTI + "custom": {"quiz": quiz.slug}, AGS: {"scope": [], "lineitem": item}}
    assert forge.launch(Client(), claims=claims).status_code == 302
    sync = GradeSync.objects.select_related("line_item").get()
    assert QuizLineItem.objects.get().url == item
    with caplog.at_level(logging.WARNING, logger="lti"):
        passback._failed(
            sync, LtiException("HTTP response [x]: 500 - oops" + FORGED), timezone.now()
        )
    (line,) = lines(caplog)
    assert "\n" not in line and "oops\\nLTI refused" in line

"""Framing: pages of a session launched from a registered platform may be framed by it only."""

from __future__ import annotations

import pytest
import requests
from django.http import HttpResponse
from django.test import RequestFactory

from lti.middleware import LtiFrameMiddleware
from lti.tool import register_platform
from tests.factories import make_quiz
from tests.lti.conftest import launch

REGISTRATION = {
    "name": "School LMS",
    "issuer": "https://canvas.instructure.com",
    "client_id": "10000000000001",
    "deployment_ids": ["1:abc"],
    "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
    "token_url": "https://sso.canvaslms.com/login/oauth2/token",
    "jwks_url": "https://sso.canvaslms.com/api/lti/security/jwks",
    "frame_origins": ["https://school.instructure.com"],
}


@pytest.mark.django_db(transaction=True)
def test_launched_pages_name_the_platform_in_frame_ancestors_others_deny(platform, course):
    quiz = make_quiz(course)
    done = launch(platform, user="student-ada", custom={"quiz": quiz.slug})
    page = done.session.get(platform.tool_url + quiz.get_absolute_url())
    assert page.status_code == 200
    # The policy's directives come in no fixed order: read them, not the header's text.
    directives = {
        d.split()[0]: d.split()[1:]
        for d in page.headers["Content-Security-Policy"].split(";")
        if d.strip()
    }
    assert directives["frame-ancestors"] == [platform.url]
    assert "X-Frame-Options" not in page.headers
    other = requests.get(platform.tool_url + "/")  # any other visitor: a fresh session
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]
    assert other.headers["X-Frame-Options"] == "DENY"


def _through_middleware(session_data, *, secure):
    request = RequestFactory().get("/", secure=secure)
    request.session = session_data

    def view(_request):
        response = HttpResponse("ok")
        response.set_cookie("sessionid", "abc", samesite="Lax")
        response.set_cookie("csrftoken", "def", samesite="Lax")
        return response

    return LtiFrameMiddleware(view)(request)


@pytest.mark.django_db
def test_over_https_a_launched_session_gets_third_party_cookies():
    registration, _ = register_platform(**REGISTRATION)
    response = _through_middleware({"lti": {"registration": registration.pk}}, secure=True)
    assert response._csp_replace == {"frame-ancestors": ["https://school.instructure.com"]}
    for name in ("sessionid", "csrftoken"):
        assert response.cookies[name]["samesite"] == "None"
        assert response.cookies[name]["secure"] is True


@pytest.mark.django_db
def test_a_session_not_launched_keeps_lax_cookies_and_no_frame_permission():
    register_platform(**REGISTRATION)
    response = _through_middleware({}, secure=True)
    assert not hasattr(response, "_csp_replace")
    assert response.cookies["sessionid"]["samesite"] == "Lax"


@pytest.mark.django_db
def test_a_deactivated_platform_no_longer_frames():
    registration, _ = register_platform(**REGISTRATION)
    registration.is_active = False
    registration.save()
    response = _through_middleware({"lti": {"registration": registration.pk}}, secure=True)
    assert not hasattr(response, "_csp_replace")
    assert response.cookies["sessionid"]["samesite"] == "Lax"


@pytest.mark.django_db
def test_origins_the_operator_allows_everywhere_stay_allowed(settings):
    settings.FRAME_ANCESTORS = ["https://portal.example.edu"]
    registration, _ = register_platform(**REGISTRATION)
    response = _through_middleware({"lti": {"registration": registration.pk}}, secure=False)
    assert response._csp_replace == {
        "frame-ancestors": ["https://school.instructure.com", "https://portal.example.edu"]
    }
    assert response.cookies["sessionid"]["samesite"] == "Lax"  # plain HTTP: no SameSite=None


# -- a refused launch is shown in the LMS's frame ------------------------------------------------


def _frame_ancestors(response) -> list[str]:
    directives = {
        d.split()[0]: d.split()[1:]
        for d in response["Content-Security-Policy"].split(";")
        if d.strip()
    }
    return directives["frame-ancestors"]


@pytest.mark.django_db
def test_a_refusal_page_may_be_framed_by_the_registered_platforms(client, course):
    """A launch is refused before anyone is signed in, so no launched session lets the LMS
    frame the page: the refusal, written for the LMS's administrator, was blocked by the
    browser ("refused to connect") in the LMS's frame, where launches happen. Registered
    platforms may now frame it (it has nothing to click that a launched page has not)."""
    from tests.lti.forge import LTI, Forge

    register_platform(**REGISTRATION)
    forge = Forge()
    refused = [
        client.get("/lti/login/", {"iss": "https://unknown.example", "login_hint": "x"}),
        client.post("/lti/launch/", {"id_token": "x", "state": "state-unknown"}),
        forge.launch(
            client,
            claims={LTI + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]},
        ),
    ]
    for response in refused:
        assert response.status_code in {400, 403}
        assert "X-Frame-Options" not in response
        assert set(_frame_ancestors(response)) == {
            "https://school.instructure.com",
            "https://lms.example.edu",
        }
    # Any other page still denies framing.
    other = client.get("/")
    assert _frame_ancestors(other) == ["'none'"] and other["X-Frame-Options"] == "DENY"

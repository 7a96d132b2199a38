"""A signed launch whose claims are of any shape: refused with the claim named, or accepted,
never a 500. Each case is a platform (hostile, or sloppy) that holds a registered key; the
claims django-lti stores beside ours (the platform instance, the context's type, the
notification service) answered 500 before, and so did a null where django-lti stores a string.
Forged tokens through the real endpoints (tests/lti/forge.py)."""

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client
from lti_tool.models import LtiContext, LtiPlatformInstance, LtiUser

from tests.factories import OFFERING
from tests.lti.conftest import assert_refused
from tests.lti.forge import AGS, LTI, NRPS, Forge

pytestmark = pytest.mark.django_db

PLATFORM = LTI + "tool_platform"
PNS = LTI + "platformnotificationservice"
CONTEXT = LTI + "context"


@pytest.fixture
def forge(course):
    return Forge()


def launched(response) -> bool:
    """Signed in and sent to the front page of the offering the LMS course is linked to."""
    return response.status_code == 302 and response["Location"] == f"/o/{OFFERING}/"


@pytest.mark.parametrize(
    "claims, code, claim",
    [
        ({PLATFORM: "Moodle"}, "claim-form", "tool_platform"),
        ({PLATFORM: {"name": "Moodle"}}, "claim-missing", "tool_platform guid"),
        ({PLATFORM: {"guid": ["g"]}}, "claim-form", "tool_platform guid"),
        ({PLATFORM: {"guid": "g" * 256}}, "claim-form", "tool_platform guid"),
        ({PLATFORM: {"guid": "g", "name": "n" * 501}}, "claim-form", "tool_platform name"),
        (
            {PLATFORM: {"guid": "g", "url": "https://x/" + "u" * 200}},
            "claim-form",
            "tool_platform url",
        ),
        ({PLATFORM: {"guid": "g", "version": 4.5}}, "claim-form", "tool_platform version"),
        (
            {PLATFORM: {"guid": "g", "contact_email": "e" * 255}},
            "claim-form",
            "tool_platform contact_email",
        ),
        ({CONTEXT: {"id": "c", "type": 5}}, "claim-form", "context type"),
        ({CONTEXT: {"id": "c", "type": [{"CourseOffering": 1}]}}, "claim-form", "context type"),
        ({NRPS: {"service_versions": ["2.0"]}}, "claim-missing", "context_memberships_url"),
        ({PNS: "https://lms.example.edu/pns"}, "claim-form", "platformnotificationservice"),
        (
            {PNS: {"notice_types_supported": 5}},
            "claim-form",
            "platformnotificationservice notice_types_supported",
        ),
        (
            {PNS: {"platform_notification_service_url": "https://lms.example.edu/" + "p" * 200}},
            "claim-form",
            "platformnotificationservice platform_notification_service_url",
        ),
    ],
)
def test_a_stored_claim_of_the_wrong_form_is_refused_not_a_500(forge, claims, code, claim):
    assert_refused(forge.launch(Client(), claims=claims), code, claim=claim)
    assert not LtiUser.objects.exists()


def test_null_for_an_optional_claim_is_taken_as_absent(forge):
    """A platform that writes out what it does not have as null launches as if it had left
    it out (django-lti stored the nulls into NOT NULL columns: a 500)."""
    claims = {
        CONTEXT: {"id": "course-1", "title": None, "label": None},
        AGS: {"scope": [], "lineitems": None, "lineitem": None},
        PLATFORM: {"guid": "moodle-1", "name": None, "version": None},
        PNS: {"platform_notification_service_url": None, "notice_types_supported": None},
        "given_name": None,
        "email": None,
    }
    assert launched(forge.launch(Client(), claims=claims))
    context = LtiContext.objects.get()
    assert (context.title, context.label, context.lineitems_url) == ("", "", "")
    assert LtiPlatformInstance.objects.get().name == ""


def test_the_stored_claims_in_their_right_form_are_kept(forge):
    claims = {
        CONTEXT: {
            "id": "course-1",
            "title": "Hardware",
            "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
        },
        PLATFORM: {"guid": "moodle-1", "name": "School Moodle", "product_family_code": "moodle"},
        PNS: {
            "platform_notification_service_url": "https://lms.example.edu/pns",
            "notice_types_supported": ["LtiContextCopyNotice"],
        },
    }
    assert launched(forge.launch(Client(), claims=claims))
    assert LtiContext.objects.get().is_course_offering
    assert LtiPlatformInstance.objects.get().name == "School Moodle"


# -- attacks that held: each still refused with its reason, never a 500 ------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize("part", ["header", "payload"])
def test_a_token_nested_too_deep_to_parse_is_refused(forge, part):
    client = Client()
    state = forge.login(client)
    deep = _b64(b"[" * 100_000 + b"]" * 100_000)
    header = _b64(json.dumps({"alg": "RS256", "kid": forge.kid}).encode())
    token = f"{deep}.e30.x" if part == "header" else f"{header}.{deep}.x"
    response = client.post("/lti/launch/", {"id_token": token, "state": state.state})
    assert_refused(response, "token-format", claim="id_token")


@pytest.mark.parametrize(
    "claims, code, claim",
    [
        ({"exp": 1e400}, "claim-form", "exp"),  # JSON's 1e400 is infinity in Python
        ({"exp": "tomorrow"}, "claim-form", "exp"),
        ({"iat": 1e400}, "claim-form", "iat"),
        ({"nbf": 1e400}, "claim-form", "nbf"),
        ({"nbf": "now"}, "claim-form", "nbf"),
        ({"sub": 5}, "claim-form", "sub"),
        ({"sub": "s" * 256}, "claim-form", "sub"),
        ({"aud": {"client": 1}}, "claim-missing", "aud"),
        ({"aud": []}, "claim-missing", "aud"),
        ({"nonce": 5}, "nonce", "nonce"),
        ({"azp": 5}, "azp", "azp"),
        ({LTI + "roles": ["r" * 100_000, None]}, "claim-form", "roles"),
        ({LTI + "custom": {5: "x"}}, None, None),  # JSON keys are strings: accepted
        ({LTI + "resource_link": "link-1"}, "claim-form", "resource_link"),
        ({CONTEXT: "course-1"}, "claim-form", "context"),
        ({CONTEXT: {"id": ["c"]}}, "claim-form", "context id"),
        ({AGS: "https://lms.example.edu/lineitems"}, "claim-form", "endpoint"),
        ({AGS: {"scope": "score"}}, "claim-form", "endpoint"),
        ({AGS: {"lineitems": ["https://lms.example.edu/l"]}}, "service-url", "lineitems"),
        ({NRPS: {"context_memberships_url": 5}}, "service-url", "context_memberships_url"),
    ],
)
def test_a_claim_of_another_type_is_refused_with_its_name(forge, claims, code, claim):
    response = forge.launch(Client(), claims=claims)
    if code is None:
        assert launched(response)
    else:
        assert_refused(response, code, claim=claim)


@pytest.mark.parametrize(
    "custom",
    [{"quiz": {"slug": "x"}}, {"quiz": ["x"]}, {"quiz": 5}, {"chapter": True}, ["quiz"]],
)
def test_a_custom_parameter_of_any_shape_finds_nothing_and_says_so(forge, custom):
    response = forge.launch(Client(), claims={LTI + "custom": custom})
    assert response.status_code in {302, 400, 403}
    if response.status_code == 302:
        assert response["Location"] == "/"
    else:
        assert "Traceback" not in response.text


def test_iss_that_is_not_a_string_is_refused(forge):
    client = Client()
    state = forge.login(client)
    body = forge.claims(state, iss=[forge.issuer])
    header = _b64(json.dumps({"alg": "RS256", "kid": forge.kid, "typ": "JWT"}).encode())
    token = f"{header}.{_b64(json.dumps(body).encode())}.sig"
    response = client.post("/lti/launch/", {"id_token": token, "state": state.state})
    assert_refused(response, "claim-missing", claim="iss")

"""Passback only to the platform (issue 33, S6): grade and roster calls, with their bearer token,
go only to hosts the registration names, over https, never to this site's own network, unless
the registration is a local demo. No test here sends anything to a private address: every
refusal happens before a connection is opened (or, for DNS rebinding, on a loopback one)."""

from __future__ import annotations

import socket

import pytest
import requests
from django.utils import timezone

from lti import network
from lti.demo_shapes import PLAIN
from lti.models import GradeSync, PlatformFraming, SyncStatus
from lti.network import HostPolicy, PlatformURLRefused, is_public_address
from lti.tool import register_platform
from quizzes.services.attempts import start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import make_quiz
from tests.lti.conftest import assert_refused, launch

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

LMS = HostPolicy(["lms.example.edu", "school.instructure.com"], name="School LMS")


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.0.0.5",
        "172.16.3.4",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "100.64.0.1",  # shared address space
        "0.0.0.0",
        "::1",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
    ],
)
def test_addresses_on_our_own_network_are_not_public(address):
    assert not is_public_address(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700::6810:84e5", "8.8.8.8"])
def test_public_addresses_are(address):
    assert is_public_address(address)


@pytest.mark.parametrize(
    "url, why",
    [
        ("https://evil.example/api/lti/courses/1/line_items/2", "does not name"),
        ("https://lms.example.edu.evil.example/scores", "does not name"),
        ("http://lms.example.edu/api/lti/courses/1/line_items/2", "plain http"),
        ("https://10.0.0.5/scores", "does not name"),
        ("https://169.254.169.254/latest/meta-data/", "does not name"),
        ("ftp://lms.example.edu/scores", "not an http(s) URL"),
        ("file:///etc/passwd", "not an http(s) URL"),
        ("", "not an http(s) URL"),
    ],
)
def test_a_url_off_the_platform_is_refused_with_the_reason(url, why):
    assert why in LMS.refusal(url, resolve_names=False)


def test_the_registrations_hosts_in_any_case_are_allowed(monkeypatch):
    monkeypatch.setattr(network, "resolve", lambda host, port: ["93.184.216.34"])
    assert LMS.refusal("https://LMS.example.edu/api/lti/courses/1/line_items/2?x=Y") == ""
    assert LMS.refusal("https://school.instructure.com:443/api/lti/courses/1/names_and_roles") == ""


def test_a_registered_name_that_resolves_into_our_network_is_refused(monkeypatch):
    monkeypatch.setattr(network, "resolve", lambda host, port: ["93.184.216.34", "10.1.2.3"])
    assert "10.1.2.3" in LMS.refusal("https://lms.example.edu/scores")


def test_a_registered_literal_private_address_is_refused_unless_a_local_demo():
    policy = HostPolicy(["10.0.0.5"])
    assert "own network" in policy.refusal("https://10.0.0.5/scores")
    assert HostPolicy(["10.0.0.5"], allow_local=True).refusal("http://10.0.0.5/scores") == ""


def test_dns_rebinding_is_caught_on_the_connected_socket(monkeypatch, live_server):
    """The name passes the check (resolved to a public address), then connects to loopback:
    refused once connected, before a byte of the request (or its token) is sent."""
    monkeypatch.setattr(network, "resolve", lambda host, port: ["93.184.216.34"])
    seen = []
    original = socket.socket.sendall

    def spy(sock, data, *args):
        seen.append(data)
        return original(sock, data, *args)

    monkeypatch.setattr(socket.socket, "sendall", spy)
    port = live_server.url.rsplit(":", 1)[1]
    session = network.PlatformSession(HostPolicy(["localhost"]))
    with pytest.raises(PlatformURLRefused, match="own network"):
        session.get(f"https://localhost:{port}/lti/jwks/", headers={"Authorization": "Bearer s"})
    assert not [d for d in seen if b"Bearer" in d]


@pytest.mark.django_db(transaction=True)
def test_a_redirect_off_the_platform_is_not_followed(platforms):
    lms = platforms()
    lms.redirects["/jwks"] = "http://127.0.0.1:9/internal"
    session = network.PlatformSession(HostPolicy(["localhost"], allow_local=True))
    with pytest.raises(PlatformURLRefused, match="does not name"):
        session.get(f"{lms.url}/jwks")
    lms.redirects["/jwks"] = f"{lms.url}/jwks"  # to itself, forever
    with pytest.raises(requests.TooManyRedirects):
        session.get(f"{lms.url}/jwks")
    assert lms.requests.count("GET /jwks") == 1 + 1 + network.MAX_REDIRECTS


# -- end to end: a launch naming a service elsewhere, and passback ----------------------------

pytestmark_db = pytest.mark.django_db(transaction=True)


@pytestmark_db
@pytest.mark.parametrize(
    "claim", [AGS, NRPS], ids=["lineitem on another host", "roster on another host"]
)
def test_a_launch_naming_a_service_on_another_host_is_refused(platform, course, claim):
    elsewhere = "http://127.0.0.1:9/internal"  # the demo LMS is "localhost"
    claims = (
        {AGS: {"scope": [], "lineitems": elsewhere + "/lineitems", "lineitem": elsewhere}}
        if claim == AGS
        else {NRPS: {"context_memberships_url": elsewhere, "service_versions": ["2.0"]}}
    )
    done = launch(platform, claims=claims)
    assert_refused(done.response, "service-url")
    assert (
        "does not name" in done.response.text and "--service-host 127.0.0.1" in done.response.text
    )


@pytestmark_db
def test_an_added_service_host_is_allowed(platform, course):
    quiz = make_quiz(course)
    PlatformFraming.objects.update(service_hosts="127.0.0.1")
    item = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    item = item.replace("localhost", "127.0.0.1")
    platform.lineitems[item] = platform.lineitems.popitem()[1]
    done = launch(platform, custom={"quiz": quiz.slug}, lineitem=item)
    assert done.response.status_code == 302


@pytestmark_db
def test_passback_to_a_private_address_is_refused_sends_nothing_and_waits(platform, course):
    """A line item recorded before the rule (or a registration changed since): the grade
    worker refuses it at once, without retries, and the instructor sees why."""
    quiz = make_quiz(course)
    item = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    done = launch(platform, user="student-ada", custom={"quiz": quiz.slug}, lineitem=item)
    assert done.response.status_code == 302
    sync = GradeSync.objects.select_related("line_item").get()
    sync.line_item.url = "https://169.254.169.254/latest/meta-data/iam"
    sync.line_item.save(update_fields=["url"])
    PlatformFraming.objects.update(allow_local_network=False, service_hosts="169.254.169.254")
    attempt = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=attempt, student=sync.user, now=timezone.now())
    sync.refresh_from_db()
    assert sync.status == SyncStatus.FAILED and sync.tries == 1
    assert "plain http" in sync.last_error or "own network" in sync.last_error
    assert platform.scores == [] and not [r for r in platform.requests if "/token" in r]


@pytestmark_db
def test_without_the_demo_flag_the_local_platform_is_refused(platform, course):
    """`make lti-demo` marks its registration as a local demo; a real one is not, and then a
    platform on this machine (and plain http) is refused, here at its key set."""
    PlatformFraming.objects.update(allow_local_network=False)
    assert_refused(launch(platform).response, "keyset", claim="jwks")
    assert platform.jwks_fetches == 0


@pytestmark_db
def test_registration_keeps_the_service_hosts_and_the_demo_flag(live_server, course):
    from django.core.management import call_command

    call_command(
        "lti_add_platform",
        "--issuer=https://canvas.instructure.com",
        "--client-id=10000000000123",
        "--deployment-id=123:abc",
        "--auth-login-url=https://sso.canvaslms.com/api/lti/authorize_redirect",
        "--token-url=https://sso.canvaslms.com/login/oauth2/token",
        "--jwks-url=https://sso.canvaslms.com/api/lti/security/jwks",
        "--frame-origin=https://school.instructure.com",
        "--service-host=https://files.school.example/",
        "--service-host=API.School.example",
    )
    framing = PlatformFraming.objects.get()
    assert framing.extra_service_hosts == ["files.school.example", "api.school.example"]
    assert framing.allow_local_network is False
    policy = network.policy_for(framing.registration)
    assert policy.hosts == {
        "canvas.instructure.com",
        "sso.canvaslms.com",
        "school.instructure.com",
        "files.school.example",
        "api.school.example",
    }
    register_platform(**{**PLAIN_ARGS, "allow_local_network": True})
    assert PlatformFraming.objects.filter(allow_local_network=True).count() == 1


PLAIN_ARGS = {
    "name": "Demo",
    "issuer": "http://localhost:1",
    "client_id": PLAIN.client_id,
    "deployment_ids": ["d"],
    "auth_login_url": "http://localhost:1/auth",
    "token_url": "http://localhost:1/token",
    "jwks_url": "http://localhost:1/jwks",
}

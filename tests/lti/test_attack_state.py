"""The login state and its cookie under attack: replay, races, another browser's or another
platform's state, login CSRF (a victim made to launch into the attacker's identity), and the
cookie's own attributes. Forged tokens through the real endpoints (tests/lti/forge.py)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from lti_tool.models import LtiUser

from lti.models import LoginState
from tests.lti.conftest import assert_refused
from tests.lti.forge import CLIENT_ID, Forge

pytestmark = pytest.mark.django_db

HOST_COOKIE = "__Host-lti"


@pytest.fixture
def forge(course):
    return Forge()


def test_over_https_the_state_cookie_is_host_only_secure_and_cross_site(forge):
    client = Client()
    state = forge.login(client, secure=True)
    (name,) = client.cookies.keys()
    assert name.startswith(HOST_COOKIE)
    cookie = client.cookies[name]
    assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "None"
    assert cookie["path"] == "/" and not cookie["domain"]
    response = forge.launch(client, state=state, secure=True)
    assert response.status_code == 302
    assert client.cookies[name]["max-age"] == 0  # cleared


def test_a_state_cookie_tossed_from_a_sibling_domain_does_not_launch_the_victim(forge):
    """Login CSRF by cookie tossing: the attacker (a student of the same LMS) begins a launch
    in their own browser, plants a cookie naming its state from another host of the school's
    domain (which cannot set a __Host- cookie), and makes the victim's browser post the
    attacker's launch: the victim would work in the attacker's account."""
    attacker = Client()
    state = forge.login(attacker, secure=True)
    token = forge.sign(forge.claims(state, sub="attacker"))
    (name,) = attacker.cookies.keys()
    victim = Client()
    tossed = name.removeprefix(HOST_COOKIE[: -len("lti")])  # Domain=.example.edu, no __Host-
    victim.cookies[tossed] = attacker.cookies[name].value
    response = victim.post("/lti/launch/", {"id_token": token, "state": state.state}, secure=True)
    assert_refused(response, "state-cookie", claim="state")
    assert "_auth_user_id" not in victim.session
    assert not LtiUser.objects.exists()


def test_over_plain_http_the_cookie_keeps_its_name_for_the_local_demo(forge):
    client = Client()
    state = forge.login(client)
    (name,) = client.cookies.keys()
    assert name.startswith("lti") and client.cookies[name]["samesite"] == "Lax"
    assert forge.launch(client, state=state).status_code == 302


def cookie_header(client) -> str:
    return "; ".join(f"{name}={cookie.value}" for name, cookie in client.cookies.items())


@pytest.mark.parametrize("secure", [True, False])
def test_a_page_that_begins_logins_by_the_hundred_cannot_lock_a_browser_out(forge, secure):
    """A page the student visits loads the login URL a few hundred times (images, frames): each
    sets a state cookie. A browser keeps 180 cookies for a site (Chrome, Firefox); at 96 bytes
    each they made a Cookie header past the 8 KB gunicorn and nginx take, and every page of the
    site answered 400 for ten minutes. The cookies are now small enough that 180 fit, with the
    session's, in well under that."""
    client = Client()
    for _ in range(180):
        forge.login(client, secure=secure)
    assert len(client.cookies) == 180
    assert len(cookie_header(client)) + 200 < 8190


# -- attacks that held ---------------------------------------------------------------------------


def test_a_launch_replayed_in_the_same_browser_is_refused(forge):
    client = Client()
    state = forge.login(client)
    token = forge.sign(forge.claims(state))
    (name,) = client.cookies.keys()
    kept = client.cookies[name].value
    assert forge.launch(client, state=state, token=token).status_code == 302
    client.cookies[name] = kept  # as if never cleared
    assert_refused(forge.launch(client, state=state, token=token), "state-used", status=403)


def test_a_state_posted_without_its_login_is_refused(forge):
    client = Client()
    forge.login(client)
    for state in ["state-" + "A" * 32, "", "x" * 10_000, "state-%00", "' OR 1=1 --"]:
        response = client.post("/lti/launch/", {"id_token": "x.y.z", "state": state})
        code = "state-missing" if not state else "state-unknown"
        assert_refused(response, code, claim="state")


def test_a_token_for_another_login_of_the_same_browser_is_refused(forge):
    client = Client()
    first, second = forge.login(client), forge.login(client)
    token = forge.sign(forge.claims(first))
    assert_refused(forge.launch(client, state=second, token=token), "nonce", claim="nonce")


def test_a_nonce_of_another_registration_is_refused(forge):
    other = Forge(client_id="second-client", deployment="deployment-2")
    client = Client()
    ours, theirs = forge.login(client), other.login(client)
    token = other.sign(other.claims(theirs))
    assert_refused(forge.launch(client, state=ours, token=token), "state-platform", claim="iss")
    assert CLIENT_ID != other.client_id


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_posts_of_one_launch_at_the_same_moment_sign_in_once(forge):
    """Real threads against PostgreSQL (SQLite's in-memory test database refuses a second
    writer outright): the state is used once, by whichever post comes first."""
    from django.db import connection

    client = Client()
    state = forge.login(client)
    token = forge.sign(forge.claims(state))
    cookies = {k: v.value for k, v in client.cookies.items()}
    start, codes = threading.Barrier(2), []

    def post():
        browser = Client()
        for name, value in cookies.items():
            browser.cookies[name] = value
        start.wait()
        try:
            response = browser.post("/lti/launch/", {"id_token": token, "state": state.state})
            codes.append(response.status_code)
        except Exception as error:  # noqa: BLE001 - handed back to the test
            codes.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(codes) == [302, 403], codes
    assert get_user_model().objects.filter(username__startswith="lti-").count() == 1
    assert LoginState.objects.get().used_at is not None

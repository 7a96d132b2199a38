"""The claims every launch MUST carry (LTI 1.3 Core 5.1.2, 5.3, 5.4; OIDC Core 2, 3.1.3.7), the
clock leeway, and the nonce bound to its login's state: each refusal names the claim at fault
on the page and in the log, and leaves nothing behind."""

from __future__ import annotations

import logging

import pytest
import requests
from django.contrib.auth import get_user_model
from lti_tool.models import LtiUser

from lti.models import LoginState
from tests.factories import make_quiz
from tests.lti.conftest import assert_refused, launch

pytestmark = pytest.mark.django_db(transaction=True)

LTI = "https://purl.imsglobal.org/spec/lti/claim/"


def nothing_recorded():
    return (
        not LtiUser.objects.exists()
        and not get_user_model().objects.filter(username__startswith="lti-").exists()
    )


@pytest.mark.parametrize(
    "claim, shown",
    [
        ("exp", "exp"),
        ("iat", "iat"),
        ("nonce", "nonce"),
        (LTI + "target_link_uri", "target_link_uri"),
        (LTI + "deployment_id", "deployment_id"),
        (LTI + "message_type", "message_type"),
        (LTI + "roles", "roles"),
        ("sub", "sub"),
    ],
)
def test_a_launch_without_a_required_claim_is_refused(platform, course, claim, shown):
    done = launch(platform, drop=[claim])
    assert_refused(done.response, "claim-missing", claim=shown)
    assert nothing_recorded()


@pytest.mark.parametrize(
    "claims, code, shown",
    [
        ({LTI + "version": "1.1.0"}, "version", "version"),
        ({LTI + "message_type": "DataPrivacyLaunchRequest"}, "message-type", "message_type"),
        ({LTI + "roles": "Learner"}, "claim-form", "roles"),
        ({LTI + "roles": [{"role": "Learner"}]}, "claim-form", "roles"),
        ({LTI + "deployment_id": "d" * 256}, "claim-form", "deployment_id"),
        ({LTI + "deployment_id": "déploiement"}, "claim-form", "deployment_id"),
        ({LTI + "resource_link": {"title": "no id"}}, "claim-missing", "resource_link id"),
        ({LTI + "context": {"id": "c", "title": "t" * 501}}, "claim-form", "context title"),
        ({"given_name": ["Ada"]}, "claim-form", "given_name"),
        ({LTI + "target_link_uri": "https://evil.example/phish"}, "target", "target_link_uri"),
        ({"iat": "yesterday"}, "claim-form", "iat"),
    ],
)
def test_a_claim_of_the_wrong_form_is_refused(platform, course, claims, code, shown):
    assert_refused(launch(platform, claims=claims).response, code, claim=shown)
    assert nothing_recorded()


def test_azp_naming_another_client_is_refused(platform, course):
    assert_refused(launch(platform, claims={"azp": "another-tool"}).response, "azp", claim="azp")
    assert nothing_recorded()


def test_an_audience_array_with_our_client_id_second_is_accepted(platform, course):
    quiz = make_quiz(course)
    done = launch(
        platform,
        custom={"quiz": quiz.slug},
        claims={"aud": ["another-tool", platform.client_id], "azp": platform.client_id},
    )
    assert done.response.status_code == 302, done.response.text[:300]
    assert done.response.headers["Location"] == quiz.get_absolute_url()


def test_several_audiences_without_azp_are_refused(platform, course):
    claims = {"aud": ["another-tool", platform.client_id]}
    done = launch(platform, claims=claims, drop=["azp"])
    assert_refused(done.response, "azp-required", claim="azp")


def test_an_audience_array_without_our_client_id_is_refused(platform, course):
    claims = {"aud": ["another-tool", "a-third"], "azp": platform.client_id}
    assert_refused(launch(platform, claims=claims).response, "audience", claim="aud")


@pytest.mark.parametrize("seconds", [3, 20, 55])
def test_a_platform_clock_a_little_ahead_still_launches(platform, course, seconds):
    assert launch(platform, clock=seconds).response.status_code == 302


def test_a_platform_clock_a_minute_and_more_ahead_is_refused_with_the_reason(
    platform, course, caplog
):
    with caplog.at_level(logging.WARNING, logger="lti"):
        done = launch(platform, clock=90)
    assert_refused(done.response, "not-yet-valid", claim="iat")
    assert "clock is ahead" in done.response.text and "NTP" in done.response.text
    assert any("LTI refused [not-yet-valid] iat:" in r.getMessage() for r in caplog.records)


def test_a_token_just_expired_is_within_the_leeway(platform, course):
    assert launch(platform, expires_in=-30).response.status_code == 302


def test_a_nonce_is_worth_nothing_with_another_logins_state(platform, course):
    """Two logins in one browser: the token of the first (its nonce) posted with the state of
    the second is refused, though both state cookies are there and both nonces were issued."""
    session = requests.Session()
    first = launch(platform, session=session, post=False)
    second = launch(platform, session=session, post=False)
    assert first.form["state"] != second.form["state"]
    response = session.post(
        second.form["launch_url"],
        data={"id_token": first.form["id_token"], "state": second.form["state"]},
        allow_redirects=False,
    )
    assert_refused(response, "nonce", claim="nonce")
    assert nothing_recorded()
    # The first login, answered properly, still works once.
    assert first.again().status_code == 302
    assert first.again().status_code == 403


def test_a_login_state_is_used_once_and_expires(platform, course):
    from datetime import timedelta

    from django.utils import timezone

    stale = launch(platform, post=False)
    LoginState.objects.filter(state=stale.form["state"]).update(
        created_at=timezone.now() - timedelta(minutes=11)
    )
    assert_refused(stale.again(), "state-unknown", claim="state")
    done = launch(platform)
    assert done.response.status_code == 302
    assert_refused(done.again(), "state-used", status=403, claim="state")


def test_a_state_from_another_browser_is_refused(platform, course):
    done = launch(platform, post=False)
    other_browser = requests.post(
        done.form["launch_url"],
        data={"id_token": done.form["id_token"], "state": done.form["state"]},
        allow_redirects=False,
    )
    assert_refused(other_browser, "state-cookie", claim="state")
    assert nothing_recorded()


def test_a_state_issued_for_another_platform_is_refused(platform, live_server, course):
    from lti.demo_platform import DemoPlatform
    from lti.tool import register_platform

    other = DemoPlatform(live_server.url, client_id="second-tool").start(poll_interval=0.02)
    try:
        register_platform(**other.registration_args())
        session = requests.Session()
        ours = launch(platform, session=session, post=False)
        theirs = launch(other, session=session, post=False)
        response = session.post(
            ours.form["launch_url"],
            data={"id_token": theirs.form["id_token"], "state": ours.form["state"]},
            allow_redirects=False,
        )
        assert_refused(response, "state-platform", claim="iss")
    finally:
        other.stop()


def test_logins_nobody_finished_are_pruned_and_used_ones_kept_a_day(platform, course):
    from datetime import timedelta

    from django.utils import timezone

    abandoned = launch(platform, post=False).form["state"]
    used = launch(platform)
    assert used.response.status_code == 302
    LoginState.objects.filter(state=abandoned).update(
        created_at=timezone.now() - timedelta(minutes=21)
    )
    LoginState.objects.filter(state=used.form["state"]).update(
        created_at=timezone.now() - timedelta(hours=23)
    )
    launch(platform, post=False)  # the next login prunes
    assert not LoginState.objects.filter(state=abandoned).exists()
    assert_refused(used.again(), "state-used", status=403)

"""Launches from the independent platform over real HTTP: sign-in, roles, landing, refusals."""

from __future__ import annotations

import base64
import json

import pytest
import requests
from django.contrib.auth import get_user_model
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration, LtiUser

from courseware.models import Enrollment
from lti.launch import username_for
from lti.models import UsedNonce
from tests.factories import OFFERING, ChapterFactory, UserFactory, make_quiz
from tests.lti.conftest import assert_refused, launch

pytestmark = pytest.mark.django_db(transaction=True)

DEPLOYMENT = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"


def counts():
    return (
        get_user_model().objects.count(),
        LtiUser.objects.count(),
        LtiContext.objects.count(),
        Enrollment.objects.count(),
        LtiDeployment.objects.count(),
    )


def test_learner_launch_signs_in_by_issuer_and_sub_and_lands_on_the_quiz(platform, course):
    quiz = make_quiz(course)
    # Someone already here with the launch's e-mail address: never matched on it.
    UserFactory(username="ada", email="ada@example.edu")
    done = launch(platform, user="student-ada", email="ada@example.edu", custom={"quiz": quiz.slug})
    assert done.response.status_code == 302, done.response.text[:300]
    assert done.response.headers["Location"] == f"/o/{OFFERING}/quizzes/{quiz.slug}/"
    registration = LtiRegistration.objects.get(issuer=platform.issuer)
    user = get_user_model().objects.get(username=username_for(registration, "student-ada"))
    assert user.email == "ada@example.edu" and not user.has_usable_password()
    assert Enrollment.objects.get(user=user, offering__slug=OFFERING).role == "student"
    page = done.session.get(platform.tool_url + done.response.headers["Location"])
    assert page.status_code == 200 and quiz.title in page.text
    # The same person launching again is the same account.
    again = launch(platform, session=requests.Session(), user="student-ada")
    assert again.response.status_code == 302
    assert LtiUser.objects.get(sub="student-ada").auth_user == user


def test_instructor_launch_on_a_chapter_link(platform, course):
    chapter = ChapterFactory(part__course=course)
    done = launch(
        platform, user="teacher-grace", roles=("Instructor",), custom={"chapter": chapter.slug}
    )
    assert done.response.headers["Location"] == chapter.get_absolute_url()
    user = LtiUser.objects.get(sub="teacher-grace").auth_user
    assert Enrollment.objects.get(user=user).role == "instructor"


def refused(done, status, text):
    assert done.response.status_code == status, done.response.text[:300]
    assert text in done.response.text
    assert "Traceback" not in done.response.text


def test_replayed_id_token_is_refused(platform, course):
    done = launch(platform, user="student-ada")
    assert done.response.status_code == 302
    before = counts()
    replay = done.again()
    assert replay.status_code == 403 and "already used" in replay.text
    assert counts() == before
    assert UsedNonce.objects.count() == 1


def test_wrong_audience_is_refused_and_creates_nothing(platform, course):
    before = counts()
    done = launch(platform, claims={"aud": "someone-else", "azp": "someone-else"})
    assert_refused(done.response, "registration", claim="iss")
    assert counts() == before


def test_expired_token_is_refused(platform, course):
    before = counts()
    assert_refused(launch(platform, expires_in=-120).response, "expired", claim="exp")
    assert counts() == before


def test_wrong_signature_is_refused(platform, course):
    done = launch(platform, user="student-ada")
    header, payload, signature = done.form["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "teacher-grace"  # a forged identity under the platform's real signature
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    before = counts()
    # A new login (the first one's state is used), carrying the forged token.
    second = launch(platform, session=requests.Session(), user="student-ada", post=False)
    response = second.again(id_token=f"{header}.{forged}.{signature}")
    assert_refused(response, "signature", claim="signature")
    assert counts() == before


def test_unknown_deployment_is_refused_and_not_recorded(platform, course):
    before = counts()
    done = launch(platform, claims={DEPLOYMENT: "deployment-unknown"})
    assert_refused(done.response, "deployment", claim="deployment_id")
    assert counts() == before
    assert not LtiDeployment.objects.filter(deployment_id="deployment-unknown").exists()


def test_unknown_issuer_at_login_gets_a_clear_page(platform, course):
    response = requests.get(
        platform.tool_url + "/lti/login/",
        params={
            "iss": "https://evil.example",
            "login_hint": "x",
            "target_link_uri": "https://evil.example",
        },
        allow_redirects=False,
    )
    assert_refused(response, "login-unknown", claim="iss")


def test_launch_without_state_cookie_is_refused(platform, course):
    done = launch(platform, user="student-ada")
    response = requests.post(
        done.form["launch_url"],
        data={"id_token": done.form["id_token"], "state": "state-forged"},
        allow_redirects=False,
    )
    assert_refused(response, "state-unknown", claim="state")


def test_a_role_we_do_not_have_is_refused_and_creates_nothing(platform, course):
    before = counts()
    refused(launch(platform, roles=("Mentor",)), 403, "has no place here")
    assert counts() == before


def test_link_to_a_missing_quiz_is_refused_and_creates_nothing(platform, course):
    before = counts()
    refused(launch(platform, custom={"quiz": "no-such-quiz"}), 403, "not (or no longer) here")
    assert counts() == before


def test_login_redirects_to_our_launch_url_whatever_target_it_is_sent(platform, course):
    response = requests.get(
        platform.tool_url + "/lti/login/",
        params={
            "iss": platform.issuer,
            "client_id": platform.client_id,
            "login_hint": "student-ada",
            "target_link_uri": "https://evil.example/steal",
        },
        allow_redirects=False,
    )
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(f"{platform.url}/auth?")
    assert "evil.example" not in location
    assert requests.utils.quote(platform.tool_url + "/lti/launch/", safe="") in location


def test_garbage_and_missing_tokens_get_the_refusal_page(platform, course):
    for data in ({"id_token": "not.a.jwt", "state": "x"}, {"state": "x"}, {}):
        response = requests.post(platform.tool_url + "/lti/launch/", data=data)
        assert response.status_code == 400 and "This launch was refused" in response.text
    # With a real login's state and cookie, the garbage token itself is what is refused.
    done = launch(platform, user="student-ada")
    second = launch(platform, session=requests.Session(), user="student-ada", post=False)
    assert_refused(second.again(id_token="not.a.jwt"), "token-format", claim="id_token")
    assert done.response.status_code == 302
    assert requests.get(platform.tool_url + "/lti/launch/").status_code == 405


def test_old_used_nonces_are_pruned_and_a_recent_one_kept(platform, course):
    from datetime import timedelta

    from django.utils import timezone

    old = UsedNonce.objects.create(issuer=platform.issuer, nonce="old")
    UsedNonce.objects.filter(pk=old.pk).update(used_at=timezone.now() - timedelta(days=3))
    UsedNonce.objects.create(issuer=platform.issuer, nonce="recent")
    assert launch(platform).response.status_code == 302
    assert sorted(n for n in UsedNonce.objects.values_list("nonce", flat=True) if len(n) < 10) == [
        "recent"
    ]


def test_a_local_account_holding_the_derived_name_is_never_taken_over(platform, course):
    name = username_for(LtiRegistration.objects.get(issuer=platform.issuer), "student-ada")
    local = UserFactory(username=name)
    assert local.has_usable_password()
    done = launch(platform, user="student-ada")
    assert done.response.status_code == 302
    linked = LtiUser.objects.get(sub="student-ada").auth_user
    assert linked != local and linked.username.startswith(name + "-")
    assert not Enrollment.objects.filter(user=local).exists()


def test_inactive_registration_or_deployment_is_refused(platform, course):
    from lti_tool.models import LtiRegistration

    LtiDeployment.objects.update(is_active=False)
    before = counts()
    assert_refused(launch(platform).response, "deployment")
    LtiDeployment.objects.update(is_active=True)
    LtiRegistration.objects.update(is_active=False)
    response = requests.get(platform.start_url(), allow_redirects=True)
    assert_refused(response, "login-unknown")
    assert counts() == before

"""An account made by an LTI launch has no password here: the header offers no "Password" link,
and the password-change page says where that account signs in, changing nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from lti.launch import new_account
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

LINK = f'href="{reverse("password_change")}"'


@pytest.fixture
def lti_user(course):
    from lti_tool.models import LtiRegistration

    registration = LtiRegistration(issuer="https://lms.example.edu", client_id="tool")
    return new_account(registration, "sub-42")


def test_the_header_offers_the_password_link_only_to_accounts_with_a_password(
    client, course, student, lti_user
):
    client.login(username=student.username, password=PASSWORD)
    assert LINK in client.get(reverse("courseware:home")).content.decode()
    client.force_login(lti_user)
    html = client.get(reverse("courseware:home")).content.decode()
    assert LINK not in html and "Log out" in html


def test_the_password_page_explains_kindly_to_an_lti_account_and_changes_nothing(client, lti_user):
    client.force_login(lti_user)
    page = client.get(reverse("password_change"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "No password to change" in html and "learning platform" in html
    assert "old_password" not in html
    posted = client.post(
        reverse("password_change"),
        {"old_password": "", "new_password1": "Fresh-pass-9", "new_password2": "Fresh-pass-9"},
    )
    assert posted.status_code == 200 and "No password to change" in posted.content.decode()
    lti_user.refresh_from_db()
    assert not lti_user.has_usable_password()


def test_an_account_with_a_password_still_gets_the_form(client, student):
    client.login(username=student.username, password=PASSWORD)
    html = client.get(reverse("password_change")).content.decode()
    assert 'name="old_password"' in html

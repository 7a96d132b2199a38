"""Passwords without a shell (issue 27, item 5), attacked: an instructor's one-time set-password
link (shown once, kept only as a hash, refused for staff and for other offerings' students,
spent once, expiring, replaced by a newer one, guessed tokens throttled) and reset by e-mail
(throttled, the same answer for unknown addresses, its link never following the Host header).
Every step leaves an audit event."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from courseware import passwords
from courseware.models import AuditAction, AuditEvent, PasswordLink
from tests.factories import (
    OFFERING,
    PASSWORD,
    EnrollmentFactory,
    OfferingFactory,
    UserFactory,
    site_role,
)

pytestmark = pytest.mark.django_db
User = get_user_model()
NEW_PASSWORD = "a-brand-new-passphrase-77"


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


def _issue(client, user, offering_slug=OFFERING):
    return client.post(reverse("instructor:password_link", args=[offering_slug, user.pk]))


def _link_of(response) -> str:
    found = re.search(r'id="password-link" value="([^"]+)"', response.content.decode())
    assert found, "the page shows the link"
    return found.group(1)


def _path(link: str) -> str:
    return "/" + link.split("://", 1)[1].split("/", 1)[1]


def _use(client, link: str, password: str = NEW_PASSWORD):
    opened = client.get(_path(link))
    if opened.status_code != 302:
        return opened
    return client.post(
        reverse("password_link_form"),
        {"new_password1": password, "new_password2": password},
    )


def _url(name, args) -> str:
    return "http://testserver" + reverse(name, args=args)


def _can_log_in(user, password=NEW_PASSWORD) -> bool:
    from django.test import Client

    return Client().login(username=user.username, password=password)


# ---------------------------------------------------------------- the link, as meant


def test_a_link_is_shown_once_kept_only_as_a_hash_and_sets_the_password_once(
    teacher, client, student
):
    response = _issue(teacher, student)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    link = _link_of(response)
    token = link.rstrip("/").rsplit("/", 1)[1]
    stored = PasswordLink.objects.get(user=student)
    assert stored.token_hash == passwords.token_hash(token) and token not in stored.token_hash
    assert len(token) >= 40  # 256 random bits
    # The link is nowhere else: not in the roster page, the messages or the audit trail.
    roster = teacher.get(reverse("instructor:roster", args=[OFFERING])).content.decode()
    assert token not in roster
    assert not AuditEvent.objects.filter(detail__contains=token).exists()

    teacher.logout()
    opened = client.get(_path(link))
    # The token leaves the address at once (no history, no Referer).
    assert opened.status_code == 302 and token not in opened["Location"]
    form = client.get(opened["Location"])
    assert student.username in form.content.decode()
    done = client.post(
        reverse("password_link_form"),
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done["Location"] == reverse("login")
    assert _can_log_in(student)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {AuditAction.PASSWORD_LINK_ISSUED, AuditAction.PASSWORD_SET} <= actions


def test_a_weak_password_is_refused_with_a_reason_and_the_link_still_works(
    client, student, offering, instructor
):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    client.get(reverse("password_link", args=[token]))
    response = client.post(
        reverse("password_link_form"), {"new_password1": "12345678", "new_password2": "12345678"}
    )
    assert response.status_code == 200
    assert "too common" in response.content.decode()
    assert not PasswordLink.objects.get(user=student).used_at
    assert _use(client, _url("password_link", [token])).status_code == 302
    assert _can_log_in(student)


# ---------------------------------------------------------------- takeover attempts


def test_a_spent_link_cannot_be_used_again(client, student, offering, instructor):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    link = _url("password_link", [token])
    assert _use(client, link).status_code == 302
    again = _use(client, link, "another-passphrase-88")
    assert again.status_code == 404 and "cannot be used" in again.content.decode()
    assert _can_log_in(student) and not _can_log_in(student, "another-passphrase-88")
    assert AuditEvent.objects.filter(action=AuditAction.PASSWORD_LINK_BAD).exists()


def test_an_expired_link_is_refused(client, student, offering, instructor):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    PasswordLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = _use(client, _url("password_link", [token]))
    assert response.status_code == 404
    assert not _can_log_in(student)


def test_a_link_that_expires_between_opening_and_posting_is_refused(
    client, student, offering, instructor
):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    client.get(reverse("password_link", args=[token]))
    PasswordLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client.post(
        reverse("password_link_form"),
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 404
    assert not _can_log_in(student)


def test_a_newer_link_replaces_the_older(client, student, offering, instructor):
    old = passwords.issue_link(offering=offering, student=student, by=instructor)
    passwords.issue_link(offering=offering, student=student, by=instructor)
    assert _use(client, _url("password_link", [old])).status_code == 404
    assert not _can_log_in(student)


def test_no_link_for_another_offerings_student(teacher, course):
    elsewhere = OfferingFactory(course=course, slug="other-term")
    stranger = EnrollmentFactory(offering=elsewhere, role="student").user
    response = _issue(teacher, stranger)
    assert response.status_code == 404  # not a student here: not even named
    assert not PasswordLink.objects.exists()


def test_no_link_for_a_student_also_enrolled_where_the_instructor_does_not_teach(
    teacher, course, student
):
    elsewhere = OfferingFactory(course=course, slug="other-term")
    EnrollmentFactory(offering=elsewhere, role="student", user=student)
    response = _issue(teacher, student)
    assert response.status_code == 302
    assert not PasswordLink.objects.exists()
    refused = AuditEvent.objects.get(action=AuditAction.PASSWORD_LINK_REFUSED)
    assert "offering you do not teach" in refused.detail


@pytest.mark.parametrize("kind", ["superuser", "staff", "author", "ta_elsewhere"])
def test_no_link_for_a_staff_account_enrolled_as_a_student(teacher, course, offering, kind):
    target = EnrollmentFactory(offering=offering, role="student").user
    if kind == "superuser":
        User.objects.filter(pk=target.pk).update(is_superuser=True, is_staff=True)
    elif kind == "staff":
        User.objects.filter(pk=target.pk).update(is_staff=True)
    elif kind == "author":
        site_role(target, "author")
    else:
        EnrollmentFactory(
            offering=OfferingFactory(course=course, slug="lab-term"), role="ta", user=target
        )
    response = teacher.post(reverse("instructor:password_link", args=[OFFERING, target.pk]))
    assert response.status_code == 302
    assert not PasswordLink.objects.exists()
    assert AuditEvent.objects.filter(action=AuditAction.PASSWORD_LINK_REFUSED).count() == 1


def test_no_link_for_the_offerings_staff(teacher, assistant, instructor):
    for member in (assistant, instructor):
        assert _issue(teacher, member).status_code == 404
    assert not PasswordLink.objects.exists()


def test_a_link_dies_when_its_student_becomes_staff_after_it_was_issued(
    client, student, offering, instructor
):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    User.objects.filter(pk=student.pk).update(is_staff=True)
    assert _use(client, _url("password_link", [token])).status_code == 404
    assert not _can_log_in(student)


def test_a_teaching_assistant_makes_no_link(client, assistant, student):
    client.login(username=assistant.username, password=PASSWORD)
    assert _issue(client, student).status_code == 403
    assert not PasswordLink.objects.exists()


def test_guessed_tokens_are_throttled_and_then_even_a_good_one_waits(
    client, student, offering, instructor
):
    token = passwords.issue_link(offering=offering, student=student, by=instructor)
    for attempt in range(passwords.BAD_TOKEN_LIMIT):
        guess = client.get(reverse("password_link", args=[f"guess-{attempt}-{'x' * 30}"]))
        assert guess.status_code == 404
    blocked = client.get(reverse("password_link", args=[token]))
    assert blocked.status_code == 404 and "Too many unusable links" in blocked.content.decode()
    # Past the limit the tries are not recorded one by one (the audit trail cannot be flooded).
    for _ in range(5):
        client.get(reverse("password_link", args=["more-" + "y" * 40]))
    assert (
        AuditEvent.objects.filter(action=AuditAction.PASSWORD_LINK_BAD).count()
        == passwords.BAD_TOKEN_LIMIT
    )


def test_the_link_form_without_an_opened_link_refuses(client):
    response = client.post(
        reverse("password_link_form"),
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 404


def test_an_instructor_makes_a_bounded_number_of_links_an_hour(offering, instructor, student):
    from django.core.exceptions import ValidationError

    for _ in range(passwords.ISSUE_LIMIT):
        passwords.issue_link(offering=offering, student=student, by=instructor)
    with pytest.raises(ValidationError, match="wait a while"):
        passwords.issue_link(offering=offering, student=student, by=instructor)


def test_the_instructors_link_names_the_sites_address_not_the_requests_host(
    teacher, student, settings
):
    settings.SITE_URL = "https://quiz.example.edu"
    settings.ALLOWED_HOSTS = ["testserver", "evil.example"]
    response = teacher.post(
        reverse("instructor:password_link", args=[OFFERING, student.pk]),
        HTTP_HOST="evil.example",
    )
    assert _link_of(response).startswith("https://quiz.example.edu/accounts/set-password/")


# ---------------------------------------------------------------- reset by e-mail


@pytest.fixture
def mail_on(settings):
    settings.PASSWORD_RESET_BY_EMAIL = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://quiz.example.edu"


def test_a_student_resets_their_own_password_by_email(client, mail_on, student):
    User.objects.filter(pk=student.pk).update(email="me@example.edu")
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page
    response = client.post(reverse("password_reset"), {"email": "me@example.edu"})
    assert response.status_code == 302
    (message,) = mail.outbox
    link = re.search(r"https://quiz\.example\.edu(/accounts/reset/\S+)", message.body).group(1)
    opened = client.get(link)
    assert opened.status_code == 302  # Django swaps the token for the session's
    done = client.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert _can_log_in(student)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {AuditAction.PASSWORD_RESET_MAILED, AuditAction.PASSWORD_RESET_DONE} <= actions
    # The reset link works once.
    assert "cannot be used" in client.get(link, follow=True).content.decode()


@pytest.mark.parametrize(
    "headers",
    [{"HTTP_HOST": "evil.example"}, {"HTTP_X_FORWARDED_HOST": "evil.example"}],
)
def test_the_reset_mail_never_links_to_the_host_a_request_names(
    client, mail_on, student, settings, headers
):
    settings.ALLOWED_HOSTS = ["testserver", "evil.example"]
    User.objects.filter(pk=student.pk).update(email="me@example.edu")
    client.post(reverse("password_reset"), {"email": "me@example.edu"}, **headers)
    (message,) = mail.outbox
    assert "evil.example" not in message.body
    assert "https://quiz.example.edu/accounts/reset/" in message.body


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, mail_on, student):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.edu"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_reset_mails_are_throttled_per_address_and_per_email(client, mail_on, student):
    User.objects.filter(pk=student.pk).update(email="me@example.edu")
    for _ in range(passwords.RESET_LIMIT + 3):
        response = client.post(reverse("password_reset"), {"email": "me@example.edu"})
        assert response.status_code == 302  # the same answer, whether sent or not
    assert len(mail.outbox) == passwords.RESET_LIMIT
    # Another requester asking for the same address is held by the per-e-mail limit.
    from django.test import Client

    Client(REMOTE_ADDR="10.9.8.7").post(reverse("password_reset"), {"email": "me@example.edu"})
    assert len(mail.outbox) == passwords.RESET_LIMIT


def test_a_forged_reset_token_sets_nothing(client, mail_on, student):
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    uid = urlsafe_base64_encode(force_bytes(student.pk))
    response = client.get(f"/accounts/reset/{uid}/abc-0123456789abcdef/", follow=True)
    assert "cannot be used" in response.content.decode()
    assert not _can_log_in(student)


def test_a_roster_student_with_no_password_yet_may_reset_but_an_lms_account_may_not(
    client, mail_on, offering, instructor
):
    from lti_tool.models import LtiRegistration, LtiUser

    from courseware.roster import add_student

    fresh, _ = add_student(
        offering=offering, by=instructor, username="fresh", email="fresh@example.edu"
    )
    assert not fresh.has_usable_password()
    client.post(reverse("password_reset"), {"email": "fresh@example.edu"})
    assert len(mail.outbox) == 1 and "fresh" in mail.outbox[0].body
    launched = UserFactory(email="lms@example.edu")
    launched.set_unusable_password()
    launched.save()
    registration = LtiRegistration.objects.create(
        name="LMS", issuer="https://lms.example", client_id="c1"
    )
    LtiUser.objects.create(registration=registration, sub="42", auth_user=launched)
    client.post(reverse("password_reset"), {"email": "lms@example.edu"})
    assert len(mail.outbox) == 1

"""The roster without a shell (issue 27, item 4): add one student, a roster file of 300 previewed
with its errors by line and applied only when confirmed (the same file again changes nothing),
deactivate (work kept, hidden on request), change a role, and groups."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from courseware.models import AuditEvent, Enrollment, GroupMembership, Role, StudentGroup
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, OfferingFactory, UserFactory
from tests.quizzes.test_instructor_helpers import make_quiz, submitted_attempt

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


def _upload(client, text: str | bytes, name="roster.csv"):
    data = text.encode() if isinstance(text, str) else text
    return client.post(
        reverse("instructor:roster_upload", args=[OFFERING]),
        {"file": SimpleUploadedFile(name, data, content_type="text/csv")},
        follow=True,
    )


def _confirm(client, response):
    plan = response.context["plan"]
    return client.post(
        reverse("instructor:roster_confirm", args=[OFFERING]),
        {"text": response.context["text"], "digest": plan.digest},
        follow=True,
    )


def _class_file(n=300, *, group=True) -> str:
    lines = ["username,name,email" + (",group" if group else "")]
    for i in range(n):
        row = f"s{i:03d},Stu Dent{i:03d},s{i:03d}@example.edu"
        lines.append(row + (f",Section {1 + i % 3}" if group else ""))
    return "\r\n".join(lines) + "\r\n"


def _counts():
    return User.objects.count(), Enrollment.objects.count(), GroupMembership.objects.count()


def test_a_file_of_300_is_previewed_then_applied_and_the_same_file_again_changes_nothing(
    teacher, offering
):
    text = _class_file()
    before = _counts()
    preview = _upload(teacher, text)
    assert preview.status_code == 200 and _counts() == before  # nothing yet
    html = preview.content.decode()
    assert "Nothing has changed yet." in html and "Apply these changes" in html
    assert preview.context["counts"]["new"] == 300
    applied = _confirm(teacher, preview)
    assert "Roster updated: 300 new account(s)" in applied.content.decode()
    students = Enrollment.objects.filter(offering=offering, role=Role.STUDENT)
    assert students.count() == 300
    assert not User.objects.get(username="s007").has_usable_password()
    assert User.objects.get(username="s007").last_name == "Dent007"
    assert {g.name for g in StudentGroup.objects.filter(offering=offering)} == {
        "Section 1",
        "Section 2",
        "Section 3",
    }
    assert GroupMembership.objects.count() == 300
    after = _counts()
    audit = AuditEvent.objects.count()
    again = _upload(teacher, text)
    assert "Nothing to change: the roster already matches this file." in again.content.decode()
    assert "Apply these changes" not in again.content.decode()
    _confirm(teacher, again)
    assert _counts() == after and AuditEvent.objects.count() == audit


def test_errors_are_listed_by_line_and_nothing_is_applied(teacher, offering):
    text = (
        "username,name,email\n"
        "ada,Ada Lovelace,ada@example.edu\n"
        "bad name!,Bad Name,bad@example.edu\n"
        "ada,Ada Again,ada2@example.edu\n"
        "grace,Grace Hopper,not-an-address\n"
        ",No Username,none@example.edu\n"
        "alan,Alan Turing,alan@example.edu,extra\n"
    )
    before = _counts()
    preview = _upload(teacher, text)
    html = preview.content.decode()
    errors = {line.number: " ".join(line.errors) for line in preview.context["plan"].errors}
    assert set(errors) == {3, 4, 5, 6, 7}
    assert "is not a username" in errors[3]
    assert "also on line 2" in errors[4]
    assert "is not an e-mail address" in errors[5]
    assert "Give a username" in errors[6]
    assert "stray comma" in errors[7]
    assert "Apply these changes" not in html and "<strong>Line 5</strong>" in html
    # Even a forged confirmation of this file changes nothing.
    forged = teacher.post(
        reverse("instructor:roster_confirm", args=[OFFERING]),
        {"text": text, "digest": preview.context["plan"].digest},
    )
    assert forged.status_code == 409 and _counts() == before


@pytest.mark.parametrize(
    "data, message",
    [
        ("username;name;email\nx;y;z".encode("utf-16"), "not UTF-8"),
        (b"name,email\nAda,ada@example.edu\n", "must name the columns"),
        (b"", "empty"),
        (b"username,name,email\nx,\x00,y\n", "NUL"),
        (b"username,name,email\n" + b"u,n,e@example.edu\n" * 5001, "more than 5,000"),
    ],
)
def test_a_file_that_cannot_be_read_says_why(teacher, data, message):
    before = _counts()
    html = _upload(teacher, data).content.decode()
    assert "The roster file was not read." in html and message in html
    assert _counts() == before


def test_a_confirmation_of_a_roster_that_changed_since_the_preview_is_refused(teacher, offering):
    preview = _upload(teacher, "username,name,email\nada,Ada Lovelace,ada@example.edu\n")
    UserFactory(username="ada", first_name="Someone", last_name="Else")
    reply = _confirm(teacher, preview)
    assert "The roster changed since the preview" in reply.content.decode()
    assert not Enrollment.objects.filter(user__username="ada").exists()


def test_an_existing_account_is_enrolled_but_keeps_its_name_and_email(teacher, offering, course):
    other = OfferingFactory(slug="other", course=course)
    grace = EnrollmentFactory(
        offering=other, user__username="grace", user__email="grace@navy.mil"
    ).user
    preview = _upload(teacher, "username,name,email\ngrace,Evil Name,evil@example.com\n")
    assert "its name and e-mail are its own" in preview.content.decode()
    _confirm(teacher, preview)
    grace.refresh_from_db()
    assert grace.email == "grace@navy.mil" and grace.first_name != "Evil"
    assert Enrollment.objects.filter(user=grace, offering=offering).exists()


def test_a_later_file_updates_the_name_and_email_of_this_offerings_own_student(teacher, offering):
    _confirm(teacher, _upload(teacher, "username,name,email\nada,Ada King,ada@old.edu\n"))
    preview = _upload(
        teacher, "username,first_name,last_name,email\nada,Ada,Lovelace,ada@new.edu\n"
    )
    assert preview.context["counts"]["update"] == 1
    _confirm(teacher, preview)
    ada = User.objects.get(username="ada")
    assert (ada.last_name, ada.email) == ("Lovelace", "ada@new.edu")


def test_one_student_is_added_with_no_password_and_recorded(teacher, offering, instructor):
    reply = teacher.post(
        reverse("instructor:roster_add", args=[OFFERING]),
        {"username": "newbie", "first_name": "New", "last_name": "Bie", "email": "n@example.edu"},
        follow=True,
    )
    assert "newbie: a new account, enrolled as a student." in reply.content.decode()
    newbie = User.objects.get(username="newbie")
    assert not newbie.has_usable_password()
    event = AuditEvent.objects.get(action="student_added")
    assert (event.actor, event.subject, event.offering) == (instructor, newbie, offering)
    again = teacher.post(reverse("instructor:roster_add", args=[OFFERING]), {"username": "NEWBIE"})
    assert again.status_code == 400 and "already a student" in again.content.decode()


def test_a_deactivated_student_keeps_their_work_but_no_longer_opens_the_offering(
    client, teacher, offering, course
):
    quiz, items = make_quiz(course)
    ada = EnrollmentFactory(offering=offering, user__username="ada").user
    attempt = submitted_attempt(quiz, ada, {items[0]: 1.0})
    enrollment = Enrollment.objects.get(user=ada, offering=offering)
    teacher.post(
        reverse("instructor:roster_status", args=[OFFERING, enrollment.pk]), {"active": "0"}
    )
    enrollment.refresh_from_db()
    assert not enrollment.is_active
    student = type(client)()
    student.login(username="ada", password=PASSWORD)
    assert student.get(reverse("quizzes:quiz_list", args=[OFFERING])).status_code == 403
    attempt.refresh_from_db()
    assert attempt.score is not None
    book = teacher.get(reverse("instructor:gradebook", args=[OFFERING])).content.decode()
    assert "deactivated" in book
    teacher.post(
        reverse("instructor:roster_status", args=[OFFERING, enrollment.pk]), {"active": "1"}
    )
    assert student.get(reverse("quizzes:quiz_list", args=[OFFERING])).status_code == 200


def test_roles_change_but_never_ones_own_nor_the_last_instructor(teacher, offering, instructor):
    ada = EnrollmentFactory(offering=offering, user__username="ada")
    teacher.post(reverse("instructor:roster_role", args=[OFFERING, ada.pk]), {"role": "ta"})
    ada.refresh_from_db()
    assert ada.role == Role.TEACHING_ASSISTANT
    mine = Enrollment.objects.get(user=instructor, offering=offering)
    reply = teacher.post(
        reverse("instructor:roster_role", args=[OFFERING, mine.pk]),
        {"role": "student"},
        follow=True,
    )
    assert "cannot change your own role" in reply.content.decode()
    mine.refresh_from_db()
    assert mine.role == Role.INSTRUCTOR
    teacher.post(reverse("instructor:roster_role", args=[OFFERING, ada.pk]), {"role": "bogus"})
    ada.refresh_from_db()
    assert ada.role == Role.TEACHING_ASSISTANT


def test_groups_are_made_filled_and_emptied_from_the_roster(teacher, offering):
    ada = EnrollmentFactory(offering=offering).user
    bob = EnrollmentFactory(offering=offering).user
    teacher.post(
        reverse("instructor:group_create", args=[OFFERING]), {"name": "Lab B", "kind": "lab"}
    )
    group = StudentGroup.objects.get(name="Lab B")
    assert group.kind == "lab"
    dup = teacher.post(
        reverse("instructor:group_create", args=[OFFERING]), {"name": "Lab B", "kind": "lab"}
    )
    assert dup.status_code == 400 and "already" in dup.content.decode()
    url = reverse("instructor:group_members", args=[OFFERING])
    teacher.post(url, {"group": group.pk, "students": [ada.pk, bob.pk], "action": "add"})
    assert set(group.members.all()) == {ada, bob}
    teacher.post(url, {"group": group.pk, "students": [bob.pk], "action": "remove"})
    assert set(group.members.all()) == {ada}
    teacher.post(reverse("instructor:group_delete", args=[OFFERING, group.pk]))
    assert not StudentGroup.objects.exists()


def test_another_offerings_people_and_groups_are_not_found(teacher, course):
    other = OfferingFactory(slug="other", course=course)
    theirs = EnrollmentFactory(offering=other)
    their_group = StudentGroup.objects.create(offering=other, name="Theirs")
    mine = EnrollmentFactory(course=course).user
    for name, args, data in (
        ("instructor:roster_status", [theirs.pk], {"active": "0"}),
        ("instructor:roster_role", [theirs.pk], {"role": "ta"}),
        ("instructor:group_delete", [their_group.pk], {}),
        ("instructor:group_members", [], {"group": their_group.pk, "students": [mine.pk]}),
        ("instructor:password_link", [theirs.user_id], {}),
    ):
        reply = teacher.post(reverse(name, args=[OFFERING, *args]), data)
        assert reply.status_code == 404, name
    theirs.refresh_from_db()
    assert theirs.is_active and theirs.role == "student" and StudentGroup.objects.count() == 1
    assert not GroupMembership.objects.exists()


def test_the_roster_page_lists_members_and_recent_changes(teacher, offering, assistant):
    EnrollmentFactory(offering=offering, user__username="ada", user__email="ada@example.edu")
    teacher.post(reverse("instructor:roster_add", args=[OFFERING]), {"username": "bob"})
    html = teacher.get(reverse("instructor:roster", args=[OFFERING])).content.decode()
    assert "ada@example.edu" in html and "Student added" in html and "Set-password link" in html
    searched = teacher.get(reverse("instructor:roster", args=[OFFERING]), {"q": "ada"})
    assert ">bob<" not in searched.content.decode()

"""Attack review of the terms the attempt pages read in their one query (`own_attempt` and
`student_part_view` hand the student's extension, group terms and time multiplier to
`remember_terms`) and of the whole-page memo they feed: a term that changes between requests
counts at the next one (timer, late saves and Checks, results), and remembered terms never
cross to another student. The review: /work/reviews/attack-own-attempt.md.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from courseware import roster
from courseware.models import GroupMembership, StudentGroup
from quizzes.models import (
    Attempt,
    AttemptStatus,
    Extension,
    LatePolicy,
    Quiz,
    ReleasePolicy,
    SavedAnswer,
)
from quizzes.services import attempts as service
from quizzes.services.availability import remember_terms, student_window
from quizzes.services.instructor import accommodations, grant_extension
from quizzes.services.instructor.quiz_settings import save_settings
from tests.factories import OFFERING, EnrollmentFactory, OfferingFactory, make_quiz
from tests.security.attempt_world import as_user, at, attempt_urls, warm

pytestmark = pytest.mark.django_db


# -- terms that change between requests: the page, the memo, the saves -----------------------

DEADLINE = re.compile(r'data-deadline="([^"]+)"')


def _deadline_shown(client, attempt) -> datetime:
    """The exam timer's deadline on the attempt page, read after a change (a stale memo would
    serve the page of before), then again from the memo."""
    return datetime.fromisoformat(DEADLINE.search(warm(client, attempt)).group(1))


@pytest.fixture
def timed_exam(course, student, monkeypatch):
    """A 30-minute exam started at t0 (its row's own clock too: `started_at`)."""
    t0 = timezone.now().replace(microsecond=0)
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    at(monkeypatch, t0)
    attempt = service.start_attempt(quiz=quiz, student=student, now=t0)
    assert attempt.started_at == t0
    return t0, quiz, attempt


def _autosave(client, attempt, text, sequence):
    variant = attempt.variants.get()
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    return client.post(url, {"answer": text, "sequence": str(sequence)}, HTTP_HX_REQUEST="true")


def test_an_extension_granted_then_revoked_moves_the_timer_and_refuses_the_late_save(
    timed_exam, student, instructor, monkeypatch
):
    t0, quiz, attempt = timed_exam
    client = as_user(student)
    at(monkeypatch, t0 + timedelta(minutes=5))
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30)
    extension = grant_extension(quiz=quiz, student=student, by=instructor, extra_minutes=30)
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=60)
    at(monkeypatch, t0 + timedelta(minutes=40))  # inside the extension only
    assert _autosave(client, attempt, "2 s", 1).status_code == 200
    assert SavedAnswer.objects.get().raw == "2 s"
    at(monkeypatch, t0 + timedelta(minutes=41))
    accommodations.remove_extension(extension=extension)  # back to 30 minutes: already past
    response = _autosave(client, attempt, "3 s", 2)
    assert "Time is up" in response.content.decode()
    assert response["HX-Redirect"].endswith("/results/")
    assert SavedAnswer.objects.get().raw == "2 s"  # the late text was not stored
    attempt.refresh_from_db()
    assert attempt.status == AttemptStatus.SUBMITTED
    assert attempt.submitted_at == t0 + timedelta(minutes=30)  # dated at the deadline
    # The page now sends the student to the results: no memoised open page is served.
    assert client.get(attempt.get_absolute_url()).status_code == 302


def test_an_accommodation_set_changed_and_removed_moves_the_timer(
    timed_exam, student, instructor, monkeypatch
):
    t0, quiz, attempt = timed_exam
    client = as_user(student)
    at(monkeypatch, t0 + timedelta(minutes=1))
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30)
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="1.5", student=student
    )
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=45)
    held = accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="2", student=student
    )
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=60)
    accommodations.remove_accommodation(accommodation=held)
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30)


def test_joining_and_leaving_a_group_moves_the_timer(timed_exam, student, instructor, monkeypatch):
    """A group's extra minutes and its time multiplier reach the member's page once they join
    and leave it once they leave (the roster page's two calls)."""
    t0, quiz, attempt = timed_exam
    client = as_user(student)
    at(monkeypatch, t0 + timedelta(minutes=1))
    group = StudentGroup.objects.create(offering=quiz.offering, name="Lab 3")
    accommodations.set_group_extension(quiz=quiz, group=group, by=instructor, extra_minutes=20)
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="1.5", group=group
    )
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30)

    def members(add):
        roster.set_members(group=group, user_ids=[student.pk], add=add, by=instructor)
        accommodations.members_changed(offering=quiz.offering, user_ids=[student.pk])

    members(True)
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30 * 1.5 + 20)
    members(False)
    assert _deadline_shown(client, attempt) == t0 + timedelta(minutes=30)
    assert not GroupMembership.objects.filter(user=student).exists()


def test_moving_the_due_date_or_an_extension_decides_when_results_show(
    course, student, instructor, monkeypatch
):
    """An exam whose results wait for the due date: the results page reads the student's due
    date in the attempt's own query, so a due date moved, an extension granted or revoked, a
    group's later date, each counts at the next request and never earlier."""
    now = timezone.now()
    quiz = make_quiz(
        course,
        mode="exam",
        release=ReleasePolicy.AFTER_DUE,
        due_at=now + timedelta(hours=1),
        closes_at=now + timedelta(days=2),
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    service.submit_attempt(attempt=attempt, student=student, now=now)
    client = as_user(student)
    results = reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])

    def released() -> bool:
        page = client.get(results)
        assert page.status_code == 200
        return "released after the due date" not in page.content.decode()

    assert not released()
    at(monkeypatch, now + timedelta(hours=2))
    assert released()  # the class's due date passed
    extension = grant_extension(
        quiz=quiz, student=student, by=instructor, due_at=now + timedelta(hours=3)
    )
    assert not released()  # this student's due date is later
    accommodations.remove_extension(extension=extension)
    assert released()
    group = StudentGroup.objects.create(offering=quiz.offering, name="Night section")
    GroupMembership.objects.create(group=group, user=student)
    accommodations.set_group_extension(
        quiz=quiz, group=group, by=instructor, due_at=now + timedelta(hours=3)
    )
    assert not released()  # their group's due date is later
    save_settings(quiz=quiz, fields={"due_at": now + timedelta(hours=4)}, by=instructor)
    assert not released()  # the quiz's own date moved later still
    at(monkeypatch, now + timedelta(hours=5))
    assert released()


def test_a_check_is_late_by_the_terms_of_its_own_request(course, student, instructor):
    """A homework Check reads the student's terms in the part's one query (its extension and
    its groups'): past the class's due date it is late unless their own or their group's
    date is later, and a revoked date counts at the next Check."""
    now = timezone.now()
    quiz = make_quiz(
        course,
        late_policy=LatePolicy.PENALTY,
        late_penalty=Decimal("0.5"),
        due_at=now - timedelta(hours=1),
        tries_per_variant=5,
    )
    extension = grant_extension(
        quiz=quiz, student=student, by=instructor, due_at=now + timedelta(days=1)
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    assert attempt.deadline is None  # no close date: the window decides at every Check
    client = as_user(student)
    url = attempt_urls(attempt.pk, attempt.variants.get().pk)[3][1]

    def check_is_late() -> bool:
        data = {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}
        assert client.post(url, data, HTTP_HX_REQUEST="true").status_code == 200
        return Attempt.objects.get(pk=attempt.pk).is_late

    assert not check_is_late()  # their own later due date
    accommodations.remove_extension(extension=extension)
    group = StudentGroup.objects.create(offering=quiz.offering, name="Late section")
    GroupMembership.objects.create(group=group, user=student)
    accommodations.set_group_extension(
        quiz=quiz, group=group, by=instructor, due_at=now + timedelta(days=1)
    )
    assert not check_is_late()  # their group's later due date
    GroupMembership.objects.filter(group=group).delete()
    assert check_is_late()  # the class's date, passed


# -- remembered terms stay with their request and their student ------------------------------


def test_two_students_in_one_process_each_see_their_own_terms(course, student, instructor):
    """Their requests alternate in one process (one test client each, the memo shared):
    each attempt page shows its own student's attempts allowed, never the other's."""
    quiz = make_quiz(course, max_attempts=1)
    other = EnrollmentFactory(course=course).user
    grant_extension(quiz=quiz, student=student, by=instructor, extra_attempts=2)
    now = timezone.now()
    mine = service.start_attempt(quiz=quiz, student=student, now=now)
    theirs = service.start_attempt(quiz=quiz, student=other, now=now)
    me, them = as_user(student), as_user(other)
    for _ in range(3):
        assert "allows you 3 attempts" in me.get(mine.get_absolute_url()).content.decode()
        assert "allows you 1 attempt." in them.get(theirs.get_absolute_url()).content.decode()


def test_remembered_terms_belong_to_one_quiz_object_and_one_student(
    course, student, instructor, django_assert_num_queries
):
    quiz = make_quiz(course, time_limit_minutes=30)
    other = EnrollmentFactory(course=course).user
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="2", student=student
    )
    remember_terms(quiz, student, None, None, Decimal(2))
    with django_assert_num_queries(0):
        assert student_window(quiz, student).total_minutes == 60
    with django_assert_num_queries(1):  # another student's terms are read, not borrowed
        assert student_window(quiz, other).total_minutes == 30
    fresh = type(quiz).objects.get(pk=quiz.pk)  # the next request's object: read again
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="1.25", student=student
    )
    with django_assert_num_queries(1):
        assert student_window(fresh, student).total_minutes == 38


def test_the_header_lists_the_offerings_of_this_request_not_of_the_kept_page(
    course, student, instructor
):
    """The warm page is keyed on the enrolments the role check read: joining another
    offering, being renamed in it, or leaving it shows at the next request."""
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = as_user(student)
    assert "Term B title" not in warm(client, attempt)
    other = OfferingFactory(course=course, slug="term-b", title="Term B title")
    joined = EnrollmentFactory(user=student, offering=other)
    assert "Term B title" in warm(client, attempt)
    type(other).objects.filter(pk=other.pk).update(title="Term B renamed")
    assert "Term B renamed" in warm(client, attempt)
    roster.set_active(enrollment=joined, active=False, by=instructor)
    assert "Term B" not in warm(client, attempt)


# -- the same terms changed in the Django admin ----------------------------------------------


def _admin(model):
    return admin.site._registry[model]


def test_an_admin_edit_of_an_extension_or_a_quiz_moves_the_open_deadlines(
    timed_exam, student, instructor, rf, monkeypatch
):
    """`check_open` trusts an open attempt's deadline, so every write of its terms must move
    it (the terms pages do): an extension revoked in the admin must not leave its extra
    minutes on the attempt, where the page's timer shows them and the saves are accepted."""
    t0, quiz, attempt = timed_exam
    client = as_user(student)
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("root", "root@example.org", "x")

    def deadline():
        return Attempt.objects.get(pk=attempt.pk).deadline

    extension = grant_extension(quiz=quiz, student=student, by=instructor, extra_minutes=30)
    assert deadline() == t0 + timedelta(minutes=60)
    extension.extra_minutes = 10
    _admin(Extension).save_model(request, extension, None, True)
    assert deadline() == t0 + timedelta(minutes=40)
    _admin(Extension).delete_model(request, extension)
    assert deadline() == t0 + timedelta(minutes=30)
    at(monkeypatch, t0 + timedelta(minutes=35))
    assert "Time is up" in _autosave(client, attempt, "2 s", 1).content.decode()
    assert not SavedAnswer.objects.exists()


def test_an_admin_bulk_delete_of_extensions_and_a_quiz_edit_move_the_open_deadlines(
    timed_exam, student, instructor, rf
):
    t0, quiz, attempt = timed_exam
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("root", "root@example.org", "x")
    grant_extension(quiz=quiz, student=student, by=instructor, extra_minutes=30)
    _admin(Extension).delete_queryset(request, Extension.objects.filter(quiz=quiz))
    assert Attempt.objects.get(pk=attempt.pk).deadline == t0 + timedelta(minutes=30)
    quiz = Quiz.objects.get(pk=quiz.pk)
    quiz.time_limit_minutes = 20
    _admin(Quiz).save_model(request, quiz, None, True)
    assert Attempt.objects.get(pk=attempt.pk).deadline == t0 + timedelta(minutes=20)

"""Extensions and accommodations (issue 27, item 3): per student and per group, other dates, extra
time, extra attempts, and a time multiplier on every timed quiz of the offering; the student
sees their terms on the quiz page; the instructor sees and exports them all; dates are typed in
the offering's time zone."""

from __future__ import annotations

import csv
import io
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from courseware.models import GroupMembership, StudentGroup
from quizzes.models import Accommodation, Attempt, Extension, GroupExtension, Quiz, QuizMode
from quizzes.services import attempts as service
from quizzes.services.availability import GroupTerms, student_window, window_for
from quizzes.services.instructor import accommodations as terms
from quizzes.services.instructor import grant_extension
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, OfferingFactory, make_quiz

pytestmark = pytest.mark.django_db

NOW = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


def _login(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def section(offering, student):
    group = StudentGroup.objects.create(offering=offering, name="Section 2")
    GroupMembership.objects.create(group=group, user=student)
    return group


@pytest.fixture
def exam(course):
    return make_quiz(course, mode=QuizMode.EXAM, time_limit_minutes=40, max_attempts=1)


# ---------------------------------------------------------------- the rule


def test_a_students_own_extension_wins_field_by_field_and_groups_give_their_most_generous():
    quiz = Quiz(
        due_at=NOW,
        closes_at=NOW + timedelta(days=1),
        time_limit_minutes=40,
        max_attempts=2,
        late_policy="penalty",
    )
    groups = GroupTerms.of(
        [
            GroupExtension(due_at=NOW + timedelta(days=2), extra_minutes=5, extra_attempts=1),
            GroupExtension(due_at=NOW + timedelta(days=3), extra_minutes=10),
        ]
    )
    own = Extension(closes_at=NOW + timedelta(days=9), extra_minutes=0, extra_attempts=0)
    window = window_for(quiz, own, groups=groups, multiplier=Decimal("1.5"))
    assert window.due_at == NOW + timedelta(days=3)  # the latest group due date
    assert window.closes_at == NOW + timedelta(days=9)  # the student's own close date
    assert window.extra_minutes == 10 and window.max_attempts == 3
    # 40 × 1.5 = 60, then + 10: the multiplier scales the quiz's limit, not the extra minutes.
    assert (window.scaled_minutes, window.total_minutes) == (60, 70)
    assert window.extended_by == ("group", "own")


def test_a_multiplier_rounds_up_to_whole_minutes_and_leaves_untimed_quizzes_untimed():
    quiz = Quiz(time_limit_minutes=45, late_policy="penalty")
    assert window_for(quiz, None, multiplier=Decimal("1.33")).total_minutes == 60  # 59.85
    assert window_for(Quiz(late_policy="penalty"), None, multiplier=Decimal(2)).time_limit is None


# ---------------------------------------------------------------- in the services


def test_a_time_multiplier_lengthens_every_timed_quiz_from_the_start(
    offering, exam, student, instructor
):
    terms.set_accommodation(
        offering=offering, by=instructor, student=student, time_multiplier="1.5"
    )
    attempt = service.start_attempt(quiz=exam, student=student, now=NOW)
    assert attempt.deadline == NOW + timedelta(minutes=60)


def test_a_new_accommodation_moves_the_deadline_of_an_attempt_already_open(
    offering, exam, student, instructor, section
):
    attempt = service.start_attempt(quiz=exam, student=student, now=timezone.now())
    start = attempt.started_at
    assert abs(attempt.deadline - start - timedelta(minutes=40)) < timedelta(seconds=5)
    terms.set_accommodation(offering=offering, by=instructor, group=section, time_multiplier=2)
    attempt.refresh_from_db()
    assert attempt.deadline == start + timedelta(minutes=80)
    terms.remove_accommodation(accommodation=Accommodation.objects.get())
    attempt.refresh_from_db()
    assert attempt.deadline == start + timedelta(minutes=40)


def test_extra_attempts_let_a_student_start_past_the_quizs_limit(exam, student, instructor):
    first = service.start_attempt(quiz=exam, student=student, now=NOW)
    service.submit_attempt(attempt=first, student=student, now=NOW + timedelta(minutes=1))
    with pytest.raises(service.QuizRuleError, match="one attempt"):
        service.start_attempt(quiz=exam, student=student, now=NOW + timedelta(minutes=2))
    grant_extension(quiz=exam, student=student, by=instructor, extra_attempts=1)
    second = service.start_attempt(quiz=exam, student=student, now=NOW + timedelta(minutes=3))
    assert second.number == 2


def test_a_group_extension_opens_the_answer_post_for_its_members_only(
    client, course, offering, student, section, instructor
):
    """The group's terms ride in the answer post's one lookup (views.targets): an attempt
    started with no last moment (so no deadline of its own) follows the student's window."""
    quiz = make_quiz(course, late_policy="refuse")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert attempt.deadline is None
    variant = attempt.variants.get()
    Quiz.objects.filter(pk=quiz.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    _login(client, student)

    def post():
        data = {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}
        return client.post(url, data, HTTP_HX_REQUEST="true").content.decode()

    assert "late work is not accepted" in post()
    # Made directly, so no deadline is written on the attempt: the post reads the terms itself.
    GroupExtension.objects.create(
        quiz=quiz, group=section, due_at=timezone.now() + timedelta(days=1)
    )
    assert "late work is not accepted" not in post()
    assert attempt.variants.get().responses.count() == 1


def test_a_group_of_another_offering_is_refused(course, offering, instructor):
    quiz = make_quiz(course)
    elsewhere = StudentGroup.objects.create(
        offering=OfferingFactory(slug="other", course=course), name="Theirs"
    )
    with pytest.raises(Exception, match="this offering's groups"):
        terms.set_group_extension(quiz=quiz, group=elsewhere, by=instructor, extra_minutes=5)
    assert not GroupExtension.objects.exists()


# ---------------------------------------------------------------- pages


def test_the_student_sees_their_longer_time_and_their_groups_due_date(
    client, offering, exam, student, instructor, section
):
    terms.set_accommodation(offering=offering, by=instructor, student=student, time_multiplier=1.5)
    due = timezone.now() + timedelta(days=2)
    terms.set_group_extension(quiz=exam, group=section, by=instructor, due_at=due)
    html = _login(client, student).get(exam.get_absolute_url()).content.decode()
    assert "<strong>60 minutes for you</strong>" in html
    assert "the quiz's 40 minutes × 1.5 (your accommodation)" in html
    assert "your group's extension" in html
    listing = client.get(reverse("quizzes:quiz_list", args=[OFFERING])).content.decode()
    assert "60 min" in listing and "the quiz's is 40" in listing


def test_an_instructor_gives_a_multiplier_and_a_group_extension_from_the_page(
    client, offering, exam, student, instructor, section
):
    _login(client, instructor)
    reply = client.post(
        reverse("instructor:grant_accommodation", args=[OFFERING]),
        {"student": student.pk, "time_multiplier": "1.5", "reason": "letter of 2 March"},
    )
    assert reply.status_code == 302
    assert Accommodation.objects.get(student=student).time_multiplier == Decimal("1.50")
    reply = client.post(
        reverse("instructor:grant_group_extension", args=[OFFERING]),
        {"quiz": exam.pk, "group": section.pk, "extra_minutes": "10", "extra_attempts": "1"},
    )
    assert GroupExtension.objects.get().extra_minutes == 10
    page = client.get(reverse("instructor:extensions", args=[OFFERING])).content.decode()
    assert "letter of 2 March" in page and "Section 2" in page and "×1.5" in page


@pytest.mark.parametrize("value", ["0.5", "7", "abc", "1.555", "NaN", "-1"])
def test_a_multiplier_out_of_range_is_refused_with_a_message(
    client, offering, student, instructor, value
):
    _login(client, instructor)
    reply = client.post(
        reverse("instructor:grant_accommodation", args=[OFFERING]),
        {"student": student.pk, "time_multiplier": value},
        follow=True,
    )
    assert "The accommodation was not saved." in reply.content.decode()
    assert not Accommodation.objects.exists()


def test_dates_are_typed_in_the_offerings_time_zone(client, offering, exam, student, instructor):
    offering.time_zone = "Europe/Berlin"
    offering.save()
    _login(client, instructor)
    client.post(
        reverse("instructor:grant_extension", args=[OFFERING, student.pk]),
        {"quiz": exam.pk, "due_at": "2027-01-15T23:59"},
    )
    assert Extension.objects.get().due_at == datetime(2027, 1, 15, 22, 59, tzinfo=UTC)
    page = client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk]))
    assert "In Europe/Berlin (Berlin time)." in page.content.decode()


def test_a_time_the_clocks_skip_is_refused_not_guessed(client, offering, exam, student, instructor):
    offering.time_zone = "Europe/Berlin"
    offering.save()
    _login(client, instructor)
    reply = client.post(
        reverse("instructor:grant_extension", args=[OFFERING, student.pk]),
        {"quiz": exam.pk, "due_at": "2027-03-28T02:30"},
        follow=True,
    )
    assert "does not happen exactly once in Europe/Berlin" in reply.content.decode()
    assert not Extension.objects.exists()


def test_the_csv_lists_every_extension_and_accommodation(
    client, offering, exam, student, instructor, section
):
    grant_extension(quiz=exam, student=student, by=instructor, extra_minutes=15, reason="ill")
    terms.set_group_extension(quiz=exam, group=section, by=instructor, extra_attempts=2)
    terms.set_accommodation(offering=offering, by=instructor, group=section, time_multiplier=1.25)
    reply = _login(client, instructor).get(
        reverse("instructor:export_extensions_csv", args=[OFFERING])
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(reply.streaming_content).decode())))
    assert [(r["kind"], r["who"]) for r in rows] == [
        ("student extension", student.get_full_name()),
        ("group extension", "Section 2 (section)"),
        ("accommodation", "Section 2 (section)"),
    ]
    assert rows[0]["extra minutes"] == "15" and rows[0]["reason"] == "ill"
    assert rows[2]["time multiplier"] == "1.25"


def test_the_gradebook_marks_group_extensions_and_multipliers(
    client, offering, exam, student, instructor, section
):
    terms.set_group_extension(quiz=exam, group=section, by=instructor, extra_minutes=5)
    terms.set_accommodation(offering=offering, by=instructor, student=student, time_multiplier=2)
    html = _login(client, instructor).get(reverse("instructor:gradebook", args=[OFFERING]))
    row = html.content.decode().split(student.username)[1].split("</tr>")[0]
    assert "×2" in row and ">ext</span>" in row


def test_a_teaching_assistant_extends_one_student_but_not_a_group_nor_a_multiplier(
    client, offering, exam, student, assistant, section
):
    _login(client, assistant)
    ok = client.post(
        reverse("instructor:grant_extension", args=[OFFERING, student.pk]),
        {"quiz": exam.pk, "extra_minutes": "10"},
    )
    assert ok.status_code == 302 and Extension.objects.count() == 1
    for name, data in (
        (
            "instructor:grant_group_extension",
            {"quiz": exam.pk, "group": section.pk, "extra_minutes": 5},
        ),
        ("instructor:grant_accommodation", {"student": student.pk, "time_multiplier": "1.5"}),
    ):
        assert client.post(reverse(name, args=[OFFERING]), data).status_code == 403
    assert not GroupExtension.objects.exists() and not Accommodation.objects.exists()


def test_the_student_window_is_one_query(
    django_assert_num_queries, exam, student, section, offering, instructor
):
    terms.set_accommodation(offering=offering, by=instructor, group=section, time_multiplier=1.5)
    quiz = Quiz.objects.get(pk=exam.pk)
    with django_assert_num_queries(1):
        window = student_window(quiz, student)
    assert window.total_minutes == 60
    assert Attempt.objects.count() == 0
    other = EnrollmentFactory(offering=offering).user
    assert student_window(quiz, other).total_minutes == 40

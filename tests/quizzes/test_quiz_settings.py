"""Quizzes in the browser (issue 27, item 2): an instructor makes a quiz, sets every setting a quiz
file holds (dates in the offering's zone), publishes and unpublishes it; a change that reaches
attempts in progress is listed, attempt by attempt, and saved only when confirmed; and a quiz
edited in the browser is not overwritten by `sync_questions` (reported by slug; --prefer-files
takes the file)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, Quiz, QuizMode
from quizzes.services import attempts as service
from quizzes.services.bank import read_bank, sync_bank
from tests.factories import OFFERING, PASSWORD, make_quiz
from tests.quizzes.test_bank import write_bank

pytestmark = pytest.mark.django_db

SETTINGS = {
    "title": "Week 3: rooflines",
    "chapter": "",
    "description": "Ridge points.",
    "position": "4",
    "mode": "exam",
    "time_limit_minutes": "40",
    "max_attempts": "2",
    "tries_per_variant": "1",
    "opens_at": "2027-03-01T09:00",
    "due_at": "2027-03-08T23:59",
    "closes_at": "2027-03-10T23:59",
    "late_policy": "penalty",
    "late_penalty": "0.2",
    "release": "after_due",
    "show_answers": "after_due",
}


@pytest.fixture
def teacher(client, instructor, offering):
    offering.time_zone = "Europe/Berlin"
    offering.save(update_fields=["time_zone"])
    client.login(username=instructor.username, password=PASSWORD)
    return client


def _settings_url(slug):
    return reverse("instructor:quiz_settings", args=[OFFERING, slug])


def test_an_instructor_makes_a_quiz_with_every_setting_in_the_offerings_zone(teacher, instructor):
    response = teacher.post(
        reverse("instructor:quiz_new", args=[OFFERING]), {**SETTINGS, "slug": "week-3"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("instructor:quiz_items", args=[OFFERING, "week-3"])
    quiz = Quiz.objects.get(slug="week-3")
    assert not quiz.is_published  # students see it once it has questions and is published
    assert quiz.edited_in_browser_at is not None and quiz.edited_by == instructor
    assert (quiz.mode, quiz.time_limit_minutes, quiz.max_attempts) == ("exam", 40, 2)
    assert (quiz.tries_per_variant, quiz.position, str(quiz.late_penalty)) == (1, 4, "0.200")
    assert (quiz.release, quiz.show_answers, quiz.late_policy) == (
        "after_due",
        "after_due",
        "penalty",
    )
    # 09:00 in Berlin in March (UTC+1) is 08:00 UTC; 23:59 is 22:59 UTC.
    assert quiz.opens_at == datetime(2027, 3, 1, 8, 0, tzinfo=UTC)
    assert quiz.due_at == datetime(2027, 3, 8, 22, 59, tzinfo=UTC)
    assert quiz.closes_at == datetime(2027, 3, 10, 22, 59, tzinfo=UTC)
    page = teacher.get(_settings_url("week-3")).content.decode()
    assert 'value="2027-03-08T23:59"' in page  # shown back in the offering's zone
    assert "Europe/Berlin" in page


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"due_at": "2027-02-01T10:00"}, "The due date comes after the quiz opens."),
        ({"closes_at": "2027-03-02T10:00"}, "The quiz closes at or after its due date."),
        ({"late_penalty": "1.5"}, "A fraction from 0 to 1"),
        ({"time_limit_minutes": "0"}, "greater than or equal to 1"),
        ({"time_limit_minutes": "20000"}, "less than or equal to 10080"),
        ({"max_attempts": "-1"}, "greater than or equal to 1"),
        ({"mode": "quiz"}, "Select a valid choice"),
        ({"due_at": "next tuesday"}, "Enter a valid date/time"),
        ({"title": ""}, "This field is required"),
        ({"slug": "week_3"}, "Lowercase letters, digits and single hyphens only."),
        ({"slug": "new"}, "the address of this page"),
        ({"due_at": "2027-03-28T02:30"}, "does not happen exactly once in Europe/Berlin"),
        ({"description": "x" * 20_001}, "At most 20,000 characters."),
    ],
)
def test_bad_settings_say_what_is_wrong_and_make_nothing(teacher, change, message):
    data = {**SETTINGS, "slug": "week-3", **change}
    if "due_at" in change and "2027-03-28" in change["due_at"]:
        data["closes_at"] = "2027-03-30T10:00"
    response = teacher.post(reverse("instructor:quiz_new", args=[OFFERING]), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Quiz.objects.exists()


def test_a_slug_taken_in_this_offering_is_refused(teacher, course):
    make_quiz(course, slug="week-3")
    response = teacher.post(
        reverse("instructor:quiz_new", args=[OFFERING]), {**SETTINGS, "slug": "week-3"}
    )
    assert response.status_code == 400 and "a quiz “week-3” already" in response.content.decode()


def test_settings_without_attempts_in_progress_are_saved_at_once(teacher, course):
    quiz = make_quiz(course, slug="hw", time_limit_minutes=None)
    response = teacher.post(_settings_url("hw"), SETTINGS)
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert quiz.title == "Week 3: rooflines" and quiz.time_limit_minutes == 40
    assert quiz.edited_in_browser_at is not None


def test_the_same_text_sent_back_with_crlf_lines_is_no_change(teacher, exam_underway):
    exam, _ = exam_underway
    exam.description = "Two\nlines.\n"
    exam.save(update_fields=["description"])
    data = {**_longer(exam, "40"), "description": "Two\r\nlines.\r\n"}
    response = teacher.post(_settings_url("midterm"), data)
    assert response.status_code == 302  # nothing reaches the attempt: no confirmation asked
    exam.refresh_from_db()
    assert exam.description == "Two\nlines.\n"


def test_a_new_title_reaches_no_attempt_and_needs_no_confirmation(teacher, exam_underway):
    exam, _ = exam_underway
    response = teacher.post(_settings_url("midterm"), {**_longer(exam, "40"), "title": "Midterm"})
    assert response.status_code == 302
    exam.refresh_from_db()
    assert exam.title == "Midterm"


def test_publish_needs_questions_and_unpublish_hides_the_quiz_from_students(
    teacher, client, course, student, instructor
):
    empty = Quiz.objects.create(offering=course.offerings.get(), slug="empty", title="Empty")
    empty.is_published = False
    empty.save()
    response = teacher.post(
        reverse("instructor:quiz_publish", args=[OFFERING, "empty"]),
        {"published": "1"},
        follow=True,
    )
    assert "Add at least one question" in response.content.decode()
    assert not Quiz.objects.get(slug="empty").is_published

    quiz = make_quiz(course, slug="hw")
    teacher.post(reverse("instructor:quiz_publish", args=[OFFERING, "hw"]), {"published": "0"})
    quiz.refresh_from_db()
    assert not quiz.is_published
    from django.test import Client

    reader = Client()
    reader.login(username=student.username, password=PASSWORD)
    detail = reverse("quizzes:quiz_detail", args=[OFFERING, "hw"])
    assert reader.get(detail).status_code == 404
    teacher.post(reverse("instructor:quiz_publish", args=[OFFERING, "hw"]), {"published": "1"})
    assert reader.get(detail).status_code == 200


# ---------------------------------------------------------------- attempts in progress


@pytest.fixture
def exam_underway(course, student):
    exam = make_quiz(
        course, slug="midterm", mode=QuizMode.EXAM, time_limit_minutes=40, max_attempts=1
    )
    attempt = service.start_attempt(quiz=exam, student=student, now=timezone.now())
    return exam, attempt


def _longer(exam, minutes="60"):
    data = {**SETTINGS, "title": exam.title, "mode": "exam", "time_limit_minutes": minutes}
    data.update(opens_at="", due_at="", closes_at="", max_attempts="1")
    data.update(release=exam.release, show_answers=exam.show_answers, position="0")
    data.update(late_penalty=str(exam.late_penalty), late_policy=exam.late_policy)
    data.update(tries_per_variant=str(exam.tries_per_variant), description=exam.description)
    return data


def test_a_change_that_reaches_attempts_in_progress_is_listed_and_saved_only_when_confirmed(
    teacher, exam_underway, student
):
    exam, attempt = exam_underway
    deadline = attempt.deadline
    data = _longer(exam)
    shown = teacher.post(_settings_url("midterm"), data)
    assert shown.status_code == 409
    html = shown.content.decode()
    assert "This change reaches 1 attempt in progress" in html
    assert student.username in html and "Save, changing these attempts" in html
    exam.refresh_from_db()
    attempt.refresh_from_db()
    assert exam.time_limit_minutes == 40 and attempt.deadline == deadline  # nothing yet
    key = shown.context["confirm_key"]
    saved = teacher.post(_settings_url("midterm"), {**data, "confirm_key": key})
    assert saved.status_code == 302
    exam.refresh_from_db()
    attempt.refresh_from_db()
    assert exam.time_limit_minutes == 60
    assert attempt.deadline == attempt.started_at + timedelta(minutes=60)
    assert attempt.deadline > deadline + timedelta(minutes=19)


def test_a_confirmation_for_other_attempts_than_now_in_progress_asks_again(
    teacher, exam_underway, course
):
    exam, _ = exam_underway
    data = _longer(exam)
    key = teacher.post(_settings_url("midterm"), data).context["confirm_key"]
    from tests.factories import EnrollmentFactory

    late_comer = EnrollmentFactory(offering=course.offerings.get(), role="student").user
    service.start_attempt(quiz=exam, student=late_comer, now=timezone.now())
    again = teacher.post(_settings_url("midterm"), {**data, "confirm_key": key})
    assert again.status_code == 409 and "reaches 2 attempts in progress" in again.content.decode()
    exam.refresh_from_db()
    assert exam.time_limit_minutes == 40


def test_the_mode_of_a_started_quiz_does_not_change(teacher, exam_underway):
    exam, _ = exam_underway
    data = {**_longer(exam, "40"), "mode": "homework"}
    response = teacher.post(_settings_url("midterm"), data)
    assert response.status_code in (400, 409)
    if response.status_code == 409:  # confirmed, it is still refused
        key = response.context["confirm_key"]
        response = teacher.post(_settings_url("midterm"), {**data, "confirm_key": key})
    assert "Students have started this quiz, so it stays exam" in response.content.decode()
    exam.refresh_from_db()
    assert exam.mode == "exam"


def test_a_teaching_assistant_sees_no_settings_and_changes_none(client, assistant, course):
    quiz = make_quiz(course, slug="hw")
    client.login(username=assistant.username, password=PASSWORD)
    assert client.get(_settings_url("hw")).status_code == 403
    assert client.post(_settings_url("hw"), SETTINGS).status_code == 403
    assert client.post(reverse("instructor:quiz_new", args=[OFFERING]), SETTINGS).status_code == 403
    publish = reverse("instructor:quiz_publish", args=[OFFERING, "hw"])
    assert client.post(publish, {"published": "0"}).status_code == 403
    quiz.refresh_from_db()
    assert quiz.title != SETTINGS["title"] and quiz.is_published
    assert Quiz.objects.count() == 1


# ---------------------------------------------------------------- files and the browser


@pytest.fixture
def synced(tmp_path, course, offering):
    offering.follows_files = True
    offering.save(update_fields=["follows_files"])
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    return root


def test_a_quiz_edited_in_the_browser_is_not_overwritten_by_its_file(synced, teacher, course):
    quiz = Quiz.objects.get(slug="inference-quiz")
    data = {**SETTINGS, "mode": "homework", "title": "Edited here", "max_attempts": ""}
    assert teacher.post(_settings_url(quiz.slug), data).status_code == 302
    changed = (
        (synced / "quizzes" / "inference.yaml")
        .read_text()
        .replace("late_penalty: 0.25", "late_penalty: 0.5")
    )
    (synced / "quizzes" / "inference.yaml").write_text(changed)
    report = sync_bank(bank=read_bank(synced), course=course)
    quiz.refresh_from_db()
    assert quiz.title == "Edited here" and str(quiz.late_penalty) == "0.200"
    (conflict,) = report.quiz_conflicts
    assert conflict.startswith("inference-quiz (")
    assert "the file changed since the last sync too" in conflict
    assert "--prefer-files" in report.summary()

    out = io.StringIO()
    call_command("sync_questions", dir=str(synced), prefer_files=True, stdout=out)
    quiz.refresh_from_db()
    assert quiz.title == "Quiz: inference" and str(quiz.late_penalty) == "0.500"
    assert quiz.edited_in_browser_at is None
    # Back in step with its file: the next sync changes nothing and reports nothing.
    again = sync_bank(bank=read_bank(synced), course=course)
    assert again.quizzes_unchanged == ["inference-quiz"] and not again.quiz_conflicts


def test_adding_a_question_in_the_browser_also_keeps_the_file_from_overwriting(
    synced, teacher, course
):
    quiz = Quiz.objects.get(slug="inference-quiz")
    teacher.post(
        reverse("instructor:quiz_remove_item", args=[OFFERING, quiz.slug, quiz.items.last().pk])
    )
    before = list(quiz.items.values_list("template__slug", flat=True))
    report = sync_bank(bank=read_bank(synced), course=course)
    assert [c.split(" ")[0] for c in report.quiz_conflicts] == ["inference-quiz"]
    assert "has not changed since the last sync" in report.quiz_conflicts[0]
    assert list(quiz.items.values_list("template__slug", flat=True)) == before


def test_the_attempt_counts_are_not_touched_by_a_refused_change(teacher, exam_underway):
    exam, _ = exam_underway
    count = Attempt.objects.count()
    teacher.post(_settings_url("midterm"), {**_longer(exam), "due_at": "not a date"})
    assert Attempt.objects.count() == count

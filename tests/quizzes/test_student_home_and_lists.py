"""Where each role lands after logging in; the student's open and due work on the home page;
the quiz list's questions per attempt, time limit and due date; score changes on My progress."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuizItem, RegradeRun, RegradeStatus
from quizzes.presenters.progress import questions_per_attempt
from quizzes.services import attempts as service
from quizzes.services.instructor import override_score
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db

TWO = ("decode-step-memory-floor", "bound-by-what")


def _login(client, user, follow_from="/accounts/login/"):
    return client.post(follow_from, {"username": user.username, "password": PASSWORD}, follow=True)


@pytest.mark.parametrize(
    "role, lands",
    [
        ("instructor", "/o/hardware-reality/instructor/"),
        ("assistant", "/o/hardware-reality/instructor/"),
        ("author", "/studio/"),
        ("student", "/o/hardware-reality/"),
    ],
)
def test_each_role_lands_on_its_own_home(client, course, request, role, lands):
    user = request.getfixturevalue(role)
    response = _login(client, user)
    assert response.redirect_chain[-1][0] == lands


def test_a_login_with_next_still_goes_there(client, course, instructor):
    response = _login(client, instructor, "/accounts/login/?next=/instructor/gradebook/")
    assert response.redirect_chain[-1][0] == "/o/hardware-reality/instructor/gradebook/"


def test_the_student_home_lists_open_attempts_and_due_quizzes(client, course, student):
    client.force_login(student)
    html = client.get("/").content.decode()
    assert "No attempt in progress and nothing due" in html
    due = timezone.now() + timedelta(days=2)
    exam = make_quiz(course, examples=TWO, title="Timed check", mode="exam", time_limit_minutes=20)
    make_quiz(course, title="Due homework", due_at=due)
    attempt = service.start_attempt(quiz=exam, student=student, now=timezone.now())
    html = client.get("/").content.decode()
    assert f'href="{attempt.get_absolute_url()}">Continue Timed check</a>' in html
    assert "Due homework</a>" in html and "· due" in html and "UTC" in html


def test_the_quiz_list_shows_questions_per_attempt_time_limit_and_due_date(client, course, student):
    exam = make_quiz(
        course,
        examples=TWO + ("kv-cache-bytes-formula",),
        title="Exam",
        mode="exam",
        time_limit_minutes=45,
        due_at=timezone.now() + timedelta(days=1),
    )
    QuizItem.objects.filter(quiz=exam, position__gt=1).update(pool="p")
    exam.pools = {"p": 1}
    exam.save()
    client.force_login(student)
    html = client.get(reverse("quizzes:quiz_list", args=[OFFERING])).content.decode()
    row = html[html.index(">Exam</a>") :].split("</tr>")[0]
    assert '<td data-label="Questions" class="num">2</td>' in row
    assert "45 min" in row and "UTC" in row
    detail = client.get(exam.get_absolute_url()).content.decode()
    assert "2 per attempt, drawn from 3 in the bank" in detail


def test_questions_per_attempt_follows_the_draw_rule():
    class Quiz:
        pools = {"a": 2, "b": 5}

    assert questions_per_attempt(Quiz, ["", "", "a", "a", "a", "b", "c", "c"]) == 2 + 2 + 1 + 2


def test_my_progress_tells_of_an_override_and_a_regrade_with_reasons(
    client, course, student, instructor
):
    quiz = make_quiz(course, examples=TWO, title="Roofline quiz")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    client.force_login(student)
    assert (
        "Changes to your scores"
        not in client.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    )
    override_score(attempt=attempt, score="1.5", reason="Unit typo forgiven", by=instructor)
    item = quiz.items.order_by("position").first()
    RegradeRun.objects.create(
        offering=quiz.offering,
        template=item.template,
        target_version=item.template.current_version,
        status=RegradeStatus.APPLIED,
        applied_at=timezone.now(),
        preview=[
            {
                "attempt": attempt.pk,
                "student": student.username,
                "part": "t",
                "old_status": "incorrect",
                "new_status": "correct",
                "old": 0,
                "new": 1,
            },
            {
                "attempt": attempt.pk,
                "student": "someone-else",
                "part": "t",
                "old_status": "correct",
                "new_status": "incorrect",
                "old": 1,
                "new": 0,
            },
        ],
    )
    html = client.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    assert "Your instructor set the score</strong>\n      of the whole attempt" in html
    assert "1.5 of 2 points" in html and "Reason: Unit typo forgiven" in html
    assert "A regrade changed the grade" in html and "incorrect → correct" in html
    assert "correct → incorrect" not in html  # another student's change stays theirs


def test_a_login_redirect_says_why_the_form_is_there(client, course):
    html = client.get("/accounts/login/?next=/quizzes/").content.decode()
    assert "Log in to continue to that page" in html
    assert "Log in to continue" not in client.get("/accounts/login/").content.decode()

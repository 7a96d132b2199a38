"""Score overrides apply to submitted attempts only: an attempt the student is still working on
is refused with a message, and its history says why there is no override form."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from quizzes.models import ScoreOverride
from quizzes.services import instructor as services
from tests.factories import OFFERING, PASSWORD, AttemptFactory
from tests.quizzes.test_instructor_helpers import make_quiz, make_student, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_attempt(course):
    quiz, items = make_quiz(course, slug="roofline-quiz", title="Roofline quiz")
    student = make_student(course, "bob", first_name="Bob", last_name="Open")
    attempt = AttemptFactory(quiz=quiz, student=student, number=1)
    return attempt, items


def test_override_of_an_attempt_in_progress_is_refused(open_attempt, instructor):
    attempt, items = open_attempt
    for item in (None, items[0]):
        with pytest.raises(ValidationError, match="overrides apply to submitted attempts"):
            services.override_score(
                attempt=attempt, item=item, score="1", reason="Early credit", by=instructor
            )
    attempt.refresh_from_db()
    assert attempt.score is None and not ScoreOverride.objects.exists()


def test_override_page_refuses_an_open_attempt_and_history_says_why(
    client, instructor, open_attempt
):
    attempt, _ = open_attempt
    client.login(username=instructor.username, password=PASSWORD)
    response = client.post(
        reverse("instructor:override_score", args=[OFFERING, attempt.pk]),
        {"score": "2", "reason": "Early credit"},
        follow=True,
    )
    html = response.content.decode()
    assert response.status_code == 200 and not ScoreOverride.objects.exists()
    assert "The override was not saved" in html and "still in progress" in html
    assert (
        f'action="{reverse("instructor:override_score", args=[OFFERING, attempt.pk])}"' not in html
    )
    assert "overrides apply to submitted attempts" in html


def test_submitted_attempt_keeps_its_override_form(client, instructor, course):
    quiz, items = make_quiz(course)
    attempt = submitted_attempt(quiz, make_student(course, "sub"), {items[0]: 1.0})
    client.login(username=instructor.username, password=PASSWORD)
    html = client.get(
        reverse("instructor:student_detail", args=[OFFERING, attempt.student_id])
    ).content
    assert reverse("instructor:override_score", args=[OFFERING, attempt.pk]).encode() in html
    assert b"overrides apply to submitted attempts" not in html


def test_services_package_re_exports_every_public_name():
    import importlib

    assert hasattr(services, "__path__")  # a package, split along what each module reads
    for module in ("overview", "book", "history", "search", "writes"):
        importlib.import_module(f"quizzes.services.instructor.{module}")
    names = {"dashboard", "gradebook", "student_history", "override_score", "grant_extension"}
    assert names | {"variant_search", "parse_parameter_filters"} <= set(services.__all__)
    functions = [getattr(services, name) for name in services.__all__]
    for function in filter(callable, functions):
        assert function.__module__.startswith("quizzes.services.instructor.")


def test_a_refused_override_reopens_its_form_with_the_typed_reason_and_the_error(
    client, instructor, course
):
    quiz, items = make_quiz(course)
    attempt = submitted_attempt(quiz, make_student(course, "sub"), {items[0]: 1.0})
    client.login(username=instructor.username, password=PASSWORD)
    url = reverse("instructor:override_score", args=[OFFERING, attempt.pk])
    html = client.post(
        url, {"score": "99", "reason": "Accepted a units slip"}, follow=True
    ).content.decode()
    assert not ScoreOverride.objects.exists()
    form = html[html.index(f'action="{url}"') :].split("</form>")[0]
    assert 'role="alert"' in form and "Not saved." in form and "between 0 and" in form
    assert ">Accepted a units slip</textarea>" in form and 'value="99"' in form
    assert f'max="{attempt.max_score:g}"' in form
    # An empty reason is said in words, not as a raw field name; the next visit is clean.
    html = client.post(url, {"score": "1", "reason": ""}, follow=True).content.decode()
    assert "Reason: This field is required." in html and "reason: This field" not in html
    html = client.get(
        reverse("instructor:student_detail", args=[OFFERING, attempt.student_id])
    ).content
    assert b"Not saved." not in html

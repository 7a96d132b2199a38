"""The results page shows the variant that earned the points; parts are labelled by position;
attempt-limit wording; an exam asks before it is submitted."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import AttemptStatus, Response
from quizzes.presenters.results import scoring_variant
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, check_answer, make_quiz


@pytest.fixture
def logged_in(client, student):
    client.login(username=student.username, password=PASSWORD)
    return client


def _answer(variant, student, part, raw):
    return check_answer(variant, student, raw, part)


def _v(score, index, practice=False):
    return SimpleNamespace(score=score, index=index, is_practice=practice)


def test_scoring_variant_is_the_best_counting_one_and_the_latest_on_a_tie():
    first, second = _v(1.0, 0), _v(1.0, 1)
    assert scoring_variant([first, second]) is second
    weak, strong, practice = _v(0.5, 0), _v(1.0, 1), _v(1.0, 2, practice=True)
    assert scoring_variant([weak, strong, practice]) is strong
    best_early, later_worse = _v(1.0, 0), _v(0.0, 1)
    assert scoring_variant([best_early, later_worse]) is best_early


@pytest.mark.django_db
def test_results_show_the_scoring_variant_and_label_practice_apart(logged_in, course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    scored = attempt.variants.get()
    right = f"{correct_answers(scored)['t'] * 1000:.6g} ms"
    _answer(scored, student, "t", right)
    practice = service.new_variant(variant=scored, student=student, now=timezone.now())
    assert practice.is_practice
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())

    html = logged_in.get(
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    ).content.decode()
    main, _, others = html.partition('class="other-set practice"')
    assert "1 / 1 point" in main
    assert f'id="part-{scored.pk}-t"' in main and f"<code>{right}</code>" in main
    assert "Correct" in main and "No answer was given" not in main
    assert "Not answered" in others
    assert f'id="part-{practice.pk}-t"' in others and "practice" in others
    assert "does not count" in others


@pytest.mark.django_db
def test_results_page_query_count_does_not_grow_with_practice_sets(
    logged_in, course, student, django_assert_max_num_queries
):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    for _ in range(3):
        _answer(variant, student, "t", f"{correct_answers(variant)['t']} s")
        variant = service.new_variant(variant=variant, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    with django_assert_max_num_queries(14):
        page = logged_in.get(reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk]))
    assert page.content.decode().count('class="other-set practice"') == 3


@pytest.mark.django_db
def test_parts_are_labelled_by_position_never_by_internal_id(logged_in, course, student):
    quiz = make_quiz(course, examples=["kv-cache-fits"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    html = logged_in.get(attempt.get_absolute_url()).content.decode()
    labels = [line for line in html.splitlines() if 'class="part-label"' in line]
    assert [label.split(">")[1].split("<")[0] for label in labels] == ["Part 1", "Part 2", "Part 3"]
    fragment = logged_in.post(
        reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "gpus"]),
        {"answer": "1", "idempotency_key": uuid.uuid4().hex},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "Part gpus" not in fragment and "Part total" not in html and "Part kv" not in html


@pytest.mark.django_db
def test_a_single_attempt_limit_reads_naturally(logged_in, course, student):
    quiz = make_quiz(course, max_attempts=1)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    html = logged_in.get(quiz.get_absolute_url()).content.decode()
    assert "all 1 attempts" not in html
    assert "You have used the one attempt this quiz allows." in html
    with pytest.raises(service.QuizRuleError) as refusal:
        service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert "all 1 attempts" not in refusal.value.message and "one attempt" in refusal.value.message


@pytest.mark.django_db
def test_exam_submit_asks_for_confirmation_and_still_posts_without_javascript(
    logged_in, course, student
):
    exam = make_quiz(course, mode="exam", slug="exam")
    homework = make_quiz(course, slug="homework")
    exam_attempt = service.start_attempt(quiz=exam, student=student, now=timezone.now())
    html = logged_in.get(exam_attempt.get_absolute_url()).content.decode()
    form = html[
        html.index(
            'action="' + reverse("quizzes:submit_attempt", args=[OFFERING, exam_attempt.pk])
        ) :
    ]
    form = form[: form.index(">")]
    assert "data-confirm=" in form and "cannot be changed" in form
    assert 'src="/static/js/quiz.js"' in html
    own = service.start_attempt(quiz=homework, student=student, now=timezone.now())
    assert "data-confirm=" not in logged_in.get(own.get_absolute_url()).content.decode()
    # Without JavaScript nothing confirmed the Submit: the server asks, with its own list of
    # the parts that would score 0, and submits nothing yet.
    url = reverse("quizzes:submit_attempt", args=[OFFERING, exam_attempt.pk])
    asked = logged_in.post(url)
    page = asked.content.decode()
    assert asked.status_code == 200 and "Submit this exam now?" in page
    assert "would score 0 as saved now" in page and "Question 1" in page and "empty" in page
    assert 'name="confirm" value="1"' in page and "csrfmiddlewaretoken" in page
    exam_attempt.refresh_from_db()
    assert exam_attempt.status == AttemptStatus.IN_PROGRESS
    # Confirmed (the page's script sets the field after its dialog): submitted.
    response = logged_in.post(url, {"confirm": "1"})
    assert response.status_code == 302 and response["Location"].endswith("/results/")
    # Homework is submitted by its plain POST, as before.
    done = logged_in.post(reverse("quizzes:submit_attempt", args=[OFFERING, own.pk]))
    assert done.status_code == 302 and done["Location"].endswith("/results/")
    assert not Response.objects.filter(variant__attempt=exam_attempt, status="correct").exists()

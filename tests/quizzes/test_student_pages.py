"""The student's pages: quiz list, chapter redirect, rules, htmx fragments, preview, progress."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from courseware.models import ReadingProgress
from quizzes.models import Attempt
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import (
    OFFERING,
    PASSWORD,
    ChapterFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizItemFactory,
    make_quiz,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, student):
    client.login(username=student.username, password=PASSWORD)
    return client


@pytest.fixture
def chapter(course):
    return ChapterFactory(part__course=course, slug="inference", title="Why inference is slow")


def test_quiz_list_shows_each_quiz_with_status_and_best_score(logged_in, course, student, chapter):
    quiz = make_quiz(course, chapter=chapter, title="Inference quiz")
    untouched = make_quiz(course, title="Another quiz")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    service.submit_response(
        variant=variant,
        part_id="t",
        raw=f"{correct_answers(variant)['t']} s",
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    html = logged_in.get(reverse("quizzes:quiz_list", args=[OFFERING])).content.decode()
    assert "Inference quiz" in html and "Why inference is slow" in html
    assert "1 / 1" in html and "(100%)" in html
    assert untouched.title in html and "Not started" in html


def test_chapter_link_redirects_to_its_quiz(logged_in, course, chapter):
    quiz = make_quiz(course, chapter=chapter)
    response = logged_in.get(reverse("quizzes:chapter_quiz", args=[OFFERING, "inference"]))
    assert response.status_code == 302 and response["Location"] == quiz.get_absolute_url()


def test_chapter_without_a_quiz_gets_a_friendly_404(logged_in, course):
    response = logged_in.get(reverse("quizzes:chapter_quiz", args=[OFFERING, "roofline"]))
    assert response.status_code == 404
    assert "No quiz for this chapter yet" in response.content.decode()


def test_quiz_detail_shows_rules_and_the_continue_button(logged_in, course, student):
    quiz = make_quiz(course, mode="exam", time_limit_minutes=20, max_attempts=2)
    html = logged_in.get(quiz.get_absolute_url()).content.decode()
    assert "20 minutes" in html and "0 used of 2" in html and "Start attempt" in html
    service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    html = logged_in.get(quiz.get_absolute_url()).content.decode()
    assert "Continue attempt" in html and "1 used of 2" in html


def test_unpublished_and_unknown_quizzes_answer_404(logged_in, course):
    hidden = make_quiz(course, is_published=False)
    assert logged_in.get(hidden.get_absolute_url()).status_code == 404
    assert logged_in.get(reverse("quizzes:quiz_detail", args=[OFFERING, "nope"])).status_code == 404


def test_start_refusal_is_a_message_not_an_error(logged_in, course):
    quiz = make_quiz(course, opens_at=timezone.now() + timezone.timedelta(days=2))
    response = logged_in.post(
        reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]), follow=True
    )
    assert response.status_code == 200
    assert "This quiz opens on" in response.content.decode()
    assert not Attempt.objects.exists()


def test_plain_post_redirects_to_the_part_and_htmx_gets_the_fragment(logged_in, course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    plain = logged_in.post(url, {"answer": "1 s", "idempotency_key": uuid.uuid4().hex})
    assert plain.status_code == 302
    assert plain["Location"].endswith(f"#part-{variant.pk}-t")
    page = logged_in.get(plain["Location"]).content.decode()
    assert "Not quite" in page and "<html" in page
    fragment = logged_in.post(
        url, {"answer": "1 banana", "idempotency_key": uuid.uuid4().hex}, HTTP_HX_REQUEST="true"
    )
    html = fragment.content.decode()
    assert "<!doctype" not in html.lower() and "<main" not in html  # a fragment, not the page
    assert f'id="key-{variant.pk}-t"' in html  # a fresh form key, swapped in out of band
    assert "could not be read" in html and "no try used" in html
    assert 'hx-swap-oob="true"' in html  # hints and solution area refreshed alongside


def test_unit_hint_and_allowed_variables_are_shown(logged_in, course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor", "kv-cache-bytes-formula"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    html = logged_in.get(attempt.get_absolute_url()).content.decode()
    assert "Answer in a unit of time" in html
    assert "<code>n</code>, <code>b</code>" in html
    assert "<math" in html  # math rendered to MathML on the server


def test_formula_preview_shows_how_the_answer_is_read(logged_in, course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    url = reverse("quizzes:preview_part", args=[OFFERING, attempt.pk, variant.pk, "kv"])
    ok = logged_in.get(url, {"answer": "4 n b"}, HTTP_HX_REQUEST="true").content.decode()
    assert "Read as" in ok and "<math" in ok
    bad = logged_in.get(url, {"answer": "4 n z"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="preview problem"' in bad and "z" in bad
    assert logged_in.get(url, {"answer": "4 n b"}).status_code == 200  # works without htmx


def test_attempt_page_runs_a_fixed_number_of_queries(client, course, django_assert_max_num_queries):
    small = make_quiz(course, examples=["decode-step-memory-floor"])
    large = make_quiz(
        course,
        examples=[
            "bound-by-what",
            "kv-cache-fits",
            "kv-cache-bytes-formula",
            "kernel-time-roofline",
        ],
    )
    user = EnrollmentFactory(course=course).user
    client.login(username=user.username, password=PASSWORD)
    pages = []
    for quiz in (small, large):
        attempt = service.start_attempt(quiz=quiz, student=user, now=timezone.now())
        for variant in attempt.variants.all():
            first = next(iter(variant.answers["answers"]))
            try:
                service.submit_response(
                    variant=variant,
                    part_id=first,
                    raw="1 s",
                    student=user,
                    idempotency_key=uuid.uuid4().hex,
                    now=timezone.now(),
                )
            except service.QuizRuleError:
                pass
        pages.append(attempt)
    counts = []
    for attempt in pages:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(attempt.get_absolute_url()).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 8  # five questions cost no more queries than one
    # Read again unchanged: served from the page memo (session, user, course, role, attempt,
    # extension).
    with django_assert_max_num_queries(6):
        client.get(pages[1].get_absolute_url())


def test_progress_counts_recognised_mistakes_and_links_the_section(logged_in, course, student):
    chapter = ChapterFactory(part__course=course, slug="precision", title="Precision")
    ReadingProgress.objects.create(user=student, chapter=chapter)
    quiz = make_quiz(course, chapter=chapter)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    for _ in range(2):
        service.submit_response(
            variant=variant,
            part_id="t",
            raw=f"{correct_answers(variant)['t'] * 8} s",
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=timezone.now(),
        )
    html = logged_in.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    assert "Bits taken for bytes" in html and "2×" in html
    assert reverse("courseware:chapter_detail", args=["precision"]) + "#bits-and-bytes" in html
    assert "read" in html and "1 of 1 chapter read" in html


def test_progress_is_for_students_only(client, course, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    assert client.get(reverse("quizzes:progress", args=[OFFERING])).status_code == 403


def test_template_factory_builds_from_examples(course):
    template = QuestionTemplateFactory(course=course, example="bound-by-what")
    assert template.current_version.source.startswith("slug: bound-by-what")
    item = QuizItemFactory(template=template, quiz=make_quiz(course, examples=[]))
    assert item.template.current_version_id

"""An instructor previews a quiz as a student (issue 27, item 2): their own numbers from a
preview seed, each pool drawn, answers checked with feedback, clearly marked, and nothing
stored: no attempt, no variant, no response, no gradebook row."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from quizzes.models import Attempt, Quiz, Response, Variant
from quizzes.services.authoring import build_preview
from quizzes.services.instructor import preview as service
from tests.factories import OFFERING, PASSWORD, QuestionTemplateFactory, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


@pytest.fixture
def quiz(course):
    return make_quiz(course, slug="hw", examples=("decode-step-memory-floor", "kv-cache-fits"))


def _url(slug="hw"):
    return reverse("instructor:quiz_preview", args=[OFFERING, slug])


def _seed(html: str) -> int:
    return int(re.search(r'name="seed" value="(\d+)"', html).group(1))


def test_the_preview_shows_every_question_marked_as_a_preview(teacher, quiz):
    response = teacher.get(_url())
    html = unescape(response.content.decode())
    assert response.status_code == 200
    assert "Preview as a student." in html and "Nothing you answer here is saved" in html
    assert "Question 1" in html and "Question 2" in html and "Question 3" not in html
    assert 'name="q1-response_t"' in html  # the kind's own input, named per question
    assert _seed(html) == _seed(teacher.get(_url()).content.decode())  # the same each visit


def test_a_right_answer_is_checked_correct_and_nothing_is_stored(teacher, quiz, instructor):
    seed = service.default_seed(quiz=quiz, user=instructor)
    item = quiz.items.get(position=1)
    drawn = build_preview(item.template.current_version.source, service.item_seed(seed, item))
    answer = drawn.parts[0].answer
    data = {"seed": str(seed), "tried_seed": str(seed), "q1-response_t": answer}
    html = unescape(teacher.post(_url(), data).content.decode())
    assert "<strong>Correct</strong>" in html and "Not quite" not in html
    wrong = teacher.post(_url(), {**data, "q1-response_t": "1 s"}).content.decode()
    assert "<strong>Not quite</strong>" in wrong
    assert not Attempt.objects.exists() and not Variant.objects.exists()
    assert not Response.objects.exists()
    gradebook = teacher.get(reverse("instructor:gradebook", args=[OFFERING])).content.decode()
    assert instructor.username not in gradebook


def test_answers_typed_under_other_numbers_are_not_graded(teacher, quiz):
    data = {"seed": "5", "tried_seed": "4", "q1-response_t": "1 s"}
    html = teacher.post(_url(), data).content.decode()
    assert "Not quite" not in html and 'value="5"' in html


def test_new_numbers_draw_another_seed(teacher, quiz):
    first = _seed(teacher.get(_url()).content.decode())
    again = _seed(teacher.post(_url(), {"seed": str(first), "new_seed": "1"}).content.decode())
    assert again != first


def test_a_pool_is_drawn_as_for_an_attempt(teacher, quiz, course):
    for slug in ("bound-by-what", "read-the-ridge-point"):
        QuestionTemplateFactory(course=course, example=slug)
    teacher.post(
        reverse("instructor:quiz_pool", args=[OFFERING, "hw"]),
        {"name": "p", "draw": "1", "points": "2", "templates": ["bound-by-what", "kv-cache-fits"]},
    )
    quiz = Quiz.objects.get(pk=quiz.pk)
    items = list(quiz.items.order_by("position"))
    seen = set()
    for seed in range(12):
        drawn = service.drawn_items(quiz, items, seed)
        assert len(drawn) == 2 and drawn[0].template.slug == "decode-step-memory-floor"
        seen.add(drawn[1].template.slug)
    assert seen == {"bound-by-what", "kv-cache-fits"}
    html = teacher.get(_url()).content.decode()
    assert "drawn from the pool p" in html and "Question 3" not in html


@pytest.mark.parametrize(
    "data",
    [
        {"seed": "-1", "tried_seed": "-1", "q1-response_t": "x"},
        {"seed": "9" * 40, "tried_seed": "9" * 40},
        {"seed": "1", "tried_seed": "1", "q99999999-response_t": "1 s"},
        {"seed": "1", "tried_seed": "1", "q1-response_" + "t" * 300: "1 s"},
        {"seed": "1", "tried_seed": "1", "q1-response_t": "9" * 5000},
    ],
)
def test_hostile_preview_input_gets_a_page_and_stores_nothing(teacher, quiz, data):
    assert teacher.post(_url(), data).status_code == 200
    assert not Attempt.objects.exists() and not Variant.objects.exists()


def test_only_the_offerings_instructors_preview(client, quiz, assistant, student, course):
    from tests.factories import EnrollmentFactory, OfferingFactory

    stranger = EnrollmentFactory(
        offering=OfferingFactory(course=course, slug="other"), role="instructor"
    ).user
    for user in (assistant, student, stranger):
        client.force_login(user)
        assert client.get(_url()).status_code == 403
        assert client.post(_url(), {"seed": "1"}).status_code == 403

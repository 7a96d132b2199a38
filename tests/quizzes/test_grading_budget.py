"""Answers that cost no try are still limited per student, a wrong dimension is one of them,
and a student has one formula in grading at a time (issue: one student starved formula
grading for everyone with free answers)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from quizzes.models import Response
from quizzes.services import attempts as service
from quizzes.services import grading_budget
from quizzes.services.availability import QuizRuleError
from tests.factories import EnrollmentFactory, check_answer, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def clean_cache(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    cache.clear()
    yield
    cache.clear()


def _answer(variant, part, raw, student):
    return check_answer(variant, student, raw, part)


@pytest.fixture
def numeric(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], tries_per_variant=2)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt.variants.get()


@pytest.fixture
def formula(course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], tries_per_variant=2)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt.variants.get()


@pytest.mark.parametrize("raw", ["12 GB", "3 FLOP", "40 tokens", "2 GB/s"])
def test_a_wrong_dimension_costs_no_try_and_names_the_expected_dimension(numeric, student, raw):
    response = _answer(numeric, "t", raw, student)
    assert response.status == "invalid" and response.try_number is None
    assert response.diagnosis == "wrong-dimension"
    assert "a time" in response.feedback
    # the two tries are both still there
    assert _answer(numeric, "t", "1 s", student).try_number == 1


def test_free_answers_beyond_the_budget_are_refused_with_a_slow_down(numeric, student, settings):
    settings.GRADING_FREE_BUDGET = 3
    for raw in ("banana", "12 GB", "3,5 s"):
        assert _answer(numeric, "t", raw, student).status == "invalid"
    with pytest.raises(QuizRuleError, match="Slow down.*try again in \\d+ seconds"):
        _answer(numeric, "t", "1 s", student)
    assert Response.objects.filter(variant=numeric).count() == 3


def test_graded_answers_do_not_spend_the_budget(numeric, student, settings):
    settings.GRADING_FREE_BUDGET = 1
    assert _answer(numeric, "t", "1 s", student).try_number == 1
    assert _answer(numeric, "t", "banana", student).status == "invalid"
    with pytest.raises(QuizRuleError, match="Slow down"):
        _answer(numeric, "t", "2 s", student)


def test_one_students_budget_is_not_anothers(course, numeric, student, settings):
    settings.GRADING_FREE_BUDGET = 1
    _answer(numeric, "t", "banana", student)
    other = EnrollmentFactory(course=course).user
    variant = service.start_attempt(quiz=numeric.attempt.quiz, student=other, now=timezone.now())
    assert _answer(variant.variants.get(), "t", "banana", other).status == "invalid"


def test_the_budget_window_ends(student, settings):
    settings.GRADING_FREE_BUDGET, settings.GRADING_FREE_WINDOW = 1, 60
    grading_budget.count_free(student.pk, now=120.0)
    with pytest.raises(QuizRuleError):
        grading_budget.check_budget(student.pk, now=150.0)
    grading_budget.check_budget(student.pk, now=181.0)  # the next window


def test_a_second_formula_while_one_is_graded_is_refused_at_once(formula, student):
    part = "kv"
    with grading_budget.one_formula_at_a_time(student.pk):
        with pytest.raises(QuizRuleError, match="still being checked"):
            _answer(formula, part, "2 n b", student)
    assert not Response.objects.filter(variant=formula).exists()
    # once the first is done, the next one is graded
    assert _answer(formula, part, "2 n b", student).status in ("correct", "incorrect")


def test_numbers_are_not_held_by_a_formula_in_flight(numeric, student):
    with grading_budget.one_formula_at_a_time(student.pk):
        assert _answer(numeric, "t", "1 s", student).try_number == 1


def test_another_students_formula_is_not_held(course, formula, student):
    other = EnrollmentFactory(course=course).user
    attempt = service.start_attempt(quiz=formula.attempt.quiz, student=other, now=timezone.now())
    with grading_budget.one_formula_at_a_time(student.pk):
        response = _answer(attempt.variants.get(), "kv", "2 n b", other)
    assert response.status in ("correct", "incorrect")

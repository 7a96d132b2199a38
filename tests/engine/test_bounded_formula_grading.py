"""Formula parts are graded under the worker pool's limits by default, so neither grading a
response nor validating a template (which the studio does inside a web request) can hang."""

from __future__ import annotations

import pytest

import quizzes.grading
from quizzes.engine import (
    TemplateError,
    generate_variant,
    grade_part,
    parse_template,
    validate_template,
)
from quizzes.grading import Grade

FORMULA = """\
slug: hostile-formula
title: A formula
chapter: inference
objectives: [Write a formula]
difficulty: 1
parameters:
  k: {{range: [2, 40], step: 1}}
prompt: Write it.
parts:
  - id: f
    kind: formula
    variables: {{n: positive}}
    answer: "{answer}"
solution: Done.
"""


def formula_template(answer: str):
    return parse_template(FORMULA.format(answer=answer), source="hostile.yaml")


@pytest.fixture
def pool_calls(monkeypatch):
    """Count the default path's calls into the pool, with the in-process switch turned on."""
    monkeypatch.setenv("GRADING_INLINE", "1")
    calls = []
    real = quizzes.grading.grade_in_pool

    def counting(kind, /, **kwargs):
        calls.append(kwargs["expected"])
        return real(kind, **kwargs)

    monkeypatch.setattr(quizzes.grading, "grade_in_pool", counting)
    return calls


@pytest.mark.parametrize("answer", ["n^(10^6)", "(10^5)! * n", "n^(10^10^10) + {{ k }} n"])
def test_literal_hostile_formula_answer_is_refused_when_the_template_is_parsed(answer):
    with pytest.raises(TemplateError, match="part 'f'.*too large"):
        formula_template(answer)


@pytest.mark.parametrize("answer", ["n^{{ 10**6 }}", "n^{{ 10**6 }} + {{ k }} n"])
def test_hostile_formula_answer_is_a_validation_failure_graded_once(answer, pool_calls):
    report = validate_template(formula_template(answer), seeds=200)
    failure = next(f for f in report.failures if f.check == "grading")
    assert failure.part == "f" and failure.seed == 0
    assert "too large" in failure.message
    assert len(pool_calls) == 1


def test_sound_formula_is_graded_in_the_pool_once_per_distinct_answer(pool_calls):
    report = validate_template(formula_template("{{ k }} * n^2"), seeds=200)
    assert report.ok, [str(f) for f in report.failures]
    assert len(pool_calls) == len(set(pool_calls)) == report.distinct_variants > 1


def test_part_the_grader_could_not_check_is_not_graded_again():
    calls = []

    def out_of_time(kind, **kwargs):
        calls.append(kwargs["expected"])
        return Grade("invalid", 0.0, "This answer took too long to check; simplify it.")

    report = validate_template(formula_template("{{ k }} * n"), seeds=50, grade_fn=out_of_time)
    [failure] = report.failures
    assert "took too long" in failure.message and failure.seed == 0
    assert len(calls) == 1


def test_grade_part_sends_a_formula_to_the_pool_by_default(pool_calls):
    template = formula_template("{{ k }} * n^2")
    variant = generate_variant(template, 3)
    k = variant.params["k"]
    assert grade_part(template, variant, "f", f"n^2 * {k}").status == "correct"
    assert grade_part(template, variant, "f", f"n^2 * {k + 1}").status == "incorrect"
    assert len(pool_calls) == 2

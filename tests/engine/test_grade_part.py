"""grade_part: numeric and choice grading, common errors, error carried forward, grade_fn."""

from __future__ import annotations

import pytest

from quizzes.engine import generate_variant, grade_part, parse_template

CHOICE = """\
slug: pick-many
title: Pick many
chapter: gpus
objectives: [Pick]
difficulty: 1
prompt: Which are even?
parts:
  - id: c
    kind: choice
    multiple: true
    options:
      - {id: two, text: "2", correct: true}
      - {id: four, text: "4", correct: true}
      - {id: five, text: "5", correct: false, diagnosis: reciprocal, feedback: "5 is odd."}
  - id: one
    kind: choice
    options:
      - {id: "yes", text: "Yes", correct: true}
      - {id: "no", text: "No", correct: false}
solution: Two and four.
"""


@pytest.fixture
def variant(numeric_template):
    return generate_variant(numeric_template, 11)


def seconds(value: float) -> str:
    return f"{value * 1e3:.6g} ms"


def test_correct_numeric_answer_in_another_unit(numeric_template, variant):
    grade = grade_part(numeric_template, variant, "t", seconds(variant.answers["t"]))
    assert grade.status == "correct" and grade.score == 1.0


def test_common_error_is_diagnosed(numeric_template, variant):
    wrong = seconds(8 * variant.answers["t"])
    grade = grade_part(numeric_template, variant, "t", wrong)
    assert grade.status == "incorrect"
    assert grade.diagnosis == "bits-for-bytes"
    assert "bits as bytes" in grade.feedback


def test_carried_forward_answer_scores_full_marks(numeric_template, variant):
    student_t = 2 * variant.answers["t"]
    response = f"{variant.params['w'] / student_t:.6g} B/s"
    without = grade_part(numeric_template, variant, "rate", response)
    carried = grade_part(numeric_template, variant, "rate", response, earlier={"t": student_t})
    assert without.status == "incorrect"
    assert carried.status == "correct" and carried.score == 1.0
    assert "carried forward" in carried.feedback


def test_carry_forward_does_not_rescue_an_unrelated_answer(numeric_template, variant):
    student_t = 2 * variant.answers["t"]
    response = f"{3 * variant.params['w'] / student_t:.6g} B/s"
    grade = grade_part(numeric_template, variant, "rate", response, earlier={"t": student_t})
    assert grade.status == "incorrect"


def test_grade_fn_receives_the_kind_and_the_grader_arguments(numeric_template, variant):
    calls = []

    def spy(kind, **kwargs):
        calls.append((kind, kwargs))
        from quizzes.grading import grade_numeric

        return grade_numeric(**kwargs)

    grade_part(numeric_template, variant, "t", "1 s", grade_fn=spy)
    [(kind, kwargs)] = calls
    assert kind == "numeric"
    assert kwargs["expected"] == variant.answers["t"]
    assert kwargs["unit"] == "s" and kwargs["rtol"] == 0.01
    assert [ce.code for ce in kwargs["common_errors"]] == ["bits-for-bytes"]


def test_formula_part_goes_to_the_symbolic_grader():
    text = """\
slug: f
title: F
chapter: inference
objectives: [F]
difficulty: 1
parameters:
  layers: {choice: [32]}
prompt: Write it.
parts:
  - id: kv
    kind: formula
    variables: {n: positive, b: integer}
    answer: "4 * {{ layers }} * n * b / {{ 0.5 }}"
solution: Done.
"""
    template = parse_template(text, source="f.yaml")
    variant = generate_variant(template, 1)
    assert variant.answers["kv"] == "4 * 32 * n * b / 0.5"
    seen = {}

    def fake(kind, **kwargs):
        seen.update(kwargs, kind=kind)
        return "graded"

    assert grade_part(template, variant, "kv", "256 n b", grade_fn=fake) == "graded"
    assert seen == {
        "kind": "symbolic",
        "response": "256 n b",
        "expected": "4 * 32 * n * b / 0.5",
        "variables": {"n": "positive", "b": "integer"},
    }


def test_multiple_choice_needs_the_exact_set_and_gives_partial_credit():
    template = parse_template(CHOICE, source="c.yaml")
    variant = generate_variant(template, 3)
    assert grade_part(template, variant, "c", ["four", "two"]).status == "correct"
    partial = grade_part(template, variant, "c", ["two"])
    assert partial.status == "incorrect" and partial.score == 0.5
    wrong = grade_part(template, variant, "c", ["two", "five"])
    assert wrong.score == 0.0
    assert wrong.diagnosis == "reciprocal" and wrong.feedback == "5 is odd."


def test_single_choice_refuses_unknown_or_several_options():
    template = parse_template(CHOICE, source="c.yaml")
    variant = generate_variant(template, 3)
    assert grade_part(template, variant, "one", "yes").status == "correct"
    assert grade_part(template, variant, "one", "no").status == "incorrect"
    assert grade_part(template, variant, "one", "maybe").status == "invalid"
    assert grade_part(template, variant, "one", ["yes", "no"]).status == "invalid"
    assert grade_part(template, variant, "one", "").status == "invalid"


def test_unknown_part_is_a_key_error(numeric_template, variant):
    with pytest.raises(KeyError, match="no part 'z'"):
        grade_part(numeric_template, variant, "z", "1 s")

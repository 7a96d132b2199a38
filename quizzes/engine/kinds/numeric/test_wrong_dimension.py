"""The engine treats a wrong dimension as a format problem that costs no try, while the
grader keeps Contract 2 ("incorrect", naming the expected dimension)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import generate_variant, grade_part, parse_template
from quizzes.grading import grade_numeric

STARTER = Path(__file__).resolve().parent / "starter.yaml"


@pytest.fixture(scope="module")
def numeric_template():
    return parse_template(STARTER.read_text(encoding="utf-8"), source="starter.yaml")


@pytest.mark.parametrize("response", ["12 GB", "3 TFLOP", "7 tokens/s", "5 GB/s"])
def test_wrong_dimension_is_invalid_at_the_engine_and_keeps_its_diagnosis(
    numeric_template, response
):
    variant = generate_variant(numeric_template, 2)
    grade = grade_part(numeric_template, variant, "t", response)
    assert grade.status == "invalid" and grade.score == 0.0
    assert grade.diagnosis == "wrong-dimension"
    assert "asks for a time" in grade.feedback


def test_the_grader_itself_still_says_incorrect():
    grade = grade_numeric("12 GB", 0.5, unit="s")
    assert (grade.status, grade.diagnosis) == ("incorrect", "wrong-dimension")


def test_a_right_dimension_wrong_value_still_costs_a_try(numeric_template):
    variant = generate_variant(numeric_template, 2)
    assert grade_part(numeric_template, variant, "t", "1e6 s").status == "incorrect"

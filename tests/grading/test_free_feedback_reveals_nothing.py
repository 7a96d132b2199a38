"""Feedback that costs no try reveals nothing about the answer: the unit suggested for a
missing or wrong unit comes from the expected dimension only, never from the answer's
magnitude (issue: "Add a unit, for example GFLOP" took its prefix from the correct answer)."""

from __future__ import annotations

import re

import pytest

from quizzes.grading import grade_numeric, grade_symbolic

MAGNITUDES = [3e-9, 2.5e-3, 1.0, 7e3, 4.2e6, 9.9e9, 1.2e12, 3.3e15, 8e18]


@pytest.mark.parametrize("unit", ["FLOP", "B", "B/s", "s", "FLOP/s", "FLOP/B", "tokens/s"])
def test_missing_unit_hint_is_the_same_whatever_the_answer(unit):
    hints = {grade_numeric("42", value, unit=unit).feedback for value in MAGNITUDES}
    assert len(hints) == 1
    [hint] = hints
    assert hint.startswith("Add a unit, for example ")


@pytest.mark.parametrize("unit", ["FLOP", "B", "B/s", "s", "FLOP/B"])
def test_wrong_dimension_message_is_the_same_whatever_the_answer(unit):
    other = "12 tokens"
    messages = {grade_numeric(other, value, unit=unit).feedback for value in MAGNITUDES}
    assert len(messages) == 1


@pytest.mark.parametrize("value", MAGNITUDES + [-5.0, -2e12])
def test_no_free_message_carries_the_answers_digits_or_sign(value):
    for response in ("42", "12 tokens", "banana", "3 KB", "", "1e999 B", "7 m"):
        grade = grade_numeric(response, value, unit="FLOP")
        if grade.status == "invalid":
            text = grade.feedback
            assert "-" not in text.replace("e-", "")
            digits = f"{abs(value):.2e}".split("e")[0]
            assert digits not in text
            prefixes = re.findall(r"\b([kMGTPE])FLOP\b", text)
            assert prefixes in ([], ["T"]), text  # the fixed example for computation: TFLOP


def test_an_unreadable_expected_formula_is_not_shown_to_the_student():
    grade = grade_symbolic("n", "pi/2 - atanh(n)", variables=["n"])
    assert grade.status == "invalid"
    assert "atanh" not in grade.feedback and "pi/2" not in grade.feedback

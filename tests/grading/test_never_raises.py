"""Grading never raises, whatever the typed or the expected side holds (issue: an exception
escaped when the expected formula used a function the grammar did not know)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzes.grading import grade_numeric, grade_symbolic

STATUSES = {"correct", "incorrect", "invalid"}

# Pieces a student or an author might put together: names, functions known and unknown,
# operators, numbers small and huge, unicode look-alikes and superscripts.
TOKENS = [
    "n", "m", "x", "e", "pi", "π", "(", ")", "|", "^", "**", "*", "/", "+", "-", "!", ",",
    "×", "·", "÷", "²", "³", "ⁿ", "⁻¹", " ", "0", "1", "2", "0.5", "10", "1e300", "1e-9",
    "999999999999", "log", "ln", "log2", "log10", "sqrt", "exp", "sin", "cos", "tan", "atan",
    "asin", "acos", "min", "max", "floor", "ceil", "abs", "factorial", "atanh", "gamma",
    "lambda", "__import__", ".", "'", "=", "[", "]", "n!", "exp(", "log(",
]  # fmt: skip

formulas = st.lists(st.sampled_from(TOKENS), min_size=0, max_size=14).map("".join)
spaced = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=10).map(" ".join)
anything = st.one_of(formulas, spaced, st.text(max_size=40))
FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _check(grade) -> None:
    assert grade.status in STATUSES
    assert 0.0 <= grade.score <= 1.0
    assert (grade.score == 1.0) == (grade.status == "correct")
    assert isinstance(grade.feedback, str) and grade.feedback


@FUZZ
@given(response=anything)
def test_any_typed_formula_gets_a_grade(response):
    _check(grade_symbolic(response, "2*n*m", variables=["n", "m"]))


@FUZZ
@given(expected=anything)
def test_any_expected_formula_gets_a_grade(expected):
    _check(grade_symbolic("n^2 + 1", expected, variables={"n": "real", "m": "integer"}))


@FUZZ
@given(response=anything, expected=anything)
def test_any_pair_of_formulas_gets_a_grade(response, expected):
    _check(grade_symbolic(response, expected, variables=["n", "m", "x"]))


@FUZZ
@given(
    response=st.one_of(st.text(max_size=40), formulas),
    expected=st.floats(allow_nan=True, allow_infinity=True),
    unit=st.sampled_from([None, "B", "B/s", "FLOP/B", "s", "tokens/s", "KB", "bogus", ""]),
)
def test_any_numeric_response_gets_a_grade(response, expected, unit):
    _check(grade_numeric(response, expected, unit=unit))


@pytest.mark.parametrize(
    "expected",
    [
        "pi/2 - atanh(n)",  # a function the grammar does not know
        "gamma(n)",
        "n.real",
        "__import__('os')",
        "n +",
        "",
        "m * n",  # a name that is not a declared variable
        "n^(10^10^10)",
        "1/0",
    ],
)
@pytest.mark.parametrize("response", ["n", "pi/2 - atan(n)", "banana", ""])
def test_an_unreadable_expected_formula_is_a_fault_of_the_question(expected, response):
    grade = grade_symbolic(response, expected, variables=["n"])
    assert grade.status == "invalid"
    assert "fault is in the question" in grade.feedback


@pytest.mark.parametrize("expected", [None, 12, 1.5, ["n"], object()])
def test_an_expected_formula_that_is_not_text_is_a_fault_of_the_question(expected):
    grade = grade_symbolic("n", expected, variables=["n"])
    assert grade.status == "invalid" and "question" in grade.feedback


@pytest.mark.parametrize(
    ("response", "expected", "variables"),
    [
        ("atan(1/n)", "pi/2 - atan(n)", ["n"]),
        ("arctan(n) + arctan(1/n)", "pi/2", ["n"]),
        ("acos(x)", "pi/2 - asin(x)", {"x": "real"}),
        ("sin(atan(n))", "n/sqrt(1 + n^2)", ["n"]),
    ],
)
def test_inverse_trigonometry_is_in_the_grammar(response, expected, variables):
    assert grade_symbolic(response, expected, variables=variables).status == "correct"


def test_inverse_trigonometry_near_miss_is_incorrect():
    grade = grade_symbolic("pi/2 + atan(n)", "pi/2 - atan(n)", variables=["n"])
    assert grade.status == "incorrect"


def test_a_common_error_the_grammar_cannot_read_is_skipped_not_raised():
    from quizzes.grading import CommonError

    errors = (CommonError("bad", "atanh(n)", "no"), CommonError("half", "n/2", "Half."))
    grade = grade_symbolic("n/2", "n", variables=["n"], common_errors=errors)
    assert grade.status == "incorrect" and grade.diagnosis == "half"


def test_floats_given_as_expected_never_raise():
    for value in (math.nan, math.inf, -math.inf, 1e308, 5e-324):
        _check(grade_numeric("3 GB", value, unit="B"))

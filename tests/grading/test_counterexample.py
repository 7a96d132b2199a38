"""Counterexample feedback: a simple point of the declared domain where a formula differs from
the expected one, both values there, the constant ratio when there is one, and never the
expected formula itself."""

from __future__ import annotations

import re

import pytest

from quizzes.grading import grade_symbolic


def _point(text: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+) = (-?[\d/.]+)", text.split(" your formula")[0]))


@pytest.mark.parametrize(
    ("response", "expected", "variables", "point", "theirs", "ours"),
    [
        # equal at n = 2 and n = 4, so the point must be one where they differ
        ("2^n", "n^2", ["n"], {"n": "1"}, "2", "1"),
        ("sqrt(n^2)", "n", {"n": "real"}, {"n": "-1"}, "1", "-1"),
        ("|x|", "x", {"x": "real"}, {"x": "-1"}, "1", "-1"),
        ("(n+1)!/n!", "n", {"n": "natural"}, {"n": "1"}, "2", "1"),
        ("n m^2 + n", "n m (m + 1)", ["n", "m"], {"m": "2", "n": "1"}, "5", "6"),
        ("n(n-1)/2", "n(n+1)/2", {"n": "nonnegative integer"}, {"n": "1"}, "0", "1"),
    ],
)
def test_the_point_is_simple_in_the_domain_and_both_values_are_given(
    response, expected, variables, point, theirs, ours
):
    grade = grade_symbolic(response, expected, variables=variables)
    assert grade.status == "incorrect"
    text = grade.counterexample
    assert _point(text) == point
    assert f"your formula gives {theirs}, the expected one {ours}" in text


@pytest.mark.parametrize(
    ("response", "expected", "phrase", "factor"),
    [
        ("2 n m k", "n m k", "exactly twice", "factor of 2"),
        ("n m k / 2", "n m k", "exactly half", "factor of 2"),
        ("4 n^2 m", "3 n^2 m", "exactly 4/3×", "factor of 4/3"),
        ("2 n / 3", "n", "exactly 2/3×", "factor of 3/2"),
    ],
)
def test_a_constant_ratio_is_said_as_such(response, expected, phrase, factor):
    grade = grade_symbolic(response, expected, variables=["n", "m", "k"])
    assert grade.diagnosis == "constant-factor"
    assert phrase in grade.counterexample and factor in grade.counterexample
    assert "at every point" in grade.counterexample


def test_the_opposite_sign_is_said_as_such():
    grade = grade_symbolic("-n", "n", variables=["n"])
    assert "opposite sign" in grade.counterexample


@pytest.mark.parametrize(
    ("response", "expected"),
    [("n^3", "n^2 * log(n) + 1"), ("2^n", "n^2"), ("sqrt(n)", "n^(1/3)")],
)
def test_the_expected_formula_is_never_shown(response, expected):
    text = grade_symbolic(response, expected, variables=["n"]).counterexample
    assert text
    assert "log" not in text and "^" not in text and expected not in text


@pytest.mark.parametrize(
    ("response", "variables"), [("n + m", ["n", "m"]), ("n m + 0.5", ["n", "m"])]
)
def test_a_near_miss_off_by_a_non_constant_amount_gets_no_factor_claim(response, variables):
    text = grade_symbolic(response, "n m", variables=variables).counterexample
    assert "at every point" not in text


@pytest.mark.parametrize(("response", "status"), [("m n", "correct"), ("banana", "invalid")])
def test_only_a_wrong_formula_has_a_counterexample(response, status):
    grade = grade_symbolic(response, "n m", variables=["n", "m"])
    assert grade.status == status and grade.counterexample is None

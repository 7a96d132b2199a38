"""Symbolic exponents are not large numbers: only what is numerically huge is refused by
magnitude (issue: n^(log(3)/log(2)) against 3^(log(n)/log(2)) was refused as too large)."""

from __future__ import annotations

import pytest

from quizzes.grading import grade_symbolic


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("n^(log(3)/log(2))", "3^(log(n)/log(2))"),
        ("n^log2(3)", "3^log2(n)"),
        ("n^(log(7)/log(2))", "7^(log2 n)"),
        ("n^(1/log(2))", "e^(log(n)/log(2))"),
        ("2^(log(n)/log(2))", "n"),
        ("n^(sqrt(2))", "exp(sqrt(2) log(n))"),
        ("n^(pi/2)", "exp(pi log(n)/2)"),
        ("n^sin(1)", "exp(sin(1) log n)"),
        ("n^(atan(1))", "n^(pi/4)"),
        ("m^(log(n))", "n^(log(m))"),
    ],
)
def test_identities_with_symbolic_exponents_are_correct(response, expected):
    assert grade_symbolic(response, expected, variables=["n", "m"]).status == "correct"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("n^(log(3)/log(2))", "3^(log(n)/log(3))"),
        ("n^(log(3)/log(2))", "n^(log(2)/log(3))"),
        ("n^sqrt(3)", "n^sqrt(2)"),
    ],
)
def test_near_misses_with_symbolic_exponents_are_incorrect(response, expected):
    assert grade_symbolic(response, expected, variables=["n"]).status == "incorrect"


@pytest.mark.parametrize(
    "response",
    ["n^(10^4)", "2^(exp(10))", "n^(log(10^500))", "exp(exp(10))", "n^(10^(10^10))"],
)
def test_numerically_huge_exponents_are_still_refused(response):
    grade = grade_symbolic(response, "n", variables=["n"])
    assert grade.status == "invalid" and "too large" in grade.feedback

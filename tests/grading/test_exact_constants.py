"""Constant arithmetic in formulas is exact up to the documented limits, and refused beyond them.

The limits (docs/question-format.md): a constant of at most 10^400 in size, exponents within
±1000, factorials of whole numbers up to 400, and at most 20,000 digits for a constant written
exactly as a fraction. A float stops at about 1.8×10^308, so 171! and anything larger must be
worked out in integers, never converted.
"""

from fractions import Fraction
from math import factorial

import pytest

from quizzes.grading import grade_symbolic
from quizzes.grading.formula.grade import parse_formula


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("171!/171", "170!"),
        ("170! * 171", "171!"),
        ("171!/170!", "171"),
        ("200!/199!", "200"),
        ("210!/(209! * 210)", "1"),
        ("sqrt(171!)^2", "171!"),
        ("floor(171!/7)", "171!/7"),
        ("3^(171!/170!)", "3^171"),
        ("2^1000/2", "2^999"),
        ("10^300 * 10^99", "10^399"),
        ("(2/3)^1000 * (3/2)^1000", "1"),
        ("n * 200!/199!", "200 n"),
        ("171! n/171", "170! n"),
    ],
)
def test_large_constants_are_worked_out_exactly(response, expected):
    grade = grade_symbolic(response, expected, variables=["n"])
    assert grade.status == "correct", grade.feedback


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("171!/171 + 1", "170!"),
        ("171! n", "171! n + 1"),
        ("10^399 + 1", "10^399"),
        ("200!/198!", "200"),
    ],
)
def test_large_constants_that_differ_by_one_are_told_apart(response, expected):
    assert grade_symbolic(response, expected, variables=["n"]).status == "incorrect"


def test_a_constant_keeps_its_exact_value_beyond_the_range_of_floats():
    node = parse_formula("171!/171", ["n"]).node
    assert node.exact == Fraction(factorial(170))
    assert parse_formula("171!", ["n"]).node.approx is None  # beyond the largest float


@pytest.mark.parametrize(
    ("response", "limit"),
    [
        ("401!", "the factorial of a number above 400"),
        ("211!", "over 10^400"),
        ("400!/400!", "over 10^400"),
        ("(171!)!", "the factorial of a number above 400"),
        ("10^401", "a power with over 400 digits"),
        ("2^1001", "an exponent beyond ±1000"),
        ("(10^399/(10^399 + 1))^1000", "over 20000 digits when written exactly"),
        ("(sqrt(10^399 + 1)/sqrt(10^399))^1000 n", "over 20000 digits when written exactly"),
        ("(1 + 1/10^29)^1000 n", "over 20000 digits when written exactly"),
    ],
)
def test_beyond_the_limits_a_constant_is_refused_with_the_limit_named(response, limit):
    grade = grade_symbolic(response, "n", variables=["n"])
    assert grade.status == "invalid"
    assert "too large to work with" in grade.feedback and limit in grade.feedback


def test_the_factorial_of_an_exact_non_integer_is_refused():
    grade = grade_symbolic("(343/2)!", "n", variables=["n"])
    assert grade.status == "invalid" and "whole numbers" in grade.feedback

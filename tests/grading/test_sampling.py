"""Sampling reaches the domain's corners and structure (issue 32, item 3).

Random points alone never reach where two formulas that agree elsewhere part: whole numbers
for floor and ceil, the far side of a min's or max's threshold, the bounds of a domain, large
and small magnitudes. These were all graded correct before; each is now found, and the forms
that are equivalent still pass.
"""

from fractions import Fraction

import pytest
import sympy

from quizzes.grading import grade_symbolic
from quizzes.grading.formula.grade import ONE_SIDED_FEEDBACK, parse_formula
from quizzes.grading.formula.growth import reach
from quizzes.grading.formula.sampling import sample_points, thresholds

REAL = {"x": "real"}
POSITIVE_INTEGER = {"n": "positive integer"}


@pytest.mark.parametrize(
    ("response", "expected", "variables", "shown"),
    [
        # whole numbers, where floor and ceil step
        ("floor(x) + 1", "ceil(x)", REAL, "At x = 0 your formula gives 1, the expected one 0."),
        ("ceil(x)", "floor(x) + 1", {"x": "positive"}, "At x = 1 "),
        ("floor(x + 1/2)", "ceil(x - 1/2)", REAL, "At x = 1/2 "),
        # the far side of a threshold a min or max compares against
        ("B", "min(B, 256)", ["B"], "At B = 512 your formula gives 512, the expected one 256"),
        ("min(B, 256)", "B", ["B"], "At B = 512 "),
        ("max(n, 4096)", "n", ["n"], None),
        ("min(B, 10^12)", "B", ["B"], "At B = 2.0e+12 "),
        ("n", "max(n, 10^-6)", ["n"], "At n = 1.0e-12 "),
        # ... and the reciprocal of one a floor or ceil divides by
        ("1", "ceil(n/32)", POSITIVE_INTEGER, "At n = 64 your formula gives 1, the expected one 2"),
        ("ceil(n/32)", "1", POSITIVE_INTEGER, None),
        ("0", "floor(n/100)", POSITIVE_INTEGER, "At n = 100 "),
        ("floor(n/1000)", "0", {"n": "integer"}, None),
        # the domain's bounds
        ("0^n", "0", {"n": "nonnegative integer"}, "At n = 0 your formula gives 1"),
        # large magnitudes
        ("2^n", "min(2^n, 2^1000)", POSITIVE_INTEGER, None),
        ("n", "min(n, 10^300)", ["n"], None),
    ],
)
def test_formulas_that_part_only_at_the_domains_structure_are_told_apart(
    response, expected, variables, shown
):
    grade = grade_symbolic(response, expected, variables=variables)
    assert grade.status == "incorrect", grade.feedback
    if shown:
        assert grade.counterexample.startswith(shown), grade.counterexample


@pytest.mark.parametrize(
    ("response", "expected", "variables"),
    [
        ("ceil(x)", "-floor(-x)", REAL),
        ("floor(x) + 1", "ceil(x) + 1", {"x": "integer"}),
        ("floor(n/2) + ceil(n/2)", "n", POSITIVE_INTEGER),
        ("ceil(n/32)", "floor((n + 31)/32)", POSITIVE_INTEGER),
        ("floor(log2(n))", "ceil(log2(n + 1)) - 1", POSITIVE_INTEGER),
        ("min(B, 256)", "min(256, B)", ["B"]),
        ("min(2B, 512)", "2 min(B, 256)", ["B"]),
        ("max(B, 256) + min(B, 256)", "B + 256", ["B"]),
        ("min(n, 4096) * 2", "min(2n, 8192)", ["n"]),
        ("|x - 3|", "max(x - 3, 3 - x)", REAL),
        ("max(log(n), 0)", "log(max(n, 1))", ["n"]),
        ("max(x, -x)", "|x|", REAL),
        ("min(n, n^2)", "n", POSITIVE_INTEGER),
        ("n!/n", "(n - 1)!", POSITIVE_INTEGER),
        ("(n + 1)^2 - n^2", "2n + 1", ["n"]),
        ("sqrt(n^2 + 1) - n", "1/(sqrt(n^2 + 1) + n)", ["n"]),
        ("atan(1/n)", "pi/2 - atan(n)", ["n"]),
        ("exp(n)/exp(n - 1)", "e", ["n"]),
        ("2^(n^2)", "4^(n^2/2)", ["n"]),
        ("n^(1/n)", "exp(log(n)/n)", ["n"]),
        ("sin(pi n)", "0", {"n": "integer"}),
        ("0^n", "0", POSITIVE_INTEGER),
    ],
)
def test_equivalent_forms_with_steps_and_large_values_still_pass(response, expected, variables):
    grade = grade_symbolic(response, expected, variables=variables)
    assert grade.status == "correct", grade.feedback


def test_when_sampling_cannot_reach_both_sides_of_a_max_the_grader_says_so():
    # Equal for every n, but no point of the domain puts n above n^2 + 1: the max never
    # switches, so the points alone cannot tell whether it matters. Said, never passed.
    grade = grade_symbolic("max(n, n^2 + 1)", "n^2 + 1", variables=["n"])
    assert grade.status == "invalid"
    assert grade.feedback == ONE_SIDED_FEEDBACK


def test_a_difference_in_the_last_digits_of_a_long_constant_is_seen():
    grade = grade_symbolic("exp(n) (1 + 10^-300)", "exp(n)", variables=["n"])
    assert grade.status == "incorrect"
    assert grade_symbolic("n (1 + 10^-300)", "n", variables=["n"]).status == "incorrect"


def symbols_and_points(expected, variables, response=None):
    parsed = parse_formula(expected, variables)
    other = parse_formula(response or expected, variables)
    domains = variables if isinstance(variables, dict) else dict.fromkeys(variables, "positive")
    far = reach([parsed.node, other.node], domains)
    exprs = (parsed.expr, other.expr)
    return sample_points(parsed.expr.free_symbols, exprs, "seed", far), far


def values_of(points, name):
    return {point[symbol] for point in points for symbol in point if symbol.name == name}


def test_the_structured_points_visit_a_threshold_at_and_beyond_it():
    (_, structured), _ = symbols_and_points("min(B, 256)", ["B"])
    assert {Fraction(256), Fraction(512), Fraction(257)} <= values_of(structured, "B")


def test_an_integer_variable_visits_the_reciprocal_of_a_divisor_and_its_neighbours():
    (_, structured), _ = symbols_and_points("ceil(n/32)", POSITIVE_INTEGER)
    assert {Fraction(32), Fraction(33), Fraction(64)} <= values_of(structured, "n")
    assert all(value.denominator == 1 and value >= 1 for value in values_of(structured, "n"))


def test_a_real_variable_visits_whole_numbers_halves_zero_and_both_signs_where_it_steps():
    (_, structured), _ = symbols_and_points("floor(x)", REAL)
    values = values_of(structured, "x")
    assert {Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-3, 2)} <= values


def test_large_magnitudes_go_as_far_as_the_formulas_growth_allows():
    (_, polynomial), far = symbols_and_points("n^3 + n", ["n"])
    assert far[0] == 400 and Fraction(10**400) in values_of(polynomial, "n")
    (_, exponential), far = symbols_and_points("exp(n)", ["n"])
    assert far[0] == 30 and max(values_of(exponential, "n")) == 10**30
    (_, tower), far = symbols_and_points("exp(exp(n))", ["n"])
    assert max(values_of(tower, "n")) < 64


def test_a_positive_variable_is_never_sampled_at_zero_or_below():
    randoms, structured = symbols_and_points("max(n, 10^-6)", ["n"])[0]
    assert min(values_of(randoms + structured, "n")) > 0


def test_the_thresholds_are_the_constants_a_step_compares_against():
    expr = parse_formula("2 n^2 + min(n, 256) + ceil(n/32)", ["n"]).expr
    assert set(thresholds([expr])) == {Fraction(256), Fraction(1, 32)}  # not the 2 of 2 n^2


def test_points_are_the_same_in_every_run():
    first = symbols_and_points("min(B, 256) + P", ["B", "P"])[0]
    again = symbols_and_points("min(B, 256) + P", ["B", "P"])[0]
    assert first == again
    assert all(isinstance(v, Fraction) for point in first[1] for v in point.values())
    assert {s.name for point in first[1] for s in point} == {"B", "P"}
    assert isinstance(next(iter(first[0][0])), sympy.Symbol)

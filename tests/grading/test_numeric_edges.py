"""grade_numeric at every edge, with the expected value as a template computes it.

A template's answer is a float computed in binary: 1.005 × 100 is 100.49999999999999 and
1.1 × 100 is 110.00000000000001. The grader takes the value the author meant
(`numbers.declared`), so rounding half up, a tolerance bound and a zero tolerance land where a
person computing in decimals would put them, in any prefix or IEC unit.
"""

from fractions import Fraction

import pytest

from quizzes.grading import grade_numeric
from quizzes.grading.numbers import declared

GIB80 = 80 * 2**30


@pytest.mark.parametrize(
    ("computed", "meant"),
    [
        (1.005 * 100, Fraction(201, 2)),
        (0.1 * 3, Fraction(3, 10)),
        (1.1 * 100, Fraction(110)),
        (0.145 * 100, Fraction(29, 2)),
        (4.2 / 1000, Fraction(21, 5000)),
        (float(2**60), Fraction(2**60)),  # a whole float is that whole number, all its digits
        (3.35e12, Fraction(335 * 10**10)),
        (-2.4499999999999997, Fraction(-49, 20)),
    ],
)
def test_a_computed_answer_is_taken_as_the_value_the_author_meant(computed, meant):
    assert declared(computed) == meant


@pytest.mark.parametrize(
    ("response", "computed", "sigfigs"),
    [
        ("101", 1.005 * 100, 3),  # 100.49999999999999: half up is 101
        ("102", 1.015 * 100, 3),  # 101.49999999999999
        ("28.5", 0.285 * 100, 3),  # 28.499999999999996
        ("15", 0.145 * 100, 2),  # 14.499999999999998
        ("-2.5", -2.4499999999999997, 2),
        ("1.61 GB", 1.5 * 2**30, 3),  # significant figures in any prefix
        ("1.5 GiB", 1.5 * 2**30, 3),
        ("1610 MB", 1.5 * 2**30, 3),
    ],
)
def test_significant_figures_round_half_up_the_value_meant(response, computed, sigfigs):
    unit = "B" if "B" in response else None
    grade = grade_numeric(response, computed, unit=unit, sigfigs=sigfigs)
    assert grade.status == "correct", grade.feedback


@pytest.mark.parametrize(
    ("response", "computed", "sigfigs"),
    [("100", 1.005 * 100, 3), ("14", 0.145 * 100, 2), ("1.62 GB", 1.5 * 2**30, 3)],
)
def test_the_other_rounding_of_a_half_is_incorrect(response, computed, sigfigs):
    unit = "B" if "B" in response else None
    assert grade_numeric(response, computed, unit=unit, sigfigs=sigfigs).status == "incorrect"


@pytest.mark.parametrize(
    ("response", "computed"),
    [("0.25", 0.245 * 7 / 7), ("101.5", 1.015 * 100), ("28.5", 0.285 * 100)],
)
def test_decimal_places_round_half_up_the_value_meant(response, computed):
    decimals = len(response.split(".")[1])
    assert grade_numeric(response, computed, decimals=decimals).status == "correct"


@pytest.mark.parametrize(
    ("response", "computed", "status"),
    [
        ("108.9", 1.1 * 100, "correct"),  # the lower bound of 1% around 110, inclusive
        ("111.1", 1.1 * 100, "correct"),  # the upper bound
        ("108.89999", 1.1 * 100, "incorrect"),
        ("111.10001", 1.1 * 100, "incorrect"),
        ("0.3", 0.1 * 3, "correct"),  # rtol 0 below: only the value itself
        ("3.3", 3 * 1.1, "correct"),
    ],
)
def test_a_tolerance_bound_around_a_computed_answer_is_inclusive(response, computed, status):
    rtol = 0.0 if computed < 10 else 0.01
    assert grade_numeric(response, computed, rtol=rtol).status == status


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("80.8 GiB", "correct"),  # exactly 1% above 80 GiB
        ("79.2 GiB", "correct"),  # exactly 1% below
        ("86.7583393792 GB", "correct"),  # 80.8 GiB in decimal gigabytes
        ("85040.3524608 MB", "correct"),  # 79.2 GiB in decimal megabytes
        ("80.80001 GiB", "incorrect"),
        ("86.7583393793 GB", "incorrect"),
        ("85040.3524607 MB", "incorrect"),
        ("0.0789 TiB", "correct"),
        ("0.07734375 TiB", "correct"),  # 79.2 GiB is exactly 0.07734375 TiB
        ("0.0773437 TiB", "incorrect"),
    ],
)
def test_tolerance_bounds_in_iec_and_decimal_prefixes_are_exact(response, status):
    assert grade_numeric(response, float(GIB80), unit="B", rtol=0.01).status == status


def test_a_whole_answer_beyond_fifteen_digits_keeps_all_its_digits():
    assert grade_numeric("2^60", float(2**60), rtol=0.0).status == "correct"
    assert grade_numeric("1152921504606846976", float(2**60), rtol=0.0).status == "correct"
    assert grade_numeric("1152921504606846977", float(2**60), rtol=0.0).status == "incorrect"

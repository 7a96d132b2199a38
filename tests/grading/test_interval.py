"""grade_interval: both ends read exactly, both bounds inclusive, at every edge.

The true value is the value the author meant (a float computed as 0.004200000000000001 is
4.2 ms), an end is the exact value the student typed in whatever prefix or IEC unit, and
`max_ratio` is the decimal it is written as.
"""

import pytest

from quizzes.grading.interval import MISSES, TOO_WIDE, grade_interval

MS = 0.0042  # 4.2 ms, as a template declares it
GIB8 = 8 * 2**30  # 8 GiB in bytes


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("4.2 ms to 42 ms", MS),  # the value at the low end
        ("0.42 ms to 4.2 ms", MS),  # ... and at the high end
        ("4.2 to 42 ms", MS),
        ("4200 µs to 42 ms", MS),  # another prefix on the bound
        ("4200 us to 0.042 s", MS),
        ("0.0042 s to 0.042 s", MS),
        ("4.2e-3 s to 4.2e-2 s", MS),
        ("0.42 ms to 4.2 ms", 4.2 / 1000),  # computed: 0.004200000000000001
        ("0.42 ms to 4.2 ms", 8.4e9 / 2e12),
        ("42 ms to 420 ms", 0.0042 * 10),  # computed: 0.041999999999999996
        ("8 GiB to 16 GiB", GIB8),  # IEC units on the bound
        ("4 GiB to 8 GiB", GIB8),
        ("8589934592 B to 16 GiB", GIB8),
        ("8.589934592 GB to 16 GB", GIB8),  # the same bound in decimal prefixes
        ("4 GiB to 8589934592 B", GIB8),
        ("0.3 to 3", 0.1 * 3),  # a plain number computed as 0.30000000000000004
        ("100.5 to 1000", 1.005 * 100),  # computed as 100.49999999999999
    ],
)
def test_a_range_whose_end_is_the_value_contains_it(response, expected):
    unit = None if "to 3" in response or "1000" in response else ("s" if "s" in response else "B")
    grade = grade_interval(response, expected, unit=unit)
    assert grade.status == "correct", grade.feedback


@pytest.mark.parametrize(
    ("response", "expected", "unit"),
    [
        ("4.21 ms to 42 ms", MS, "s"),
        ("0.42 ms to 4.19 ms", MS, "s"),
        ("4200.001 µs to 42 ms", MS, "s"),
        ("8.000001 GiB to 16 GiB", GIB8, "B"),
        ("8.589934593 GB to 16 GB", GIB8, "B"),
        ("4 GiB to 8589934591 B", GIB8, "B"),
        ("0.31 to 3", 0.1 * 3, None),
    ],
)
def test_a_range_just_beside_the_value_misses_it(response, expected, unit):
    grade = grade_interval(response, expected, unit=unit)
    assert (grade.status, grade.diagnosis) == ("incorrect", MISSES)


@pytest.mark.parametrize(
    ("response", "max_ratio"),
    [
        ("1 to 1.2", 1.2),
        ("10 to 12", 1.2),
        ("1 to 3.3", 3.3),
        ("0.5 to 5", 10.0),
        ("1 to 10", 10),
        ("1.5 to 2.25", 1.5),
        ("1 to 1.1", 1.1),
    ],
)
def test_a_range_exactly_max_ratio_wide_is_accepted(response, max_ratio):
    low = float(response.split(" to ")[0])
    grade = grade_interval(response, low, max_ratio=max_ratio)
    assert grade.status == "correct", grade.feedback


def test_a_range_exactly_max_ratio_wide_in_units_is_accepted():
    assert grade_interval("1 GB to 1.2 GB", 1e9, unit="B", max_ratio=1.2).status == "correct"
    assert grade_interval("1000 MB to 1.2 GB", 1e9, unit="B", max_ratio=1.2).status == "correct"
    assert grade_interval("1 GiB to 1.25 GiB", 2**30, unit="B", max_ratio=1.25).status == "correct"


@pytest.mark.parametrize(
    ("response", "max_ratio", "says"),
    [
        ("1 to 1.2000001", 1.2, "a little more than a factor of 1.2"),
        ("1 to 1.21", 1.2, "a factor of 1.21"),
        ("1 to 10.00001", 10, "a little more than a factor of 10"),
        ("0.1 to 100", 10, "a factor of 1,000"),
    ],
)
def test_a_range_wider_than_max_ratio_is_too_wide_and_says_by_how_much(response, max_ratio, says):
    grade = grade_interval(response, 1.0, max_ratio=max_ratio)
    assert (grade.status, grade.diagnosis) == ("incorrect", TOO_WIDE)
    assert f"spans {says};" in grade.feedback
    assert f"the widest accepted here is a factor of {max_ratio:g}" in grade.feedback


def test_feedback_on_a_miss_never_says_on_which_side_the_value_lies():
    low = grade_interval("5 ms to 40 ms", MS, unit="s")
    high = grade_interval("0.5 ms to 4 ms", MS, unit="s")
    assert low.feedback == high.feedback


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        ("4.2 ms", "low end, 'to', then its high end"),
        ("42 ms to 4.2 ms", "smaller end first"),
        ("0 ms to 4.2 ms", "more than zero"),
        ("4.2 GB to 42 GB", "a time"),
        ("4.2 to 42", "Add a unit"),
    ],
)
def test_an_unreadable_range_is_invalid_and_says_what_to_fix(response, fragment):
    grade = grade_interval(response, MS, unit="s")
    assert grade.status == "invalid"
    assert fragment in grade.feedback

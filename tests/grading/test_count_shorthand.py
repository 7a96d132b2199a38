"""The field's count shorthand on a plain-number answer: 7B is seven billion, never "an amount
of data" marked wrong; where a unit is expected, B stays a byte."""

from __future__ import annotations

import pytest

from quizzes.grading import grade_numeric


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("7B", 7e9),
        ("7 B", 7e9),
        ("7b", 7e9),
        ("7bn", 7e9),
        ("70B", 70e9),
        ("1.5T", 1.5e12),
        ("1.5 T", 1.5e12),
        ("13B", 13e9),
        ("8K", 8e3),
        ("8k", 8e3),
        ("128 K", 128e3),
        ("3.5M", 3.5e6),
        ("7 billion", 7e9),
        ("2 trillion", 2e12),
        ("40 thousand", 4e4),
        ("7 million", 7e6),
    ],
)
def test_count_shorthand_is_read_as_a_multiplier_on_a_plain_number(response, expected):
    grade = grade_numeric(response, expected)
    assert grade.status == "correct", grade.feedback
    assert grade.value == pytest.approx(expected)


@pytest.mark.parametrize(("response", "expected"), [("7B", 70e9), ("1.5T", 15e12), ("8K", 8e6)])
def test_a_wrong_count_in_shorthand_is_graded_on_its_value(response, expected):
    grade = grade_numeric(response, expected)
    assert grade.status == "incorrect"
    assert "amount of data" not in grade.feedback


@pytest.mark.parametrize("response", ["7m", "7 m"])
def test_a_lowercase_m_is_refused_as_ambiguous_at_no_cost(response):
    grade = grade_numeric(response, 7e6)
    assert grade.status == "invalid" and "ambiguous" in grade.feedback


@pytest.mark.parametrize("response", ["7 GB", "7 GiB", "7 B/s", "7 tokens"])
def test_a_real_unit_on_a_count_is_a_wrong_dimension(response):
    grade = grade_numeric(response, 7e9)
    assert grade.status == "incorrect" and grade.diagnosis == "wrong-dimension"


@pytest.mark.parametrize(
    ("response", "expected"), [("7B", 7.0), ("7 b", 7 / 8), ("1.5 TB", 1.5e12)]
)
def test_where_a_unit_is_expected_b_stays_a_byte_or_a_bit(response, expected):
    assert grade_numeric(response, expected, unit="B").status == "correct"


@pytest.mark.parametrize(
    "response", ["3.2x", "3.2 x", "3.2X", "3.2×", "3.2 ×", "3.2 times", "3.2-fold"]
)
def test_a_ratio_written_with_its_sign_reads_as_the_factor(response):
    # The solutions print ratios as "3.2×"; a student who copies that form is right.
    grade = grade_numeric(response, 3.2)
    assert grade.status == "correct", grade.feedback


@pytest.mark.parametrize("response", ["3.2x TB/s", "3.2x", "x3.2", "x"])
def test_the_factor_sign_is_no_unit_where_a_unit_is_expected(response):
    grade = grade_numeric(response, 3.2e12, unit="TB/s")
    assert grade.status != "correct"

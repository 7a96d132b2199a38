"""grade_numeric: tolerance boundaries, rounding rules, dimensions, named and generic errors."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzes.grading import CommonError, grade_numeric

HBM3 = 3.35e12  # B/s, the H100 SXM memory bandwidth used as a running example


@pytest.mark.parametrize(
    "response",
    [
        "3.35 TB/s",
        "3350 GB/s",
        "3 350 GB/s",
        "3.35e12 B/s",
        "26.8 Tbit/s",
        "3.047 TiB/s",
        "3.35 TBps",
        "26.8 Tbps",
        "3.35×10^12 B/s",
        "3.35·10¹² B/s",
        "3350000 MB/s",
    ],
)
def test_answer_in_any_compatible_unit_is_correct(response):
    grade = grade_numeric(response, HBM3, unit="B/s")
    assert grade.status == "correct"
    assert grade.score == 1.0


def test_answer_in_gigabytes_per_second_is_converted():
    grade = grade_numeric("2100 MB/s", 2.1e9, unit="B/s")
    assert grade.value == pytest.approx(2.1e9, rel=1e-15)
    assert grade.interpreted == "2.1×10⁹ B/s"


def test_exactly_at_the_tolerance_bound_is_correct_on_both_sides():
    assert grade_numeric("101", 100, rtol=0.01).status == "correct"
    assert grade_numeric("99", 100, rtol=0.01).status == "correct"
    assert grade_numeric("101.000001", 100, rtol=0.01).status == "incorrect"
    assert grade_numeric("98.999999", 100, rtol=0.01).status == "incorrect"


def test_tolerance_is_exact_decimal_arithmetic():
    # 0.1 + 0.2 != 0.3 in binary floating point; with rtol 0 only exact equality passes
    assert grade_numeric("0.3", 0.3, rtol=0.0).status == "correct"
    assert grade_numeric("3/10", 0.3, rtol=0.0).status == "correct"
    assert grade_numeric("0.30000000000000004", 0.3, rtol=0.0).status == "incorrect"


def test_bound_with_prefix_conversion_is_still_inclusive():
    assert grade_numeric("3.3835 TB/s", HBM3, unit="B/s").status == "correct"
    assert grade_numeric("3383.5 GB/s", HBM3, unit="B/s").status == "correct"
    assert grade_numeric("3383.6 GB/s", HBM3, unit="B/s").status == "incorrect"


def test_absolute_tolerance_only_when_set():
    assert grade_numeric("0.001", 0.0).status == "incorrect"
    assert grade_numeric("0.001", 0.0, atol=0.001).status == "correct"


@pytest.mark.parametrize(
    ("response", "expected", "sigfigs", "status"),
    [
        ("3.35", 3.345, 3, "correct"),  # 3.345 rounds half up to 3.35
        ("3.34", 3.345, 3, "incorrect"),
        ("3.3", 3.345, 3, "incorrect"),
        ("2.5", 2.45, 2, "correct"),
        ("-2.5", -2.45, 2, "correct"),  # halves go away from zero
        ("1.0e3", 999.5, 2, "correct"),
        ("3.346", 3.345, 3, "correct"),  # more digits than asked, same rounded value
        ("3350 GB/s", 3.345e12, 3, "correct"),
    ],
)
def test_significant_figures_are_checked_by_rounding_half_up(response, expected, sigfigs, status):
    unit = "B/s" if "/s" in response else None
    assert grade_numeric(response, expected, unit=unit, sigfigs=sigfigs).status == status


def test_too_few_significant_figures_says_how_many_to_give():
    grade = grade_numeric("3.3", 3.345, sigfigs=3)
    assert "3 significant figures" in grade.feedback


def test_decimal_places_round_half_up_on_the_written_decimal():
    # the float 2.675 is 2.67499999... in binary; read as the decimal 2.675 it rounds up
    assert grade_numeric("2.68", 2.675, decimals=2).status == "correct"
    assert grade_numeric("2.67", 2.675, decimals=2).status == "incorrect"


def test_decimal_places_count_in_the_templates_unit():
    assert grade_numeric("3.35 TB/s", 3.3456e12, unit="TB/s", decimals=2).status == "correct"
    assert grade_numeric("3.34 TB/s", 3.3456e12, unit="TB/s", decimals=2).status == "incorrect"


def test_within_a_factor_mode_for_estimates():
    assert grade_numeric("300 GB", 1e12, unit="B", factor=10).status == "correct"
    assert grade_numeric("10 TB", 1e12, unit="B", factor=10).status == "correct"
    assert grade_numeric("99 GB", 1e12, unit="B", factor=10).status == "incorrect"
    assert grade_numeric("-1 TB", 1e12, unit="B", factor=10).status == "incorrect"


def test_missing_unit_is_invalid_and_suggests_a_unit():
    grade = grade_numeric("3.35", HBM3, unit="B/s")
    assert grade.status == "invalid"
    assert "Add a unit, for example TB/s" in grade.feedback


def test_wrong_dimension_is_incorrect_and_names_the_expected_dimension():
    grade = grade_numeric("3.35 THz", HBM3, unit="B/s")
    assert grade.status == "incorrect"
    assert grade.diagnosis == "wrong-dimension"
    assert "data rate" in grade.feedback and "frequency" in grade.feedback


def test_unit_on_a_plain_number_is_a_wrong_dimension():
    grade = grade_numeric("312 GB", 312.0)
    assert grade.status == "incorrect"
    assert "plain number" in grade.feedback


def test_unknown_unit_is_invalid_with_a_suggestion():
    grade = grade_numeric("3.35 Tbs", HBM3, unit="B/s")
    assert grade.status == "invalid"
    assert "did you mean 'TB/s' or 'Tbit/s'?" in grade.feedback


def test_ambiguous_kilobyte_is_invalid():
    assert grade_numeric("3 KB", 3000, unit="B").status == "invalid"


@pytest.mark.parametrize(
    ("response", "code"),
    [
        ("26.8 TB/s", "bits-for-bytes"),
        ("0.41875 TB/s", "bits-for-bytes"),
        ("6.7 TB/s", "macs-for-flops"),
        ("1.675 TB/s", "macs-for-flops"),
        ("3.35 PB/s", "prefix-slip"),
        ("3.35 GB/s", "prefix-slip"),
        ("3.35e21 B/s", "prefix-slip"),
        ("3.35 TiB/s", "binary-vs-decimal"),
        ("3.0468 TB/s", "binary-vs-decimal"),
    ],
)
def test_generic_slip_is_diagnosed_from_the_ratio(response, code):
    grade = grade_numeric(response, HBM3, unit="B/s")
    assert grade.status == "incorrect"
    assert grade.diagnosis == code


def test_bits_for_bytes_feedback_says_eight_times_too_large():
    grade = grade_numeric("26.8 TB/s", HBM3, unit="B/s")
    assert "8× too large" in grade.feedback and "bits versus bytes" in grade.feedback


def test_reciprocal_is_diagnosed():
    grade = grade_numeric("0.004", 250.0)
    assert grade.diagnosis == "reciprocal"


def test_named_common_error_wins_over_a_generic_slip():
    error = CommonError("forgot-kv-cache", 6.7e12, "You left out the KV cache.")
    grade = grade_numeric("6.7 TB/s", HBM3, unit="B/s", common_errors=[error])
    assert (grade.status, grade.diagnosis) == ("incorrect", "forgot-kv-cache")
    assert grade.feedback == "You left out the KV cache."


def test_common_error_uses_its_own_tolerance():
    error = CommonError("fp32-weights", 28e9, "Those are FP32 bytes.", rtol=0.1)
    assert grade_numeric("26 GB", 14e9, unit="B", common_errors=[error]).diagnosis == (
        "fp32-weights"
    )
    assert grade_numeric("24 GB", 14e9, unit="B", common_errors=[error]).diagnosis is None


def test_correct_answer_is_checked_before_common_errors():
    error = CommonError("same", 14e9, "never shown")
    assert grade_numeric("14 GB", 14e9, unit="B", common_errors=[error]).status == "correct"


def test_invalid_response_carries_no_value():
    grade = grade_numeric("3,35 TB/s", HBM3, unit="B/s")
    assert grade.status == "invalid" and grade.value is None and grade.score == 0.0


def test_percent_answer_to_a_fraction():
    assert grade_numeric("45%", 0.45).status == "correct"


@given(
    expected=st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("1e9"), places=4),
    offset=st.decimals(min_value=-1, max_value=1, places=4),
)
def test_any_value_within_tolerance_is_correct(expected, offset):
    # expected has at most 14 digits, so the float handed over reads back as the same decimal
    response = expected + expected * offset / 100
    assert grade_numeric(format(response, "f"), float(expected), rtol=0.01).status == "correct"


@given(
    expected=st.floats(min_value=1e-3, max_value=1e12),
    excess=st.floats(min_value=1.0101, max_value=1.9),
)
def test_any_value_outside_tolerance_is_not_correct(expected, excess):
    above = grade_numeric(repr(expected * excess), expected, rtol=0.01)
    below = grade_numeric(repr(expected * (2 - excess)), expected, rtol=0.01)
    assert above.status == "incorrect"
    assert below.status == "incorrect"


@given(expected=st.floats(min_value=1e-3, max_value=1e12))
def test_slip_codes_appear_for_eight_two_and_thousand_times(expected):
    assert grade_numeric(repr(expected * 8), expected).diagnosis == "bits-for-bytes"
    assert grade_numeric(repr(expected * 2), expected).diagnosis == "macs-for-flops"
    assert grade_numeric(repr(expected * 1000), expected).diagnosis == "prefix-slip"


@pytest.mark.parametrize("unit", ["Bz", "KB/s", "B//s", 3])
def test_unreadable_expected_unit_is_an_invalid_grade_naming_the_unit(unit):
    grade = grade_numeric("3.35 TB/s", HBM3, unit=unit)
    assert grade.status == "invalid" and grade.score == 0.0
    assert repr(unit) in grade.feedback and "the question" in grade.feedback


@pytest.mark.parametrize("expected", [float("nan"), float("inf"), None])
def test_expected_value_that_is_not_a_finite_number_is_an_invalid_grade(expected):
    grade = grade_numeric("3.35 TB/s", expected, unit="B/s")
    assert grade.status == "invalid" and "not a finite number" in grade.feedback


@pytest.mark.parametrize(
    "unit, example",
    [("FLOP", "2.1 TFLOP"), ("FLOP/B", "2.1 FLOP/B"), ("s", "2.1 ms"), ("B/s", "2.1 TB/s")],
)
def test_a_word_for_a_number_is_told_an_example_in_the_parts_dimension(unit, example):
    grade = grade_numeric("banana", 1.0, unit=unit)
    assert grade.status == "invalid"
    assert grade.feedback == f"Write the number before the unit, as in {example}."

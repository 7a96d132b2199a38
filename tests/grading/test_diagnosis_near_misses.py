"""Every ratio-based diagnosis fires only near the ratio it names, and says the true ratio
(issue: answers 2-4.5% off were told "binary (GiB) versus decimal (GB)")."""

from __future__ import annotations

import pytest

from quizzes.grading import CommonError, grade_numeric

HBM3 = 3.35e12  # B/s, written in TB/s: a TiB/TB slip is 1.024^4
WEIGHTS = 80e9  # B, written in GB: a GiB/GB slip is 1.024^3


@pytest.mark.parametrize("off", [1.02, 1.024, 1.03, 1.045, 0.98, 1 / 1.024, 0.96, 1.0486])
@pytest.mark.parametrize(("expected", "unit"), [(HBM3, "B/s"), (WEIGHTS, "B")])
def test_answers_a_few_percent_off_are_not_told_binary_versus_decimal(off, expected, unit):
    grade = grade_numeric(f"{expected * off:.6e} {unit}", expected, unit=unit)
    assert grade.status == "incorrect"
    assert grade.diagnosis is None
    assert "binary" not in grade.feedback


@pytest.mark.parametrize(
    ("response", "expected", "unit", "factor"),
    [
        ("80 GiB", WEIGHTS, "B", "1.0737 (1.024³), the ratio of GiB to GB"),
        (f"{WEIGHTS / 1.024**3:.6e} B", WEIGHTS, "B", "1.0737 (1.024³)"),
        ("3.35 TiB/s", HBM3, "B/s", "1.0995 (1.024⁴), the ratio of TiB to TB"),
        ("512 MiB", 512e6, "B", "1.0486 (1.024²), the ratio of MiB to MB"),
    ],
)
def test_the_binary_slip_fires_on_its_own_ratio_and_states_it(response, expected, unit, factor):
    grade = grade_numeric(response, expected, unit=unit)
    assert grade.diagnosis == "binary-vs-decimal"
    assert factor in grade.feedback


def test_the_binary_slip_is_for_data_only():
    flops = 989e12
    grade = grade_numeric(f"{flops * 1.024**4:.6e} FLOP/s", flops, unit="FLOP/s")
    assert grade.diagnosis is None


@pytest.mark.parametrize(
    ("ratio", "code"),
    [
        (8, "bits-for-bytes"),
        (1 / 8, "bits-for-bytes"),
        (2, "macs-for-flops"),
        (0.5, "macs-for-flops"),
    ]
    + [(10.0**k, "prefix-slip") for k in (3, 6, -3, -9)]
    + [(1.024**3, "binary-vs-decimal"), (1 / 1.024**3, "binary-vs-decimal")],
)
def test_each_slip_fires_within_the_tolerance_and_not_beyond(ratio, code):
    hit = grade_numeric(f"{WEIGHTS * ratio * 1.005:.8e} B", WEIGHTS, unit="B")
    assert hit.diagnosis == code
    for miss in (1.03, 0.97, 1.2):
        near = grade_numeric(f"{WEIGHTS * ratio * miss:.8e} B", WEIGHTS, unit="B")
        assert near.diagnosis != code, (ratio, miss)


def test_a_loose_part_never_stretches_a_slip_window_towards_the_answer():
    # rtol 10% would have put the GiB/GB window (7.4%) over answers 3% off
    grade = grade_numeric(f"{WEIGHTS * 1.11:.6e} B", WEIGHTS, unit="B", rtol=0.1)
    assert grade.diagnosis is None
    grade = grade_numeric(f"{WEIGHTS * 1.0737:.6e} B", WEIGHTS, unit="B", rtol=0.05)
    assert grade.status == "incorrect" and grade.diagnosis == "binary-vs-decimal"


@pytest.mark.parametrize(("value", "diagnosed"), [(0.004, True), (0.0042, False), (0.0038, False)])
def test_the_reciprocal_fires_only_on_the_reciprocal(value, diagnosed):
    assert (grade_numeric(str(value), 250.0).diagnosis == "reciprocal") is diagnosed


@pytest.mark.parametrize(("factor", "named"), [(1.0, True), (1.005, True), (1.03, False)])
def test_a_templates_common_error_near_the_answer_keeps_a_narrow_window(factor, named):
    # a common error 10% from the answer with a loose 10% window: at most 1/4 of the way back
    error = CommonError("fp32-weights", WEIGHTS * 1.1, "FP32 bytes?", rtol=0.1)
    grade = grade_numeric(
        f"{WEIGHTS * 1.1 * factor:.6e} B", WEIGHTS, unit="B", common_errors=[error]
    )
    assert (grade.diagnosis == "fp32-weights") is named
    assert grade.status == "incorrect"

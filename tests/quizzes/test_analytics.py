"""Item statistics against a small class computed by hand, and the pure formulas behind them."""

from __future__ import annotations

import math

import pytest

from quizzes.services import analytics
from tests.quizzes.test_instructor_helpers import (
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

# Six students, three right/wrong items; X is the item under analysis.
#            X  Y  Z
SIX = [
    ("s1", 1, 1, 1),
    ("s2", 1, 1, 0),
    ("s3", 1, 0, 1),
    ("s4", 0, 1, 0),
    ("s5", 0, 0, 0),
    ("s6", 1, 1, 1),
]


def _hand_point_biserial():
    x = [row[1] for row in SIX]
    rest = [row[2] + row[3] for row in SIX]
    n = len(x)
    m1 = sum(r for r, xi in zip(rest, x) if xi) / sum(x)
    m0 = sum(r for r, xi in zip(rest, x) if not xi) / (n - sum(x))
    mean_rest = sum(rest) / n
    s = math.sqrt(sum((r - mean_rest) ** 2 for r in rest) / n)
    p = sum(x) / n
    return (m1 - m0) / s * math.sqrt(p * (1 - p))


def test_point_biserial_matches_the_textbook_formula_on_six_students():
    x = [row[1] for row in SIX]
    rest = [row[2] + row[3] for row in SIX]
    assert analytics.point_biserial(x, rest) == pytest.approx(_hand_point_biserial())
    assert analytics.point_biserial(x, rest) == pytest.approx(0.686, abs=1e-3)


def test_point_biserial_is_undefined_without_spread():
    assert analytics.point_biserial([1, 1, 1], [0, 1, 2]) is None
    assert analytics.point_biserial([1], [2]) is None


def test_upper_lower_index_compares_the_top_and_bottom_27_percent():
    x = [row[1] for row in SIX]
    totals = [row[1] + row[2] + row[3] for row in SIX]
    # 27% of 6 rounds to 2: the top two totals (s1, s6) got X right, the bottom two (s5, s4) not.
    assert analytics.upper_lower_index(x, totals) == pytest.approx(1.0)


def test_histogram_puts_full_marks_in_the_last_bin():
    bins = analytics.histogram([0.0, 0.05, 0.5, 1.0, 1.0], bins=10)
    assert [b.count for b in bins] == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    assert bins[0].label == "0–10%"


def test_catalog_parameters_are_shown_by_their_key():
    assert analytics.parameter_text({"catalog": "accelerator", "key": "H100"}) == "H100"
    assert analytics.parameter_text(0.000123456) == "0.0001235"


@pytest.fixture
def six_students(course):
    quiz, (x, y, z) = make_quiz(course)
    attempts = {}
    for name, sx, sy, sz in SIX:
        student = make_student(course, name)
        attempts[name] = submitted_attempt(quiz, student, {x: sx, y: sy, z: sz})
    return quiz, (x, y, z), attempts


def _answers(attempts, x):
    def variant(name):
        return attempts[name].variant_for[x.pk]

    for name in ("s1", "s2", "s6"):
        respond(variant(name), "t", "2 ms", "correct")
    respond(variant("s3"), "t", "26.9 GB", "incorrect", diagnosis="bits-for-bytes")
    respond(variant("s3"), "t", "2 ms", "correct", try_number=2)
    for n in (1, 2, 3):
        respond(
            variant("s4"), "t", "26.9 GB", "incorrect", try_number=n, diagnosis="bits-for-bytes"
        )
        respond(variant("s5"), "t", "7 ms", "incorrect", try_number=n)
    respond(variant("s5"), "t", "seven", "invalid", try_number=None)


def test_item_analysis_of_a_hand_computed_class(six_students):
    quiz, (x, _, _), attempts = six_students
    _answers(attempts, x)
    stats = analytics.item_analysis(x.template, offering=x.quiz.offering)
    assert stats.observations == 6
    assert stats.mean_score == pytest.approx(4 / 6)
    assert stats.p_value == pytest.approx(4 / 6)
    assert stats.discrimination == pytest.approx(_hand_point_biserial())
    assert stats.upper_lower == pytest.approx(1.0)
    # First tries: s1, s2, s6 right; s3, s4, s5 wrong.
    assert stats.first_try_success == pytest.approx(3 / 6)
    tries = {row["tries"]: (row["solved"], row["unsolved"]) for row in stats.tries}
    assert tries == {1: (3, 0), 2: (1, 0), 3: (0, 2)}
    wrong = {row["diagnosis"]: (row["count"], row["students"]) for row in stats.wrong}
    assert wrong == {"bits-for-bytes": (4, 2), "": (3, 1)}
    first = stats.wrong[0]
    assert first["diagnosis"] == "bits-for-bytes"
    assert first["examples"][0] == {"raw": "26.9 GB", "count": 4}


def test_item_analysis_of_one_quiz_ignores_other_quizzes(six_students, course):
    quiz, (x, _, _), _ = six_students
    other, (x2, y2) = make_quiz(course, examples=("decode-step-memory-floor", "kv-cache-fits"))
    student = make_student(course, "other-quiz")
    submitted_attempt(other, student, {x2: 0.0, y2: 1.0})
    assert analytics.item_analysis(x.template, offering=x.quiz.offering).observations == 7
    only = analytics.item_analysis(x.template, quiz=quiz)
    assert only.observations == 6
    assert only.mean_score == pytest.approx(4 / 6)


def test_breakdown_by_parameter_and_outcome(six_students):
    _, (x, _, _), attempts = six_students
    layout = {
        "s1": ("H100", "fp16", "memory"),
        "s2": ("H100", "fp8", "memory"),
        "s3": ("A100", "fp16", "compute"),
        "s4": ("A100", "fp8", "compute"),
        "s5": ("A100", "fp16", "memory"),
        "s6": ("H100", "fp16", "compute"),
    }
    for name, (acc, dt, outcome) in layout.items():
        variant = attempts[name].variant_for[x.pk]
        variant.parameters = {"acc": {"catalog": "accelerator", "key": acc}, "dt": dt, "n": 8}
        variant.outcome = outcome
        variant.save()
    stats = analytics.item_analysis(x.template, offering=x.quiz.offering)
    by = {
        p["name"]: {r["value"]: (r["count"], r["mean"]) for r in p["rows"]}
        for p in stats.by_parameter
    }
    # X scores: s1 1, s2 1, s3 1, s4 0, s5 0, s6 1.
    assert by["acc"] == {"H100": (3, pytest.approx(1.0)), "A100": (3, pytest.approx(1 / 3))}
    assert by["dt"] == {"fp16": (4, pytest.approx(3 / 4)), "fp8": (2, pytest.approx(1 / 2))}
    assert "n" not in by  # one value only: nothing to compare
    outcomes = {r["value"]: (r["count"], r["mean"]) for r in stats.by_outcome}
    assert outcomes == {"memory": (3, pytest.approx(2 / 3)), "compute": (3, pytest.approx(2 / 3))}


def test_template_index_gives_headline_numbers_per_template(six_students):
    _, (x, y, z), attempts = six_students
    _answers(attempts, x)
    rows = {row.slug: row for row in analytics.template_index(x.quiz.offering)}
    assert rows[x.template.slug].discrimination == pytest.approx(_hand_point_biserial())
    assert rows[y.template.slug].mean_score == pytest.approx(4 / 6)
    assert rows[x.template.slug].first_try_success == pytest.approx(0.5)


def test_misconception_map_counts_distinct_students(six_students):
    _, (x, _, _), attempts = six_students
    _answers(attempts, x)
    rows = {row["code"]: row for row in analytics.misconception_map(x.quiz.offering)}
    assert set(rows) == {"bits-for-bytes"}  # undiagnosed mistakes are not misconceptions
    row = rows["bits-for-bytes"]
    assert (row["students"], row["count"]) == (2, 4)
    assert row["templates"][0]["slug"] == x.template.slug

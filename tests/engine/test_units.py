"""The second spelling of a correct answer is one the grader reads, whatever the answer's size."""

from __future__ import annotations

import math

import pytest

from quizzes.engine import units
from quizzes.grading import grade_numeric, parse_unit

PART_UNITS = ["B", "B/s", "s", "FLOP", "FLOP/s", "FLOP/B", "tokens/s", "USD", "J", "W", "s/token"]
SIZES = [m * 10.0**e for e in range(-9, 16) for m in (1.0, 3.35)]


@pytest.mark.parametrize("unit", PART_UNITS)
def test_every_alternative_spelling_grades_as_the_answer(unit):
    offered = 0
    for value in SIZES:
        alternative = units.alternative_unit(unit, value)
        if alternative is None:
            continue
        offered += 1
        spelled, number = alternative
        assert parse_unit(spelled).dimensions == parse_unit(unit).dimensions
        grade = grade_numeric(f"{number!r} {spelled}", value, unit=unit, rtol=1e-9)
        assert grade.status == "correct", (unit, value, spelled, grade.feedback)
    assert offered > 0


@pytest.mark.parametrize(
    ("unit", "value"), [("FLOP/B", 0.004), ("tokens/s", 0.02), ("USD", 0.005), ("B", 0.5)]
)
def test_no_fraction_of_a_count_is_offered(unit, value):
    # Below one FLOP per byte (or one token, cent, byte) only a milli prefix would give a
    # number between 1 and 10 000, and the grader refuses milli on counts.
    alternative = units.alternative_unit(unit, value)
    assert alternative is None or not alternative[0].startswith(("m", "µ"))


def test_a_milli_spelling_is_offered_where_the_grader_reads_it():
    spelled, number = units.alternative_unit("Wh", 0.005)
    assert spelled == "mWh" and math.isclose(number, 5.0)


def test_a_spelling_the_grader_refuses_falls_back_to_the_next(monkeypatch):
    real = units._grader_factor.__wrapped__

    def refuses_gigabytes(unit, target):
        return None if target == "GB/s" else real(unit, target)

    monkeypatch.setattr(units, "_grader_factor", refuses_gigabytes)
    spelled, number = units.alternative_unit("B/s", 3.35e12, avoid="TB/s")
    assert spelled != "GB/s"
    assert grade_numeric(f"{number!r} {spelled}", 3.35e12, unit="B/s").status == "correct"


def test_part_units_are_checked_with_the_graders_public_parser(monkeypatch):
    import quizzes.grading

    def refuses(text):
        raise ValueError("no such unit here")

    assert units.unit_problem("B/s") is None
    monkeypatch.setattr(quizzes.grading, "parse_unit", refuses)
    assert "no such unit here" in units.unit_problem("B/s")

"""The numeric-interval kind end to end in the engine: parse, variants, grading by containment
and width, validation and the studio starter."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import (
    TemplateError,
    generate_variant,
    grade_part,
    kinds,
    parse_template,
    validate_template,
)

STARTER = Path(__file__).resolve().parent / "starter.yaml"


@pytest.fixture(scope="module")
def template():
    return parse_template(STARTER.read_text(encoding="utf-8"), source="interval.yaml")


@pytest.fixture(scope="module")
def variant(template):
    return generate_variant(template, 4)


def grade(template, variant, text):
    return grade_part(template, variant, "t", text)


def test_the_starter_parses_into_an_interval_part_with_its_width_limit(template):
    part = template.part("t")
    assert part.kind == "interval" and part.settings.unit == "s"
    assert part.settings.max_ratio == 10.0
    assert kinds.kind_for(part).input_template == "kinds/interval/input.html"


def test_a_range_that_contains_the_value_and_is_narrow_enough_is_correct(template, variant):
    true = variant.answers["t"]
    result = grade(template, variant, f"{true / 2:.4g} s to {true * 2:.4g} s")
    assert result.status == "correct" and result.score == 1.0
    # the low end may take the high end's unit, and prefixes are read exactly
    ms = true * 1e3
    assert grade(template, variant, f"{ms / 3:.4g} to {ms * 3:.4g} ms").status == "correct"


def test_a_range_wider_than_the_limit_is_too_wide_even_when_it_contains_the_value(
    template, variant
):
    true = variant.answers["t"]
    result = grade(template, variant, f"{true / 10:.4g} s to {true * 10:.4g} s")
    assert result.status == "incorrect" and result.diagnosis == "interval-too-wide"
    assert "factor of 10" in result.feedback and "widest" in result.feedback


def test_a_range_that_misses_the_value_says_so_without_saying_which_side(template, variant):
    true = variant.answers["t"]
    result = grade(template, variant, f"{true * 2:.4g} s to {true * 5:.4g} s")
    assert result.status == "incorrect" and result.diagnosis == "interval-misses"
    assert "above" not in result.feedback and "below" not in result.feedback


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2 GB to 5 GB", "asks for a time"),
        ("0.002", "low end, 'to', then its high end"),
        ("5 ms to 2 ms", "smaller end first"),
        ("0 s to 2 ms", "more than zero"),
        ("1 ms to 3 ms to 9 ms", "low end, 'to'"),
        ("2 to 5", "Add a unit"),
    ],
)
def test_unreadable_ranges_and_wrong_units_cost_no_try(template, variant, text, message):
    result = grade(template, variant, text)
    assert result.status == "invalid", result
    assert message in result.feedback


def test_the_starter_validates_over_many_seeds(template):
    report = validate_template(template, seeds=40)
    assert report.ok, [str(f) for f in report.failures]
    assert "t" in report.parts  # its true values are in the answer statistics


def test_a_width_limit_of_one_or_less_is_refused_at_parse_time():
    text = STARTER.read_text(encoding="utf-8").replace("max_ratio: 10", "max_ratio: 1")
    with pytest.raises(TemplateError, match="max_ratio"):
        parse_template(text, source="interval.yaml")


def test_the_answer_key_names_the_value_and_the_width(template, variant):
    part = template.part("t")
    text = kinds.kind_for(part).answer_text(part, variant.answers["t"])
    assert "any range that contains it, at most 10× wide" in text
    assert text.split(" (")[0].endswith("s")

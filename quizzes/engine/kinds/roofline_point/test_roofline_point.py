"""The roofline kind in the engine: parsing with lines, the right point per variant, grading in
log space with its tolerance and partial credit, diagnoses, refusals, read-back, validation."""

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

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")
RIDGE = """\
slug: read-the-ridge
title: Read the ridge point
chapter: roofline
objectives: [Read the ridge point off a roofline]
difficulty: 1
parameters:
  acc: {choice: [A100, H100], catalog: accelerator}
prompt: The roofline of the {{ acc }} in bf16.
parts:
  - id: r
    kind: roofline_point
    ask: intensity
    accelerator: acc
    dtype: "'bf16'"
    intensity: "ridge_point(acc, 'bf16')"
    values: false
    tolerance: 1.3
solution: "{{ ridge_point(acc, 'bf16') | FLOP/B }}"
"""


@pytest.fixture(scope="module")
def starter():
    return parse_template(STARTER, source="starter.yaml")


def _issues(text):
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    return info.value.errors


def _line(text, needle):
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


@pytest.mark.parametrize(
    ("change", "field", "needle", "message"),
    [
        (("    ask: intensity\n", "    ask: ridge\n"), "ask", "ask: ridge", "point, intensity or"),
        (("    tolerance: 1.3", "    tolerance: 0.9"), "tolerance", "tolerance:", "more than 1"),
        (("    values: false", "    values: maybe"), "values", "values:", "true or false"),
        (("    accelerator: acc\n", ""), "accelerator", "- id: r", "needs accelerator"),
        (
            ("intensity: \"ridge_point(acc, 'bf16')\"", 'intensity: "ridge_pont(acc)"'),
            "intensity",
            "ridge_pont",
            "unknown function",
        ),
        (("    values: false", "    colour: red"), "colour", "colour", "unknown"),
    ],
)
def test_authoring_mistakes_are_reported_on_their_line(change, field, needle, message):
    text = RIDGE.replace(*change)
    assert text != RIDGE
    issues = [i for i in _issues(text) if i.field == field]
    assert issues, _issues(text)
    assert message in issues[0].message
    assert issues[0].line == _line(text, needle)


def test_the_right_point_is_the_kernel_on_the_roof(starter):
    from content.physics import attainable_flops

    variant = generate_variant(starter, 4)
    x, y = variant.answers["kernel"]
    with variant.replaying():
        acc, dt = variant.params["acc"], variant.params["dt"]
        assert y == pytest.approx(attainable_flops(acc, dt, x))


def _grade(template, variant, part, **texts):
    return grade_part(template, variant, part, texts)


def test_each_coordinate_is_graded_in_log_space_within_the_tolerance(starter):
    variant = generate_variant(starter, 4)
    x, y = variant.answers["kernel"]
    assert (
        _grade(
            starter, variant, "kernel", intensity=f"{x * 1.24:.4g}", performance=f"{y / 1.24:.4g}"
        ).status
        == "correct"
    )
    off = _grade(starter, variant, "kernel", intensity=f"{x * 1.3:.4g}", performance=f"{y:.4g}")
    assert (off.status, off.score) == ("incorrect", 0.5) and "intensity is not" in off.feedback
    both = _grade(starter, variant, "kernel", intensity=f"{x * 3:.4g}", performance=f"{y * 3:.4g}")
    assert (both.status, both.score) == ("incorrect", 0.0)


def test_units_and_prefixes_are_read_and_a_wrong_dimension_is_unreadable(starter):
    variant = generate_variant(starter, 4)
    x, y = variant.answers["kernel"]
    right = _grade(
        starter,
        variant,
        "kernel",
        intensity=f"{x:.3g} FLOP/B",
        performance=f"{y / 1e12:.3g} TFLOP/s",
    )
    assert right.status == "correct" and "FLOP/s" in right.interpreted
    wrong = _grade(starter, variant, "kernel", intensity=f"{x:.3g} GB", performance=f"{y:.3g}")
    assert wrong.status == "invalid" and "intensity" in wrong.feedback


def test_the_peak_for_a_memory_bound_kernel_is_diagnosed():
    template = parse_template(STARTER.replace("[1, 8, 64, 1024]", "[8]"), source="s.yaml")
    variant = generate_variant(template, 1)
    x, _ = variant.answers["kernel"]
    with variant.replaying():
        peak = variant.params["acc"].peak(variant.params["dt"])
    grade = _grade(template, variant, "kernel", intensity=f"{x:.4g}", performance=f"{peak:.4g}")
    assert (grade.score, grade.diagnosis) == (0.5, "peak-for-attainable")


def test_a_reading_is_right_or_wrong():
    template = parse_template(RIDGE, source="ridge.yaml")
    variant = generate_variant(template, 0)
    ridge, _ = variant.answers["r"]
    assert _grade(template, variant, "r", intensity=f"{ridge * 1.25:.4g}").status == "correct"
    wrong = _grade(template, variant, "r", intensity=f"{ridge * 2:.4g}")
    assert (wrong.status, wrong.score) == ("incorrect", 0.0)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "coordinates"),
        (["52"], "coordinates"),
        (["52", "  "], "attainable FLOP/s"),
        (["", "1e14"], "arithmetic intensity"),
        (["1" * 101, "1e14"], "too long"),
        (["52", "1e14", "3"], "coordinates"),
    ],
)
def test_missing_or_hostile_coordinates_are_refused_before_grading(starter, raw, message):
    with pytest.raises(kinds.AnswerRefused, match=message):
        kinds.kind_named("roofline_point").clean(raw, starter.part("kernel"))


@pytest.mark.parametrize(
    "text", ["-5", "0", "1e999", "nan", "inf", "<b>5</b>", "2^10000", "5 bananas"]
)
def test_unreadable_or_impossible_coordinates_are_invalid_not_raised(starter, text):
    variant = generate_variant(starter, 4)
    grade = _grade(starter, variant, "kernel", intensity=text, performance="1e14")
    assert grade.status == "invalid" and grade.score == 0.0


def test_an_exam_draft_keeps_the_boxes_and_is_read_back(starter):
    kind = kinds.kind_named("roofline_point")
    part = starter.part("kernel")
    draft = kind.draft(["52", ""])
    assert kind.read_back(part, draft) == (
        False,
        "Cannot be read: Give the attainable FLOP/s before checking.",
    )
    assert kind.read_back(part, kind.draft(["52", "123 TFLOP/s"])) == (
        True,
        "Read as 52 FLOP/byte, 123 TFLOP/s",
    )
    facts = {"asked": ("intensity", "performance"), "peak": 1e15, "bandwidth": 2e12}
    state = kind.input_state(facts, kind.draft(["52", "1e14"]))
    assert state["intensity"] == "52" and state["points"] == [("your point", 52.0, 1e14)]


def test_validation_refuses_a_point_above_the_roof(starter):
    high = STARTER.replace(
        '    intensity: "flops / moved"',
        '    intensity: "flops / moved"\n    performance: "acc.peak(dt) * 2"',
    )
    report = validate_template(parse_template(high, source="high.yaml"), seeds=10)
    assert any("above the roof" in f.message for f in report.failures)


def test_the_starter_and_the_reading_validate(starter):
    for template in (starter, parse_template(RIDGE, source="ridge.yaml")):
        report = validate_template(template, seeds=60)
        assert report.ok, [str(f) for f in report.failures]

"""A template's `figure`: parsed from a fixed registry of drawers, drawn from the variant's
parameters, refused by the gate when a hostile or careless author writes what cannot be drawn,
and never allowed to show a key (`quizzes/engine/figures`)."""

from __future__ import annotations

import time

import pytest

from quizzes.engine import TemplateError, generate_variant, parse_template, validate_template
from quizzes.engine.figures import draw_figure, figure_leaks

BARS = """\
slug: figure-bars
title: Weights and a cache against a budget
chapter: inference
objectives: [Compare the weights and one cache with the budget]
difficulty: 2
parameters:
  acc: {choice: [A100, H100], catalog: accelerator}
  gb: {range: [10, 40], step: 1}
  cache_gb: {choice: [1, 2, 3]}
figure:
  draw: bars
  title: "What one {{ acc }} holds"
  unit: B
  series: [weights, KV cache]
  bars:
    - label: the weights
      values: ["gb * 1e9", "0"]
    - label: the weights and one cache
      values: ["gb * 1e9", "cache_gb * 1e9"]
  line: {label: budget, value: "acc.memory_bytes"}
prompt: How much is left after the weights and one cache?
parts:
  - id: left
    kind: numeric
    answer: "acc.memory_bytes - (gb + cache_gb) * 1e9"
    unit: B
    plausible: [1.0e9, 1.0e11]
solution: "{{ part_left | B }}"
"""


def issues_of(text: str) -> list:
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="f.yaml")
    return info.value.errors


def with_bar(value: str, label: str = "the weights") -> str:
    return BARS.replace(
        '- label: the weights\n      values: ["gb * 1e9", "0"]',
        f'- label: "{label}"\n      values: ["{value}", "0"]',
    )


def drawing_failures(text: str, seeds: int = 3) -> list[str]:
    report = validate_template(parse_template(text, source="f.yaml"), seeds=seeds)
    return [str(f) for f in report.failures if f.check in ("expression", "figure-leak")]


# -- parsing -----------------------------------------------------------------------------------


def test_a_bars_figure_parses_into_its_expressions():
    figure = parse_template(BARS, source="f.yaml").figure
    assert (figure.draw, figure.unit, figure.series) == ("bars", "B", ("weights", "KV cache"))
    assert [b.values[1].text for b in figure.bars] == ["0", "cache_gb * 1e9"]
    assert figure.reference[1].text == "acc.memory_bytes"


def test_an_unknown_drawer_is_refused_with_a_suggestion():
    [issue] = issues_of(BARS.replace("draw: bars", "draw: barz"))
    assert issue.field == "draw" and "unknown drawer 'barz'" in issue.message
    assert "bars" in issue.message


def test_markup_is_no_drawer():
    [issue] = issues_of(BARS.replace("draw: bars", "draw: '<svg onload=alert(1)>'"))
    assert issue.field == "draw" and "one of bars, roofline" in issue.message


def test_a_figure_cannot_read_an_answer():
    # drawn before any answer: `part_<id>` names are not the figure's
    issues = issues_of(BARS.replace('values: ["gb * 1e9", "0"]', 'values: ["part_left", "0"]'))
    assert any("part_left" in i.message for i in issues)


@pytest.mark.parametrize(
    "expression",
    ["__import__('os').system('id')", "open('/etc/passwd')", "acc.__class__", "eval('1')"],
)
def test_an_expression_calling_what_is_forbidden_is_refused(expression):
    issues = issues_of(with_bar(expression.replace('"', "'")))
    assert issues and all(i.field == "values" for i in issues)


def test_ten_thousand_bars_are_refused_at_once():
    many = "".join(f'    - {{label: "b{i}", values: ["1", "1"]}}\n' for i in range(10_000))
    text = BARS.replace('    - label: the weights\n      values: ["gb * 1e9", "0"]\n', many)
    started = time.monotonic()
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="f.yaml")
    assert time.monotonic() - started < 5
    # the file's own bound (200,000 characters) or the figure's (12 bars), whichever is first
    assert any("longer than" in i.message or "at most" in i.message for i in info.value.errors)


def test_thirteen_bars_are_refused():
    many = "".join(f'    - {{label: "b{i}", values: ["1", "1"]}}\n' for i in range(13))
    text = BARS.replace('    - label: the weights\n      values: ["gb * 1e9", "0"]\n', many)
    [issue] = issues_of(text)
    assert issue.field == "bars" and "has 14 entries; at most 12" in issue.message


def test_a_unit_the_grader_cannot_read_and_too_many_series_are_refused():
    fields = {i.field for i in issues_of(BARS.replace("unit: B\n", "unit: furlongs\n"))}
    assert "unit" in fields
    five = BARS.replace("[weights, KV cache]", "[a, b, c, d, e]")
    assert any(i.field == "series" and "at most 4" in i.message for i in issues_of(five))


def test_a_roofline_figure_needs_its_hardware():
    text = BARS.replace("draw: bars", "draw: roofline")
    issues = issues_of(text)
    assert {"accelerator", "dtype"} <= {i.field for i in issues}
    assert any(i.field == "unit" and "unknown field" in i.message for i in issues)


# -- drawing -----------------------------------------------------------------------------------


def test_two_seeds_draw_their_own_numbers():
    template = parse_template(BARS, source="f.yaml")
    drawn = {}
    for seed in range(12):
        variant = generate_variant(template, seed)
        figure = draw_figure(template, variant)
        gb, cache = variant.params["gb"], variant.params["cache_gb"]
        assert figure.bars[1].values == (gb * 1e9, cache * 1e9)
        assert figure.reference[1] == float(variant.params["acc"].memory_bytes)
        assert figure.title == f"What one {variant.params['acc'].name} holds"
        drawn[figure] = seed
    assert len(drawn) > 1


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("(1e308 * 10) * 0", "NaN"),
        ("1e308 * 10", "finite"),  # infinity
        ("1e40", "beyond what a figure draws"),
        ("-5", "zero or more"),
        ("'many'", "must be a number"),
    ],
)
def test_a_value_that_cannot_be_drawn_fails_the_gate(value, says):
    failures = drawing_failures(with_bar(value))
    assert failures and says in failures[0], failures


def test_an_over_long_label_fails_the_gate():
    failures = drawing_failures(with_bar("gb * 1e9", label="x" * 70))
    assert failures and "1 to 46 characters" in failures[0]


def test_a_point_off_the_roofline_fails_the_gate():
    text = BARS.replace(
        """  draw: bars
  title: "What one {{ acc }} holds"
  unit: B
  series: [weights, KV cache]
  bars:
    - label: the weights
      values: ["gb * 1e9", "0"]
    - label: the weights and one cache
      values: ["gb * 1e9", "cache_gb * 1e9"]
  line: {label: budget, value: "acc.memory_bytes"}""",
        """  draw: roofline
  title: "The {{ acc }} in bf16"
  accelerator: acc
  dtype: "'bf16'"
  points:
    - {label: kernel, intensity: "gb", performance: "acc.peak('bf16') * 2"}""",
    )
    failures = drawing_failures(text)
    assert failures and "above the roofline" in failures[0]


def test_the_roofline_figure_draws_the_variants_chip():
    text = BARS.replace("draw: bars", "draw: roofline").split("  unit: B")[0] + (
        "  accelerator: acc\n  dtype: \"'bf16'\"\n  points:\n"
        '    - {label: "kernel", intensity: "gb"}\n'
        + BARS.split('  line: {label: budget, value: "acc.memory_bytes"}\n')[1]
    )
    template = parse_template(text, source="f.yaml")
    variant = generate_variant(template, 3)
    figure = draw_figure(template, variant)
    acc = variant.params["acc"]
    assert (figure.accelerator, figure.dtype) == (acc.name, "bf16")
    [(label, x, y)] = figure.points
    assert (label, x) == ("kernel", variant.params["gb"])
    assert y == min(float(acc.peak("bf16")), x * float(acc.memory_bandwidth))


def _roofline_with(extra: str) -> str:
    return BARS.replace("draw: bars", "draw: roofline").split("  unit: B")[0] + (
        f"  accelerator: acc\n  dtype: \"'bf16'\"\n{extra}  points:\n"
        '    - {label: "kernel", intensity: "gb"}\n'
        + BARS.split('  line: {label: budget, value: "acc.memory_bytes"}\n')[1]
    )


def test_bounds_false_is_carried_to_the_drawing_and_only_a_boolean_is_accepted():
    template = parse_template(_roofline_with("  bounds: false\n"), source="f.yaml")
    assert template.figure.bounds is False
    assert draw_figure(template, generate_variant(template, 3)).bounds is False
    assert parse_template(_roofline_with(""), source="f.yaml").figure.bounds is True
    [issue] = issues_of(_roofline_with("  bounds: hide\n"))
    assert issue.field == "bounds" and "must be true or false" in issue.message


# -- the answer is never drawn ----------------------------------------------------------------


def test_a_figure_that_draws_the_key_fails_the_gate():
    leaking = BARS.replace(
        'line: {label: budget, value: "acc.memory_bytes"}',
        'line: {label: left, value: "acc.memory_bytes - (gb + cache_gb) * 1e9"}',
    )
    failures = drawing_failures(leaking)
    assert failures and "figure-leak" in failures[0] and "part left" in failures[0]


def test_a_label_that_prints_the_key_fails_the_gate():
    template = parse_template(
        BARS.replace(
            'values: ["gb * 1e9", "0"]\n    - label: the weights and one cache',
            'values: ["gb * 1e9", "0"]\n    - label: '
            '"{{ acc.memory_bytes - (gb + cache_gb) * 1e9 }} left"',
        ),
        source="f.yaml",
    )
    variant = generate_variant(template, 0)
    [message] = figure_leaks(template, variant, draw_figure(template, variant))
    assert "prints" in message and "part left" in message


def test_the_digits_of_a_name_are_no_printed_number():
    template = parse_template(BARS, source="f.yaml")
    variant = generate_variant(template, 0)
    drawn = draw_figure(template, variant)
    # "H100" or "A100" is in the title; a key of 100 is not printed by it
    from dataclasses import replace

    variant = replace(variant, answers={**variant.answers, "left": 100.0})
    assert figure_leaks(template, variant, drawn) == []


def test_a_sound_figure_passes_the_gate():
    report = validate_template(parse_template(BARS, source="f.yaml"), seeds=40)
    assert report.ok, [str(f) for f in report.failures]

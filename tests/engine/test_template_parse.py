"""parse_template: the format's fields, and every problem reported with its line."""

from __future__ import annotations

import pytest

from quizzes.engine import TemplateError, parse_template
from quizzes.engine.model import Expr

from .samples import NUMERIC


def issues_of(text: str) -> list:
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    return info.value.errors


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_numeric_template_parses_into_frozen_fields(numeric_template):
    template = numeric_template
    assert template.slug == "bandwidth-time"
    assert [p.name for p in template.parameters] == ["acc", "size", "w"]
    assert template.parameters[0].catalog == "accelerator"
    t = template.part("t").settings
    assert t.answer == Expr("w / acc.memory_bandwidth", line_of(NUMERIC, 'answer: "w /'))
    assert (t.unit, t.rtol, t.plausible) == ("s", 0.01, (1.0e-4, 1.0))
    assert template.part("rate").uses == ("t",)
    assert template.prompt.line == line_of(NUMERIC, "Read {{ w")


def test_unknown_function_names_line_and_suggestion():
    text = NUMERIC.replace('"w / acc.memory_bandwidth"', "\"ridge_pont(acc, 'bf16')\"")
    [issue] = issues_of(text)
    assert issue.line == line_of(text, "ridge_pont")
    assert issue.field == "answer"
    assert "unknown function 'ridge_pont'" in issue.message
    assert "did you mean 'ridge_point'" in issue.message
    assert str(issue).startswith(f"line {issue.line}, answer: unknown function")


def test_every_problem_is_reported_at_once():
    text = (
        NUMERIC.replace("chapter: inference", "chapter: infernce")
        .replace("difficulty: 2", "difficulty: 9")
        .replace("code: bits-for-bytes", "code: bits-for-byte")
        .replace("{{ acc }}", "{{ accc }}")
    )
    issues = issues_of(text)
    messages = " | ".join(str(i) for i in issues)
    assert len(issues) == 4
    assert "did you mean 'inference'" in messages
    assert "must be from 1 to 5" in messages
    assert "did you mean 'bits-for-bytes'" in messages
    assert "did you mean 'acc'" in messages
    assert [i.line for i in issues] == sorted(i.line for i in issues)


def test_live_text_error_points_at_the_line_inside_a_block():
    text = NUMERIC.replace("  It takes {{ part_t | s }}.", "  It takes\n  {{ part_q | s }}.")
    [issue] = issues_of(text)
    assert issue.line == line_of(text, "part_q")
    assert issue.field == "solution"


def test_unknown_field_gets_a_suggestion():
    issues = issues_of(NUMERIC.replace("solution:", "soluton:"))
    unknown = next(i for i in issues if i.field == "soluton")
    assert "unknown field" in unknown.message and "did you mean 'solution'" in unknown.message
    assert unknown.line == line_of(NUMERIC, "solution:")


def test_missing_required_fields_are_listed():
    issues = issues_of("slug: x\ntitle: X\n")
    fields = {issue.field for issue in issues}
    assert {"chapter", "difficulty", "prompt", "parts", "solution", "objectives"} <= fields


def test_bad_yaml_reports_its_line():
    [issue] = issues_of("slug: x\ntitle: [unclosed\nchapter: gpus\n")
    assert issue.field == "yaml" and issue.line is not None and issue.line >= 2


def test_uses_must_point_to_an_earlier_numeric_part():
    text = NUMERIC.replace("uses: [t]", "uses: [rate]")
    issues = issues_of(text)
    assert any(i.field == "uses" and "'rate' is not an earlier part" in i.message for i in issues)


def test_part_answer_cannot_read_a_part_it_does_not_use():
    text = NUMERIC.replace("    uses: [t]\n", "")
    [issue] = issues_of(text)
    assert "unknown name 'part_t'" in issue.message


def test_unit_with_a_prefix_is_refused():
    [issue] = issues_of(NUMERIC.replace("unit: s", "unit: ms"))
    assert issue.field == "unit" and "without a prefix" in issue.message


def test_unknown_catalog_entry_is_reported():
    [issue] = issues_of(NUMERIC.replace("[A100, H100, H200]", "[A100, H1000]"))
    assert issue.line == line_of(NUMERIC, "acc: {choice")
    assert "H1000" in issue.message


def test_derived_parameter_sees_only_earlier_parameters():
    text = NUMERIC.replace(
        'w: {value: "size * 1.0e9"}', 'w: {value: "later * 2"}\n  later: {range: [1, 2]}'
    )
    issues = issues_of(text)
    assert any("unknown name 'later'" in i.message for i in issues)


def test_parameter_may_not_shadow_a_function():
    [issue] = issues_of(
        NUMERIC.replace("  size: {range", "  model: {range").replace("size *", "model *")
    )
    assert "already a function" in issue.message


def test_hostile_expression_is_refused_at_parse_time():
    [issue] = issues_of(NUMERIC.replace('"w / acc.memory_bandwidth"', '"acc.__class__"'))
    assert "not allowed" in issue.message


def test_numeric_part_needs_plausible_range():
    [issue] = issues_of(NUMERIC.replace("    plausible: [1.0e11, 1.0e14]\n", ""))
    assert issue.field == "plausible"


def test_a_diagnosis_code_listed_twice_in_one_part_is_refused():
    # A variant keeps one value per code, so the second entry would silently replace the first.
    twice = NUMERIC.replace(
        "        feedback: You read bits as bytes.\n",
        "        feedback: You read bits as bytes.\n"
        "      - code: bits-for-bytes\n"
        '        value: "w / 8 / acc.memory_bandwidth"\n'
        "        feedback: The other way round.\n",
    )
    with pytest.raises(TemplateError) as caught:
        parse_template(twice, source="twice.yaml")
    assert "'bits-for-bytes' is listed twice in this part" in str(caught.value)

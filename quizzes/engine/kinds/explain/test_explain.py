"""The written-explanation kind in the engine: parsing with lines, the rubric per variant, no
automatic score (a pending grade), refusals of over-long or blank answers, validation."""

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
PLAIN = """\
slug: plain-explain
title: Plain
chapter: gpus
objectives: [Explain]
difficulty: 1
prompt: Why?
parts:
  - id: why
    kind: explain
    rubric:
      - {points: 2, text: Says why}
      - {id: unit, points: 1, text: Gives a unit}
solution: Because.
"""


def _issues(text):
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    return info.value.errors


def _line(text, needle):
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


def test_the_variant_keeps_its_rubric_with_its_own_numbers():
    template = parse_template(STARTER, source="starter.yaml")
    kind = kinds.kind_named("explain")
    seen = set()
    for seed in range(8):
        answer = generate_variant(template, seed).answers["why"]
        rubric = kind.rubric(answer)
        assert [item_id for item_id, _, _ in rubric] == ["bytes", "intensity", "bound"]
        assert [points for *_, points in rubric] == [1.0, 1.0, 1.0]
        seen.add(rubric[0][1])
        assert "{{" not in rubric[0][1] and "GB" in rubric[0][1]
    assert len(seen) > 1  # the weights' size follows the variant's model


def test_default_ids_and_length():
    template = parse_template(PLAIN, source="plain.yaml")
    part = template.part("why")
    assert [item.id for item in part.settings.rubric] == ["a", "unit"]
    assert part.settings.max_length == 2000 and part.settings.total == 3.0


def test_grading_gives_no_score_only_a_pending_grade():
    template = parse_template(PLAIN, source="plain.yaml")
    variant = generate_variant(template, 1)
    grade = grade_part(template, variant, "why", "A perfect explanation.")
    assert (grade.status, grade.score, grade.is_pending) == ("pending", 0.0, True)
    assert not grade.is_correct and not grade.is_invalid


@pytest.mark.parametrize(
    ("change", "needle", "field", "message"),
    [
        ("    rubric: []", "rubric: []", "rubric", "list 1 to 12"),
        ("      - {points: 0, text: Says why}", "points: 0", "points", "more than 0"),
        ("      - {points: 200, text: Says why}", "points: 200", "points", "at most 100"),
        ("      - {points: two, text: Says why}", "points: two", "points", "must be a number"),
        ("      - {text: Says why}", "{text: Says why}", "points", "needs points"),
        ("      - {points: 2, text: '{{ nope }}'}", "nope", "text", "nope"),
    ],
)
def test_rubric_errors_name_their_line(change, needle, field, message):
    text = PLAIN.replace("      - {points: 2, text: Says why}", change)
    if change.startswith("    rubric"):
        text = PLAIN.split("    rubric:")[0] + change + "\nsolution: Because.\n"
    errors = _issues(text)
    found = [e for e in errors if e.field == field]
    assert found, errors
    assert message in found[0].message
    assert found[0].line == _line(text, needle)


def test_a_length_outside_its_range_and_unknown_fields_are_refused_at_their_lines():
    text = PLAIN.replace("    rubric:", "    max_length: 50\n    answer: 3\n    rubric:")
    errors = _issues(text)
    length = next(e for e in errors if e.field == "max_length")
    assert length.line == _line(text, "max_length: 50") and "100 to 10,000" in length.message
    assert any(e.line == _line(text, "answer: 3") for e in errors)


def test_clean_refuses_blank_and_over_long_text_and_keeps_the_rest_as_typed():
    part = parse_template(PLAIN, source="plain.yaml").part("why")
    kind = kinds.kind_for(part)
    with pytest.raises(kinds.AnswerRefused, match="Write your explanation"):
        kind.clean("   \n ", part)
    with pytest.raises(kinds.AnswerRefused, match="2,001 characters long"):
        kind.clean("x" * 2001, part)
    assert kind.clean("<b>a</b>\r\nb\x00", part) == "<b>a</b>\nb"
    assert kind.too_long("x" * 10_001) and not kind.too_long("x" * 10_000)


def test_the_answer_key_and_read_back():
    template = parse_template(PLAIN, source="plain.yaml")
    part = template.part("why")
    kind = kinds.kind_for(part)
    answer = generate_variant(template, 1).answers["why"]
    key = kind.answer_key(part, answer)
    assert key["model"] == "" and [row[0] for row in key["rubric"]] == ["a", "unit"]
    assert kind.answer_text(part, answer) == "graded by staff with a rubric of 2 items"
    assert kind.read_back(part, "") == (False, "Nothing written yet.")
    assert kind.read_back(part, "one two") == (True, "2 words saved; staff will grade it.")
    assert kind.reading({}, "x", None) is None
    assert kind.reading({}, "x", '{"earned": 1, "total": 3}') == {"earned": 1, "total": 3}


def test_the_starter_validates():
    template = parse_template(STARTER, source="starter.yaml")
    report = validate_template(template, seeds=30)
    assert report.ok, report.failures

"""A hint may name its part: it is earned by wrong tries at that part alone (a hint about the
FLOPs never follows a wrong byte count), and a part it names must exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import (
    TemplateError,
    earned_hints,
    generate_variant,
    load_template_file,
    parse_template,
    render_scoped_hints,
    template_paths,
    validate_template,
)

QUESTIONS = Path(__file__).resolve().parents[2] / "content/questions"
MATMUL = QUESTIONS / "roofline/roofline-matmul-flops-and-bytes.yaml"


def test_a_part_hint_follows_wrong_tries_at_its_own_part_only():
    template = parse_template(MATMUL.read_text(), source="matmul")
    variant = generate_variant(template, 3)
    assert render_scoped_hints(template, variant, {"flops": 0, "bytes": 0}) == []
    earned = render_scoped_hints(template, variant, {"flops": 0, "bytes": 1, "intensity": 0})
    assert [part for part, _ in earned] == ["bytes"]
    assert "dot product" not in earned[0][1] and "bytes" in earned[0][1]
    both = render_scoped_hints(template, variant, {"flops": 1, "bytes": 1})
    assert sorted(part for part, _ in both) == ["bytes", "flops"]


def test_a_hint_naming_no_part_of_the_question_is_refused():
    text = MATMUL.read_text().replace("part: bytes", "part: bites", 1)
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="matmul")
    assert "names no part of this question (parts: bytes, flops, intensity;" in str(info.value)


def _without_part(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() != "part: bytes")


def test_validation_refuses_a_hint_that_names_no_part_in_a_template_with_several_parts():
    template = parse_template(_without_part(MATMUL.read_text()), source="matmul")
    failures = [f for f in validate_template(template, seeds=2).failures if f.check == "hints"]
    assert len(failures) == 1
    assert "hint 2 names no part" in failures[0].message
    assert "`part: all`" in failures[0].message


def test_part_all_is_a_hint_about_the_whole_question_and_passes_validation():
    text = MATMUL.read_text().replace("part: bytes", "part: all", 1)
    template = parse_template(text, source="matmul")
    assert [hint.part for hint in template.hints] == ["flops", None]
    assert not [f for f in validate_template(template, seeds=2).failures if f.check == "hints"]
    variant = generate_variant(template, 3)
    earned = render_scoped_hints(template, variant, {"intensity": 1})
    assert [part for part, _ in earned] == [None]  # a wrong try at any part earns it


def test_every_hint_of_a_bank_template_with_several_parts_names_its_part():
    unscoped = []
    for path in template_paths(QUESTIONS):
        template = load_template_file(path)
        if len(template.parts) > 1:
            unscoped += [path.name for hint in template.hints if not hint.part_named]
    assert unscoped == []


def test_earned_hints_are_the_ones_rendered_and_a_hint_after_no_try_is_earned_at_once():
    """The attempt page asks `earned_hints` before it renders any (a first view earns none):
    it must name exactly the hints `render_scoped_hints` renders, an `after: 0` hint too."""
    text = MATMUL.read_text()
    first_after = text.index("after:", text.index("hints:"))
    line_end = text.index("\n", first_after)
    at_once = text[:first_after] + "after: 0" + text[line_end:]
    for source in (text, at_once):
        template = parse_template(source, source="matmul")
        variant = generate_variant(template, 3)
        for wrong in ({}, {"flops": 0, "bytes": 0}, {"bytes": 1}, {"flops": 2, "bytes": 1}):
            earned = earned_hints(template, wrong)
            rendered = render_scoped_hints(template, variant, wrong)
            assert [hint.part for hint in earned] == [part for part, _ in rendered]
    template = parse_template(at_once, source="matmul")
    assert [hint.part for hint in earned_hints(template, {})] == ["flops"]
    assert earned_hints(parse_template(text, source="matmul"), {"flops": 0}) == []

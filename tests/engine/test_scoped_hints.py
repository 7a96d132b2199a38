"""A hint may name its part: it is earned by wrong tries at that part alone (a hint about the
FLOPs never follows a wrong byte count), and a part it names must exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import TemplateError, generate_variant, parse_template, render_scoped_hints

MATMUL = (
    Path(__file__).resolve().parents[2]
    / "content/questions/roofline/roofline-matmul-flops-and-bytes.yaml"
)


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
    assert "names no part of this question (parts: bytes, flops, intensity)" in str(info.value)

"""Every example template under content/questions validates and grades its own answers."""

from __future__ import annotations

from pathlib import Path

import pytest

import content
import quizzes.grading
from quizzes.engine import load_template_files, validate_template

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
TEMPLATES = load_template_files(QUESTIONS)


def test_the_five_kinds_of_example_exist():
    kinds = {p.kind for t in TEMPLATES for p in t.parts}
    assert {"numeric", "formula", "choice"} <= kinds
    assert any(p.uses for t in TEMPLATES for p in t.parts)
    assert any(t.outcomes for t in TEMPLATES)
    assert len([t for t in TEMPLATES if t.source.startswith("questions/examples")]) >= 5


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.slug)
def test_template_grades_its_own_answer_across_200_seeds(template):
    needs_symbolic = any(p.kind == "formula" for p in template.parts)
    if needs_symbolic and not hasattr(quizzes.grading, "grade_symbolic"):
        pytest.skip("quizzes.grading.grade_symbolic has not landed yet")
    report = validate_template(template, seeds=200)
    assert report.ok, "\n".join(str(f) for f in report.failures)
    assert report.distinct_variants >= template.min_variants

"""Every template under content/questions validates and grades its own answers over 200 seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

import content
from quizzes.engine import load_template_file, template_paths, validate_template

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)


def test_the_five_kinds_of_example_exist():
    examples = [load_template_file(p) for p in template_paths(QUESTIONS / "examples")]
    parts = [part for template in examples for part in template.parts]
    assert len(examples) >= 5
    assert {"numeric", "formula", "choice"} <= {part.kind for part in parts}
    assert any(part.uses for part in parts)
    assert any(template.outcomes for template in examples)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(QUESTIONS)))
def test_template_grades_its_own_answer_across_200_seeds(path):
    template = load_template_file(path, root=QUESTIONS.parent)
    report = validate_template(template, seeds=200)
    assert report.ok, "\n".join(str(f) for f in report.failures)
    assert report.distinct_variants >= template.min_variants

"""The complete examples in docs/question-format.md parse and validate, so the doc stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizzes.engine import kinds, parse_template, validate_template

DOC = Path(__file__).resolve().parents[2] / "docs" / "question-format.md"
EXAMPLES = [
    block
    for block in re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    if block.startswith("slug:")
]


def test_the_doc_has_a_complete_example_per_part_kind():
    documented = set(re.findall(r"^    kind: (\w+)$", "\n".join(EXAMPLES), re.M))
    assert documented == set(kinds.kind_names())


@pytest.mark.parametrize("text", EXAMPLES, ids=lambda t: t.split("\n", 1)[0][6:])
def test_doc_example_parses_and_validates(text):
    template = parse_template(text, source="docs/question-format.md")
    report = validate_template(template, seeds=100)
    assert report.ok, "\n".join(str(f) for f in report.failures)

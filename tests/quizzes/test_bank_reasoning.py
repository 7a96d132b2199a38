"""Reasoning, not plugging in (issue 30, item 4): at least half of the chapter templates ask the
student to compare, decide, estimate, order or explain, and the `reasoning` tag says exactly
which ones do.

A template asks for reasoning when one of its parts is a decision (a part whose kind has options:
choice, and the ordering and matching kinds), an estimate (an interval) or a written explanation
graded with a rubric (explain), and that part's prompt
asks a question (or the stem does, for parts that only name its cases).  The tag is checked both
ways, so it can never claim a decision that lives only in the solution text (the review's W4),
and the rule fixed-key of validation keeps each such decision varying with the variant.
"""

from __future__ import annotations

import pytest

from quizzes.engine import load_template_files
from quizzes.services.bank import questions_dir

CHAPTERS = ("intro", "gpus", "roofline", "inference", "precision", "interconnect")


@pytest.fixture(scope="module")
def templates():
    return [t for t in load_template_files(questions_dir()) if "examples" not in t.source]


def _decisions(template):
    return [
        part
        for part in template.parts
        if part.kind in ("choice", "ordering", "matching", "interval", "explain")
    ]


def test_the_reasoning_tag_marks_exactly_the_templates_with_a_decision_part(templates):
    wrong = []
    for template in templates:
        decisions = _decisions(template)
        # the question is the part's own, or the stem's when the parts only name the cases
        asks = [
            p
            for p in decisions
            if "?" in (p.prompt.text if p.prompt is not None else "") or "?" in template.prompt.text
        ]
        if ("reasoning" in template.tags) != bool(asks):
            wrong.append(template.slug)
    assert not wrong, f"the reasoning tag disagrees with the parts of: {wrong}"


def test_no_template_keeps_the_old_judgement_tag(templates):
    assert not [t.slug for t in templates if "judgement" in t.tags]


def test_at_least_half_of_the_bank_asks_for_reasoning(templates):
    reasoning = [t for t in templates if "reasoning" in t.tags]
    assert 2 * len(reasoning) >= len(templates), f"{len(reasoning)} of {len(templates)}"
    for chapter in CHAPTERS:
        mine = [t for t in templates if t.chapter == chapter]
        theirs = [t for t in mine if "reasoning" in t.tags]
        assert 5 * len(theirs) >= 2 * len(mine), f"{chapter}: {len(theirs)} of {len(mine)}"

"""The fixed-key rule of the publication gate covers ordering and matching parts too (bank
re-check 5, S5-7): a sequence or a set of pairs that is the same in over 90% of the variants
teaches one fact, as a choice part's fixed option does. Each probe is a small template written to
break the rule; the exemption list holds only documentation examples that no quiz uses."""

from __future__ import annotations

from pathlib import Path

import yaml

from quizzes.engine import parse_template, validate_template
from quizzes.engine.validate.run import FIXED_KEY_EXEMPT

HEAD = """\
slug: rule-probe
title: A probe of one rule
chapter: inference
objectives: [Probe a plausibility rule]
difficulty: 2
parameters:
  x: {range: [1, 100], step: 1}
prompt: |
  A probe.
solution: |
  Because.
"""
ORDERING = """\
parts:
  - id: rank
    kind: ordering
    prompt: Highest first.
    order: descending
    items:
      - {{id: a, text: A, value: "{a}"}}
      - {{id: b, text: B, value: "50"}}
      - {{id: c, text: C, value: "1"}}
"""
MATCHING = """\
parts:
  - id: sort
    kind: matching
    prompt: Which side?
    categories:
      - {{id: low, text: low}}
      - {{id: high, text: high}}
    items:
      - {{id: a, text: A, match: '"low" if {cut} else "high"'}}
      - {{id: b, text: B, match: '"high"'}}
"""
QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "questions"


def fixed_key(text: str, seeds: int = 200):
    report = validate_template(parse_template(HEAD + text, source="rule-probe.yaml"), seeds=seeds)
    return [f for f in report.failures if f.check == "fixed-key"]


def test_an_ordering_whose_sequence_never_changes_is_refused():
    # a is 101-200, always above b and c: the order a > b > c at every seed
    (failure,) = fixed_key(ORDERING.format(a="x + 100"))
    assert failure.part == "rank" and "rule fixed-key" in failure.message
    assert "{a > b > c}" in failure.message


def test_an_ordering_whose_sequence_changes_passes():
    # a is above b at about half the seeds: two sequences, neither over 90%
    assert not fixed_key(ORDERING.format(a="x + 0.5"))


def test_an_ordering_key_counts_the_sequence_not_the_set_of_items():
    # every variant orders the same three ids; only the sequence tells them apart
    assert not fixed_key(ORDERING.format(a="x + 0.5 if x % 2 else 0.5"))


def test_a_matching_whose_pairs_never_change_is_refused():
    (failure,) = fixed_key(MATCHING.format(cut="x <= 97"))
    assert failure.part == "sort" and "a:low, b:high" in failure.message
    assert not fixed_key(MATCHING.format(cut="x <= 50"))


def test_the_exemptions_are_documentation_examples_in_no_quiz():
    used = set()
    for quiz in (QUESTIONS / "quizzes").glob("*.yaml"):
        used |= set(str(yaml.safe_load(quiz.read_text())).split("'"))
    starters = {
        yaml.safe_load(path.read_text())["slug"]
        for path in (QUESTIONS.parents[1] / "quizzes" / "engine" / "kinds").glob("*/starter.yaml")
    }
    for slug, reason in FIXED_KEY_EXEMPT.items():
        assert (QUESTIONS / "examples" / f"{slug}.yaml").exists() or slug in starters, slug
        assert slug not in used, f"{slug} is in a quiz: its fixed key would reach students"
        assert "in no quiz" in reason

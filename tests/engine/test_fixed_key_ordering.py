"""The fixed-key rule of the publication gate covers matching parts too (bank re-check 5,
S5-7): a set of pairs that is the same in over 90% of the variants teaches one fact, as a choice
part's fixed option does. The probe is a small template written to break the rule."""

from __future__ import annotations

from quizzes.engine import parse_template, validate_template

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


def fixed_key(text: str, seeds: int = 200):
    report = validate_template(parse_template(HEAD + text, source="rule-probe.yaml"), seeds=seeds)
    return [f for f in report.failures if f.check == "fixed-key"]


def test_a_matching_whose_pairs_never_change_is_refused():
    (failure,) = fixed_key(MATCHING.format(cut="x <= 97"))
    assert failure.part == "sort" and "a:low, b:high" in failure.message
    assert not fixed_key(MATCHING.format(cut="x <= 50"))

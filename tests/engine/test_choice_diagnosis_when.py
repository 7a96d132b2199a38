"""A choice option's ``diagnosis_when``: the code is recorded only in the variants where the
wrong pick is the slip the code names (bank re-check 5, S5-5: job 2 of
intro-which-number-limits is a roofline job in some variants and a capacity job in others)."""

from __future__ import annotations

import pytest

from quizzes.engine import (
    TemplateError,
    generate_variant,
    grade_part,
    parse_template,
    validate_template,
)

TEMPLATE = """\
slug: when-probe
title: A probe of diagnosis_when
chapter: roofline
objectives: [Probe a conditional code]
difficulty: 1
parameters:
  x: {{range: [1, 100], step: 1}}
prompt: |
  A probe.
parts:
  - id: which
    kind: choice
    prompt: Which?
    options:
      - {{id: a, text: A, correct: "x > 50"}}
      - id: b
        text: B
        correct: "x <= 50"
        diagnosis: memory-vs-compute-bound
{when}
solution: |
  Because.
"""


def probe(when: str):
    return parse_template(TEMPLATE.format(when=when), source="when-probe.yaml")


def test_the_code_is_recorded_only_where_the_condition_holds():
    t = probe('        diagnosis_when: "x > 75"')
    seen = set()
    for seed in range(60):
        v = generate_variant(t, seed)
        x = v.params["x"]
        if x <= 50:
            continue  # b is right: nothing to diagnose
        grade = grade_part(t, v, "which", "b")
        assert grade.status == "incorrect"
        assert grade.diagnosis == ("memory-vs-compute-bound" if x > 75 else None), x
        seen.add(x > 75)
    assert seen == {True, False}


def test_without_a_condition_the_code_is_recorded_in_every_variant():
    t = probe("")
    for seed in range(30):
        v = generate_variant(t, seed)
        if v.params["x"] > 50:
            assert grade_part(t, v, "which", "b").diagnosis == "memory-vs-compute-bound"


def test_a_condition_without_a_code_is_refused():
    text = TEMPLATE.format(when='        diagnosis_when: "x > 75"').replace(
        "        diagnosis: memory-vs-compute-bound\n", ""
    )
    with pytest.raises(TemplateError, match="diagnosis_when"):
        parse_template(text, source="when-probe.yaml")


def test_a_condition_that_is_not_true_or_false_fails_validation():
    report = validate_template(probe('        diagnosis_when: "x"'), seeds=10)
    assert any("diagnosis_when must be true or false" in f.message for f in report.failures)


def test_an_unknown_name_in_the_condition_is_refused():
    with pytest.raises(TemplateError, match="diagnosis_when"):
        probe('        diagnosis_when: "y > 3"')

"""Diagnosis codes are true (issue 30, item 3): every code a part records describes the slip
that produced its value.

Each misconception in content/misconceptions.yaml carries its ``wrong_model``; the walk below
recomputes, for every common error of every template, the wrong answers its code's signatures
predict from the variant's own values, and requires one of them to be the common error's value.
A wrong option's code must name a judgement its model lists (``choice``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import content
from content.misconceptions import misconception
from quizzes.engine import (
    DIAGNOSIS_CODES,
    generate_variant,
    load_template_file,
    parse_template,
    template_paths,
)
from quizzes.engine.diagnoses import explained_by
from quizzes.engine.diagnoses.signatures import SIGNATURES

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)
# Two variants per template keep the walk to seconds; the ledger records a 12-seed run.
SEEDS = (0, 1)


def test_every_template_code_has_a_wrong_model_in_known_signatures():
    for code in DIAGNOSIS_CODES:
        model = misconception(code).wrong_model
        assert model, f"{code} has no wrong_model in content/misconceptions.yaml"
        for signature in model:
            ((kind, _),) = signature.items()
            assert kind in SIGNATURES, f"{code}: unknown signature {kind!r}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_each_common_error_is_the_slip_its_code_names(path):
    template = load_template_file(path, root=QUESTIONS.parent)
    variants = [generate_variant(template, seed, record_texts=False) for seed in SEEDS]
    unexplained = []
    for part in template.parts:
        for spec in getattr(part.settings, "common_errors", ()):
            for variant in variants:
                kind, value = explained_by(template, part, spec.code, variant)
                if kind is None:
                    unexplained.append(
                        f"{part.id}: {spec.code} gives {value:.4g} (answer "
                        f"{variant.answers[part.id]:.4g}, seed {variant.seed}), which no "
                        f"signature of its wrong model reproduces"
                    )
                    break
    assert not unexplained, "\n".join(unexplained)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_each_wrong_option_records_a_judgement_its_code_describes(path):
    template = load_template_file(path, root=QUESTIONS.parent)
    for part in template.parts:
        for option in getattr(part.settings, "options", ()):
            if option.diagnosis:
                kinds = {k for s in misconception(option.diagnosis).wrong_model for k in s}
                assert "choice" in kinds, (
                    f"{part.id}.{option.id} records {option.diagnosis}, whose wrong model names "
                    "no choice"
                )


PROBE = """\
slug: probe
title: Probe
chapter: inference
objectives: [Probe a code]
difficulty: 1
parameters:
  acc: {{choice: [H100], catalog: accelerator}}
  m: {{choice: [llama-2-7b], catalog: model}}
  batch: {{choice: [8, 16]}}
  t: {{value: "decode_step_time(m, acc, 'bf16', batch=batch, context=1024)"}}
plausible:
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'bf16'"
    batch: batch
    context: 1024
prompt: |
  A step.
parts:
  - id: step
    kind: numeric
    answer: "t"
    unit: s
    plausible: [1.0e-5, 1.0]
    common_errors:
      - code: {code}
        value: "{value}"
        feedback: A slip.
solution: |
  The step.
"""


@pytest.mark.parametrize(
    ("code", "value", "explained"),
    [
        # the review's M5: twice the step filed as "counted only the weights"
        ("weights-only", "2 * t", False),
        ("weights-only", "decode_step_time(m, acc, 'bf16', batch=batch, context=0)", True),
        ("kv-cache-forgotten", "decode_step_time(m, acc, 'bf16', batch=batch, context=0)", True),
        ("bits-for-bytes", "8 * t", True),
        ("bits-for-bytes", "2 * t", False),
        ("batch-ignored", "decode_step_time(m, acc, 'bf16', batch=1, context=1024)", True),
        ("reciprocal", "1 / t", True),
        ("hours-for-seconds", "t / 2", False),
    ],
)
def test_the_walk_refuses_a_code_whose_model_does_not_give_the_value(code, value, explained):
    template = parse_template(PROBE.format(code=code, value=value), source="probe.yaml")
    variant = generate_variant(template, 0)
    kind, _ = explained_by(template, template.part("step"), code, variant)
    assert (kind is not None) is explained, kind

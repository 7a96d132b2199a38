"""Variants: deterministic from the seed, stored as JSON, constraints, shuffling, seeds."""

from __future__ import annotations

import json

import pytest

from quizzes.engine import GenerationError, Variant, generate_variant, parse_template, variant_seed

from .samples import NUMERIC


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


CHOICE = """\
slug: pick-one
title: Pick one
chapter: roofline
objectives: [Pick]
difficulty: 1
parameters:
  x: {range: [1, 100], step: 1}
prompt: Pick the right one for {{ x }}.
parts:
  - id: c
    kind: choice
    options:
      - {id: small, text: "Below 50", correct: "x < 50"}
      - {id: large, text: "50 or more", correct: "x >= 50"}
      - {id: never, text: "Never", correct: false}
      - {id: other, text: "Other", correct: false}
solution: It was {{ x }}.
"""


def test_same_seed_gives_the_same_variant(numeric_template):
    assert generate_variant(numeric_template, b"seed-1") == generate_variant(
        numeric_template, b"seed-1"
    )


def test_seeds_spread_over_the_parameter_space(numeric_template):
    variants = {generate_variant(numeric_template, seed).key() for seed in range(60)}
    assert len(variants) == 12  # 3 accelerators x 4 sizes


def test_answers_follow_the_parameters(numeric_template):
    variant = generate_variant(numeric_template, 7)
    acc = variant.params["acc"]
    expected = variant.params["size"] * 1e9 / acc.memory_bandwidth
    assert variant.answers["t"] == pytest.approx(expected, rel=1e-12)
    assert variant.answers["rate"] == pytest.approx(acc.memory_bandwidth, rel=1e-12)
    assert variant.common_errors["t"]["bits-for-bytes"] == pytest.approx(8 * expected)


def test_json_round_trip_reproduces_the_variant_exactly(numeric_template):
    for seed in (b"\x00\x01", 3, variant_seed(b"k", "ann", 4, 1)):
        variant = generate_variant(numeric_template, seed)
        text = json.dumps(variant.to_json())
        restored = Variant.from_json(json.loads(text))
        assert restored == variant
        assert Variant.from_json(text) == variant
        assert json.loads(text)["params"]["acc"]["catalog"] == "accelerator"


def test_variant_seed_is_an_hmac_that_depends_on_every_part():
    seed = variant_seed(b"secret", "student-7", "quiz-item-3", 1)
    assert len(seed) == 32
    assert seed == variant_seed(b"secret", "student-7", "quiz-item-3", 1)
    assert seed != variant_seed(b"secret", "student-7", "quiz-item-3", 2)
    assert seed != variant_seed(b"secret", "student-8", "quiz-item-3", 1)
    assert seed != variant_seed(b"other", "student-7", "quiz-item-3", 1)
    assert variant_seed(b"s", "ab", "c") != variant_seed(b"s", "a", "bc")


def test_choice_order_is_deterministic_per_seed_and_varies_between_seeds():
    template = parse_template(CHOICE, source="pick.yaml")
    orders = [generate_variant(template, seed).option_order["c"] for seed in range(30)]
    assert orders == [generate_variant(template, seed).option_order["c"] for seed in range(30)]
    assert len(set(orders)) > 5
    assert all(sorted(order) == ["large", "never", "other", "small"] for order in orders)


def test_choice_answer_is_the_options_whose_condition_holds():
    template = parse_template(CHOICE, source="pick.yaml")
    for seed in range(20):
        variant = generate_variant(template, seed)
        expected = ("small",) if variant.params["x"] < 50 else ("large",)
        assert variant.answers["c"] == expected


def test_unsatisfiable_constraint_names_itself_and_its_line():
    text = CHOICE.replace("prompt:", 'constraints:\n  - "x > 1000"\nmax_tries: 50\nprompt:')
    template = parse_template(text, source="pick.yaml")
    with pytest.raises(GenerationError) as info:
        generate_variant(template, 1)
    assert "x > 1000" in str(info.value)
    assert info.value.line == line_of(text, '"x > 1000"')
    assert "50 of 50 draws" in str(info.value)


def test_constraints_reject_draws():
    text = CHOICE.replace("prompt:", 'constraints:\n  - "x % 10 == 0"\nprompt:')
    template = parse_template(text, source="pick.yaml")
    assert {generate_variant(template, s).params["x"] % 10 for s in range(20)} == {0}


def test_loguniform_values_are_rounded_to_sig_figures():
    text = CHOICE.replace("x: {range: [1, 100], step: 1}", "x: {loguniform: [1.0, 100.0], sig: 2}")
    template = parse_template(text, source="pick.yaml")
    values = [generate_variant(template, s).params["x"] for s in range(50)]
    assert all(1 <= v <= 100 and float(f"{v:.2g}") == v for v in values)
    assert min(values) < 10 < max(values)


def test_variant_from_a_changed_template_keeps_its_stored_answers():
    template = parse_template(NUMERIC, source="a.yaml")
    stored = generate_variant(template, 5).to_json()
    assert Variant.from_json(stored).answers == generate_variant(template, 5).answers

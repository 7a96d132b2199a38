"""Rendering a variant: stem, parts and options in order, hints by tries, solution."""

from __future__ import annotations

from quizzes.engine import (
    generate_variant,
    parse_template,
    render_hints,
    render_part,
    render_prompt,
    render_solution,
)

from .test_grade_part import CHOICE


def test_prompt_substitutes_the_variant_values(numeric_template):
    variant = generate_variant(numeric_template, 2)
    text = render_prompt(numeric_template, variant)
    assert variant.params["acc"].name in text
    assert f"Read {variant.params['size']} GB" in text


def test_prompt_never_contains_the_answer(numeric_template):
    variant = generate_variant(numeric_template, 2)
    solution = render_solution(numeric_template, variant)
    shown = solution.removeprefix("It takes ").removesuffix(".\n")
    assert shown and shown not in render_prompt(numeric_template, variant)


def test_hints_appear_after_their_number_of_tries(numeric_template):
    variant = generate_variant(numeric_template, 2)
    assert render_hints(numeric_template, variant, 0) == []
    assert len(render_hints(numeric_template, variant, 1)) == 1
    assert len(render_hints(numeric_template, variant, 3)) == 2


def test_choice_options_render_in_the_variant_order():
    template = parse_template(CHOICE, source="c.yaml")
    variant = generate_variant(template, 9)
    part = render_part(template, variant, "c")
    assert tuple(oid for oid, _ in part.lists["options"]) == variant.option_order["c"]
    assert dict(part.lists["options"])["five"] == "5"
    assert part.facts["multiple"] is True

"""The matching kind in the engine: parsing with lines, the key per variant, partial credit by
items, refusals of broken answers, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import (
    TemplateError,
    generate_variant,
    grade_part,
    kinds,
    parse_template,
    validate_template,
)

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")
FIXED = """\
slug: formats-and-uses
title: Formats and their uses
chapter: precision
objectives: [Know which format serves which purpose]
difficulty: 1
prompt: Number formats.
parts:
  - id: m
    kind: matching
    prompt: Match each format with where it is mostly used.
    categories:
      - {id: train, text: training}
      - {id: serve, text: serving}
    items:
      - {id: bf16, text: bfloat16, match: train}
      - {id: int4, text: 4-bit integers, match: serve}
      - {id: fp8, text: FP8, match: serve}
solution: See the precision chapter.
"""


def _issues(text):
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    return info.value.errors


def _line(text, needle):
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


def test_a_category_id_is_a_fixed_match_and_an_expression_follows_the_variant():
    fixed = generate_variant(parse_template(FIXED, source="f.yaml"), 1).answers["m"]
    assert dict(fixed) == {"bf16": "train", "int4": "serve", "fp8": "serve"}
    template = parse_template(STARTER, source="starter.yaml")
    batches = {dict(generate_variant(template, s).answers["bound"])["batch"] for s in range(40)}
    assert batches == {"memory", "compute"}


@pytest.mark.parametrize(
    ("change", "field", "needle", "message"),
    [
        (
            ("{id: fp8, text: FP8, match: serve}", "{id: fp8, text: FP8}"),
            "match",
            "{id: fp8",
            "needs match",
        ),
        (
            ("match: serve}\n      - {id: fp8", "match: sevre}\n      - {id: fp8"),
            "match",
            "sevre",
            "unknown name",
        ),
        (("      - {id: serve, text: serving}\n", ""), "categories", "{id: train", "list 2 to 6"),
        (("{id: int4, text: 4-bit", "{id: bf16, text: 4-bit"), "id", "4-bit", "twice"),
        (("    items:", "    shuffle: maybe\n    items:"), "shuffle", "maybe", "true or false"),
        (
            ("{id: fp8, text: FP8, match: serve}", "{id: fp8, text: FP8, match: serve, bits: 8}"),
            "bits",
            "bits",
            "unknown",
        ),
    ],
)
def test_authoring_mistakes_are_reported_on_their_line(change, field, needle, message):
    text = FIXED.replace(*change)
    assert text != FIXED
    issues = [i for i in _issues(text) if i.field == field]
    assert issues, _issues(text)
    assert message in issues[0].message
    assert issues[0].line == _line(text, needle)


def test_an_expression_giving_no_category_is_a_generation_error():
    text = FIXED.replace("match: train}", "match: '\"gpu\"'}")
    template = parse_template(text, source="bad.yaml")
    report = validate_template(template, seeds=5)
    assert not report.ok
    assert any("must give one of the categories" in f.message for f in report.failures)


def test_partial_credit_is_the_share_of_items_matched_right():
    template = parse_template(FIXED, source="f.yaml")
    variant = generate_variant(template, 1)
    right = {"bf16": "train", "int4": "serve", "fp8": "serve"}
    full = grade_part(template, variant, "m", right)
    assert (full.status, full.score) == ("correct", 1.0)
    one_off = grade_part(template, variant, "m", {**right, "fp8": "train"})
    assert one_off.status == "incorrect" and one_off.score == pytest.approx(2 / 3)
    assert "2 of 3 items are matched right" in one_off.feedback
    none = grade_part(template, variant, "m", {"bf16": "serve", "int4": "train", "fp8": "train"})
    assert none.score == 0.0


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "Match every item"),
        (["bf16:train", "int4:serve"], "Match every item"),
        (["bf16:train", "int4:serve", "fp8:gpu"], "lacks"),
        (["bf16:train", "bf16:serve", "fp8:serve"], "matched twice"),
        (["bf16:train", "int4:serve", "fp8:serve", "x:train"], "more items"),
        (["<img src=x onerror=alert(1)>:train"], "lacks"),
        (["bf16" + "x" * 5000 + ":train"], "lacks"),
        ("bf16:train", "Match every item"),
    ],
)
def test_broken_or_hostile_answers_are_refused_before_grading(raw, message):
    template = parse_template(FIXED, source="f.yaml")
    with pytest.raises(kinds.AnswerRefused, match=message):
        kinds.kind_named("matching").clean(raw, template.part("m"))


def test_an_answer_round_trips_and_an_exam_draft_is_read_back():
    template = parse_template(FIXED, source="f.yaml")
    kind = kinds.kind_named("matching")
    part = template.part("m")
    clean = kind.clean(["fp8:serve", "bf16:train", "int4:serve"], part)
    assert kind.from_stored(kind.stored(clean)) == clean
    draft = kind.draft(["fp8:serve", ""])
    assert kind.input_state({}, draft) == {"fp8": "serve"}
    assert kind.read_back(part, draft) == (False, "1 of 3 items have a category; match them all.")
    assert kind.read_back(part, kind.stored(clean)) == (True, "All 3 items matched.")


def test_the_starter_validates():
    report = validate_template(parse_template(STARTER, source="starter.yaml"), seeds=100)
    assert report.ok, [str(f) for f in report.failures]

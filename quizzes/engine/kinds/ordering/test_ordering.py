"""The ordering kind in the engine: parsing with lines, the order per variant, partial credit
by pairs, refusals of broken answers, validation."""

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
LISTED = """\
slug: listed-order
title: Listed order
chapter: gpus
objectives: [Know the hierarchy]
difficulty: 1
prompt: The memory hierarchy.
parts:
  - id: o
    kind: ordering
    prompt: From the smallest to the largest.
    items:
      - {id: reg, text: registers}
      - {id: smem, text: shared memory}
      - {id: l2, text: L2 cache}
      - {id: hbm, text: HBM}
solution: Registers, shared memory, L2, HBM.
"""


@pytest.fixture(scope="module")
def template():
    return parse_template(STARTER, source="starter.yaml")


def _issues(text):
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    return info.value.errors


def _line(text, needle):
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


def test_the_listed_order_is_the_answer_when_items_have_no_values():
    template = parse_template(LISTED, source="listed.yaml")
    assert generate_variant(template, 1).answers["o"] == ("reg", "smem", "l2", "hbm")


def test_values_order_the_items_per_variant(template):
    # The starter orders transfers by time, bytes over bandwidth, both drawn per variant: the
    # order follows the values (the paths' bandwidths alone would give one order on every
    # server, which the fixed-key rule refuses).
    for seed in range(30):
        variant = generate_variant(template, seed)
        p = variant.params
        names = {"memory": "t_mem", "peer": "t_peer", "host": "t_host", "network": "t_net"}
        times = {item: p[name] for item, name in names.items()}
        assert list(variant.answers["paths"]) == sorted(times, key=times.get), seed
    orders = {generate_variant(template, seed).answers["paths"] for seed in range(30)}
    assert len(orders) >= 4, orders


@pytest.mark.parametrize(
    ("change", "field", "needle", "message"),
    [
        (
            ("      - {id: l2, text: L2 cache}\n      - {id: hbm, text: HBM}\n", ""),
            "items",
            "{id: reg",
            "list 3 to 8",
        ),
        (("{id: l2, text: L2 cache}", "{id: reg, text: L2 cache}"), "id", "text: L2", "twice"),
        (("{id: l2, text: L2 cache}", "{id: L2!, text: L2 cache}"), "id", "L2!", "[a-z0-9_-]"),
        (("{id: l2, text: L2 cache}", "{id: l2}"), "text", "{id: l2}", "is required"),
        (("    items:", "    order: upward\n    items:"), "order", "upward", "ascending or"),
        (
            ("{id: l2, text: L2 cache}", "{id: l2, text: L2 cache, value: '1.0'}"),
            "items",
            "{id: reg",
            "give every item a value, or none",
        ),
        (
            ("{id: hbm, text: HBM}", "{id: hbm, text: HBM, colour: red}"),
            "colour",
            "colour",
            "unknown",
        ),
    ],
)
def test_authoring_mistakes_are_reported_on_their_line(change, field, needle, message):
    text = LISTED.replace(*change)
    issues = [i for i in _issues(text) if i.field == field]
    assert issues, _issues(text)
    assert message in issues[0].message
    assert issues[0].line == _line(text, needle)


def test_nine_items_are_too_many():
    extra = "".join(f"      - {{id: x{n}, text: x{n}}}\n" for n in range(5))
    text = LISTED.replace(
        "      - {id: hbm, text: HBM}\n", "      - {id: hbm, text: HBM}\n" + extra
    )
    assert any("list 3 to 8" in i.message for i in _issues(text))


def test_partial_credit_is_the_share_of_pairs_in_the_right_order():
    template = parse_template(LISTED, source="listed.yaml")
    variant = generate_variant(template, 1)

    def grade(order):
        return grade_part(template, variant, "o", order)

    assert (
        grade(["reg", "smem", "l2", "hbm"]).status,
        grade(["reg", "smem", "l2", "hbm"]).score,
    ) == (
        "correct",
        1.0,
    )
    swapped = grade(["smem", "reg", "l2", "hbm"])  # 5 of 6 pairs
    assert swapped.status == "incorrect" and swapped.score == pytest.approx(5 / 6)
    assert "5 of 6 pairs" in swapped.feedback
    backwards = grade(["hbm", "l2", "smem", "reg"])
    assert (backwards.score, backwards.diagnosis) == (0.0, "order-reversed")
    half = grade(["l2", "hbm", "reg", "smem"])  # 2 of 6 pairs
    assert half.score == pytest.approx(2 / 6)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "Give every item a position"),
        (["reg:1", "smem:2", "l2:3"], "Give every item a position"),
        (["reg:1", "smem:1", "l2:3", "hbm:4"], "Position 1 is given to two items"),
        (["reg:1", "reg:2", "l2:3", "hbm:4"], "two positions"),
        (["reg:1", "smem:2", "l2:3", "hbm:9"], "lacks"),
        (["reg:1", "smem:2", "l2:3", "hbm:-1"], "lacks"),
        (["reg:1", "smem:2", "l2:3", "nope:4"], "lacks"),
        (["reg:1", "smem:2", "l2:3", "hbm:4", "x:5"], "more items"),
        (["<script>:1"], "lacks"),
        (["reg:" + "9" * 500], "lacks"),
        ("reg:1", "Give every item a position"),
    ],
)
def test_broken_or_hostile_answers_are_refused_before_grading(raw, message):
    template = parse_template(LISTED, source="listed.yaml")
    with pytest.raises(kinds.AnswerRefused, match=message):
        kinds.kind_named("ordering").clean(raw, template.part("o"))


def test_an_answer_is_cleaned_into_the_order_and_stored_as_json():
    template = parse_template(LISTED, source="listed.yaml")
    kind = kinds.kind_named("ordering")
    clean = kind.clean(["hbm:4", "l2:3", "reg:1", "smem:2"], template.part("o"))
    assert clean == ["reg", "smem", "l2", "hbm"]
    assert kind.from_stored(kind.stored(clean)) == clean
    assert kind.input_state({}, kind.stored(clean))["hbm"] == 4
    draft = kind.draft(["hbm:4", "", "reg:1"])
    assert kind.input_state({}, draft) == {"hbm": 4, "reg": 1}
    assert kind.read_back(template.part("o"), draft) == (
        False,
        "2 of 4 items have a position; place them all.",
    )
    assert kind.read_back(template.part("o"), kind.stored(clean)) == (True, "All 4 items placed.")


def test_validation_refuses_values_too_close_to_order():
    close = STARTER.replace("value: t_net", "value: t_host * 1.01")
    report = validate_template(parse_template(close, source="close.yaml"), seeds=20)
    assert not report.ok
    assert any("closer than min_gap" in f.message for f in report.failures)


def test_the_starter_validates(template):
    report = validate_template(template, seeds=100)
    assert report.ok, [str(f) for f in report.failures]

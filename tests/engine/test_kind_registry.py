"""The answer-kind registry: every caller asks it, and an unknown kind is refused at parse time."""

from __future__ import annotations

import random

import pytest

from quizzes.engine import TemplateError, kinds, parse_template

from .samples import NUMERIC


def test_an_unknown_kind_is_refused_at_parse_time_with_its_line_and_a_suggestion():
    text = NUMERIC.replace("kind: numeric", "kind: numerc", 1)
    with pytest.raises(TemplateError) as info:
        parse_template(text, source="t.yaml")
    [issue] = [i for i in info.value.errors if i.field == "kind"]
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "numerc" in row)
    assert issue.line == line
    assert "must be one of numeric, formula, choice" in issue.message
    assert "numeric" in issue.message.split("one of")[1]  # and a did-you-mean


def test_asking_the_registry_for_an_unknown_kind_raises_instead_of_a_default():
    with pytest.raises(kinds.UnknownKind, match="essay"):
        kinds.kind_named("essay")
    with pytest.raises(kinds.UnknownKind):
        kinds.kind_named(None)


def test_each_kind_is_a_folder_with_its_templates_starter_and_grader():
    assert kinds.kind_names()[:3] == ("numeric", "formula", "choice")
    for kind in kinds.all_kinds():
        assert kind.folder.name == kind.name
        assert kind.input_template == f"kinds/{kind.name}/input.html"
        for name in ("input.html", "submitted.html", "answer.html", "starter.yaml"):
            assert (kind.folder / name).is_file(), f"{kind.name} has no {name}"
        assert parse_template(kind.starter.read_text(encoding="utf-8"), source="starter")
    assert kinds.kind_named("formula").bounded and kinds.kind_named("formula").grader
    assert not kinds.kind_named("numeric").bounded


def test_choice_answers_round_trip_through_their_stored_form():
    choice = kinds.kind_named("choice")
    for picks in (["a"], ["a", "c"]):
        assert choice.from_stored(choice.stored(choice.clean(picks, None))) == picks
    with pytest.raises(kinds.AnswerRefused):
        choice.clean([" ", ""], None)


def test_text_kinds_refuse_blank_and_overlong_answers_with_their_own_limit():
    numeric = kinds.kind_named("numeric")
    with pytest.raises(kinds.AnswerRefused, match="Type an answer"):
        numeric.clean("   ", None)
    with pytest.raises(kinds.AnswerRefused, match="the limit for a number is 200"):
        numeric.clean("1" * 201, None)
    assert kinds.max_answer_length("formula") == 500
    assert kinds.max_answer_length(None) == kinds.MAX_ANSWER_LENGTH


def test_the_default_runner_refuses_an_unknown_grader():
    with pytest.raises(ValueError, match="grader must be one of"):
        kinds.run_grader("essay", response="x")


def test_demo_answers_of_a_numeric_part_are_right_or_a_listed_slip(numeric_template):
    part = numeric_template.part("t")
    numeric = kinds.kind_for(part)
    raw, value, diagnosis = numeric.demo_answer(part, 0.002, {}, True, random.Random(1))
    assert value == 0.002 and diagnosis == "" and raw.endswith("ms")
    _, value, diagnosis = numeric.demo_answer(part, 0.002, {"slip": 0.016}, False, FixedRng())
    assert (value, diagnosis) == (0.016, "slip")


class FixedRng(random.Random):
    def random(self):
        return 0.0

    def choice(self, seq):
        return seq[0]

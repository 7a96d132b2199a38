"""The choice kind on the pages: radios (checkboxes for several answers) in the student's page
and the studio's preview alike, the options picked on the results page, and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizzes.engine import generate_variant, grade_part, kinds, parse_template

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")
SEVERAL = STARTER.replace("kind: choice", "kind: choice\n    multiple: true").replace(
    "correct: false", "correct: true"
)


def test_the_page_offers_one_radio_per_option_in_the_variants_order(kind_site):
    taking = kind_site.homework(STARTER)
    html = taking.page()
    order = taking.variant.answers["option_order"]["bound"]
    # Each option under its opaque name (the security review's: the id "right" told a student)
    shown = [html.index(f'value="{taking.name("bound", oid)}"') for oid in order]
    assert shown == sorted(shown) and html.count('type="radio" name="answer"') == 3
    assert not any(f'value="{oid}"' in html for oid in order)


def test_picking_an_option_grades_it_and_the_results_name_it(kind_site):
    taking = kind_site.homework(STARTER)
    right = taking.answers["bound"][0]
    wrong = "clock"
    assert "The roofline has two limits" in taking.check("bound", wrong)
    taking.check("bound", right)
    assert [s for s, *_ in taking.responses()] == ["incorrect", "correct"]
    taking.submit()
    html = taking.results()
    label = {"memory": "Memory bandwidth", "compute": "Peak compute"}[right]
    assert f"Your answer: <strong>{label}</strong>" in html
    assert f"The correct answer is <strong>{label}</strong>." in html


def test_an_unknown_option_is_refused_and_costs_nothing(kind_site):
    taking = kind_site.homework(STARTER)
    fragment = taking.check("bound", "<script>alert(1)</script>")
    assert "<script>alert" not in fragment
    assert [s for s, *_ in taking.responses()] == ["invalid"]


def test_several_right_options_earn_partial_credit_never_full_marks():
    template = parse_template(SEVERAL, source="several.yaml")
    variant = generate_variant(template, 3)
    right = list(variant.answers["bound"])
    assert len(right) == 2
    full = grade_part(template, variant, "bound", right)
    half = grade_part(template, variant, "bound", right[:1])
    assert (full.status, full.score) == ("correct", 1.0)
    assert half.status == "incorrect" and 0 < half.score < 1


def test_an_exam_keeps_the_picks_and_shows_them_checked_after_a_reload(kind_site):
    taking = kind_site.exam(SEVERAL, time_limit_minutes=30)
    right = list(taking.answers["bound"])
    taking.save("bound", right)
    html = taking.page()
    for oid in right:
        assert f'value="{taking.name("bound", oid)}" checked' in html
    stored = kinds.kind_named("choice").stored(right)
    assert json.loads(stored) == right


def test_the_studio_tries_an_option_with_the_students_own_radios(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(4)
    assert html.count('type="radio" name="response_bound"') == 3
    right = studio.answer(4, "bound")[0]
    tried = studio.preview(4, tried="bound", bound=right)
    assert "feedback correct" in tried and f'value="{right}" checked' in tried
    refused = studio.preview(4, tried="bound", bound="nonsense")
    assert "feedback invalid" in refused


@pytest.mark.parametrize("raw", [[" ", ""], ["x" * 60], [f"o{i}" for i in range(40)]])
def test_hostile_picks_are_refused_before_grading(raw):
    template = parse_template(STARTER, source="starter.yaml")
    with pytest.raises(kinds.AnswerRefused):
        kinds.kind_named("choice").clean(raw, template.part("bound"))

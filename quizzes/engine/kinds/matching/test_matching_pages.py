"""The matching kind on the pages: a category box per item (student page and studio alike),
Check with partial credit, an exam's saved matching, "Your answer" and the key."""

from __future__ import annotations

import re
from pathlib import Path

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


def _posted(pairs) -> list[str]:
    return [f"{item}:{category}" for item, category in dict(pairs).items()]


def test_each_item_has_a_labelled_category_box(kind_site):
    taking = kind_site.homework(STARTER)
    html = taking.page()
    shown = taking.variant.answers["option_order"]["bound"]
    boxes = re.findall(
        r'<select class="match-category" id="match-[\w-]+?-(\w+)" name="answer"', html
    )
    names = [taking.name("bound", item) for item in shown]
    assert boxes == names
    for name in names:
        assert '<label class="match-text" for="match-' in html and f'-{name}">' in html
    assert html.count(f'<option value="{names[shown.index("vadd")]}:') == 2
    assert not any(f'"{item}:' in html for item in shown)


def test_a_check_grades_the_matching_with_partial_credit(kind_site):
    taking = kind_site.homework(STARTER)
    right = dict(taking.answers["bound"])
    wrong = {**right, "vadd": "compute" if right["vadd"] == "memory" else "memory"}
    assert "3 of 4 items are matched right" in taking.check("bound", _posted(wrong))
    taking.check("bound", _posted(right))
    assert [(s, score) for s, score, *_ in taking.responses()] == [
        ("incorrect", 0.75),
        ("correct", 1.0),
    ]


def test_an_unmatched_item_is_refused_and_the_input_keeps_the_choices(kind_site):
    taking = kind_site.homework(STARTER)
    right = dict(taking.answers["bound"])
    fragment = taking.check("bound", _posted(right)[:2])
    assert "Match every item with a category" in fragment and taking.responses() == []
    taking.check("bound", _posted(right))
    html = taking.page()
    for item, category in right.items():
        name = taking.name("bound", item)
        assert f'<option value="{name}:{category}" selected>' in html


def test_an_exam_keeps_a_half_given_matching_and_grades_it_at_submission(kind_site):
    taking = kind_site.exam(STARTER, time_limit_minutes=30)
    right = dict(taking.answers["bound"])
    assert "2 of 4 items have a category" in taking.save("bound", _posted(right)[:2])
    assert "All 4 items matched." in taking.save("bound", _posted(right), sequence=2)
    taking.submit()
    assert [(s, score) for s, score, *_ in taking.responses()] == [("correct", 1.0)]


def test_results_show_each_items_choice_and_key(kind_site):
    taking = kind_site.homework(STARTER)
    right = dict(taking.answers["bound"])
    taking.check("bound", _posted(right))
    taking.submit()
    html = taking.results()
    given = html.split("Your answer:", 1)[1].split("</p>", 1)[0]
    key = html.split("The correct answer is", 1)[1].split("</p>", 1)[0]
    assert given.count('class="match-pair"') == 4 and key.count("<strong>") == 4
    names = {"memory": "memory bandwidth", "compute": "peak compute"}
    assert key.count(names["compute"]) == list(right.values()).count("compute")
    instructor = kind_site.instructor_page(taking).split("answer key:", 1)[1]
    assert instructor.count('class="match-pair"') >= 4


def test_the_studio_tries_a_matching_with_the_students_own_boxes(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(6)
    assert html.count('name="response_bound"') == 4
    right = dict(studio.answer(6, "bound"))
    tried = studio.preview(6, tried="bound", bound=_posted(right))
    assert "feedback correct" in tried
    half = studio.preview(6, tried="bound", bound=_posted(right)[:1])
    assert "feedback invalid" in half and "Match every item" in half

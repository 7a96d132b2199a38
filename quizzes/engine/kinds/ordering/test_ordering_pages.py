"""The ordering kind on the pages: one position box per item (student page and studio alike),
Check with partial credit, an exam's saved order read back and kept, the results page's
"Your answer" and key in order, the instructor's key."""

from __future__ import annotations

import re
from pathlib import Path

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


def _posted(order: list[str]) -> list[str]:
    return [f"{item}:{n}" for n, item in enumerate(order, start=1)]


def test_each_item_has_a_labelled_position_box_in_the_variants_order(kind_site):
    taking = kind_site.homework(STARTER)
    html = taking.page()
    shown = taking.variant.answers["option_order"]["paths"]
    boxes = re.findall(
        r'<select class="order-position" id="order-[\w-]+?-(\w+)" name="answer"', html
    )
    # Each item under its opaque name (as a choice's options): no item id reaches the page.
    assert boxes == [taking.name("paths", item) for item in shown]
    assert html.count(f'<option value="{taking.name("paths", "memory")}:') == 4
    assert not any(f'"{item}:' in html or f'-{item}"' in html for item in shown)
    assert "Give each item its position: 1 comes first, 4 last." in html
    assert "kinds/ordering/ordering.css" in html


def test_a_check_grades_the_order_with_partial_credit(kind_site):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    swapped = [right[1], right[0], *right[2:]]
    fragment = taking.check("paths", _posted(swapped))
    assert "5 of 6 pairs of items are in the right order" in fragment
    taking.check("paths", _posted(right))
    statuses = [(s, round(score, 2)) for s, score, *_ in taking.responses()]
    assert statuses == [("incorrect", 0.83), ("correct", 1.0)]


def test_an_incomplete_order_is_refused_and_stores_nothing(kind_site):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    fragment = taking.check("paths", _posted(right)[:3])
    assert "Give every item a position" in fragment
    assert taking.responses() == []


def test_the_input_shows_the_positions_given_last(kind_site):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    taking.check("paths", _posted(right[::-1]))
    html = taking.page()
    for n, item in enumerate(right[::-1], start=1):
        name = taking.name("paths", item)
        assert f'<option value="{name}:{n}" selected>' in html


def test_the_items_names_as_the_page_posts_them_are_read_as_their_ids(kind_site):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    names = [taking.name("paths", item) for item in right]
    taking.check("paths", _posted(names))
    assert [s for s, *_ in taking.responses()] == ["correct"]


def test_an_exam_keeps_a_half_given_order_and_reads_it_back(kind_site):
    taking = kind_site.exam(STARTER, time_limit_minutes=30)
    right = list(taking.answers["paths"])
    assert "2 of 4 items have a position" in taking.save("paths", _posted(right)[:2])
    html = taking.page()
    assert f'<option value="{taking.name("paths", right[0])}:1" selected>' in html
    assert "All 4 items placed." in taking.save("paths", _posted(right), sequence=2)
    taking.submit()
    [(status, score, *_)] = taking.responses()
    assert (status, score) == ("correct", 1.0)


def test_results_show_the_order_given_and_the_right_order(kind_site):
    taking = kind_site.homework(STARTER)
    right = list(taking.answers["paths"])
    swapped = [right[1], right[0], *right[2:]]
    taking.check("paths", _posted(swapped))
    taking.submit()
    html = taking.results()
    given = html.split("Your answer:", 1)[1].split("</p>", 1)[0]
    key = html.split("The correct answer is", 1)[1].split("</p>", 1)[0]
    # the items' texts name their paths: "... from its own HBM3 memory", "... over NVLink 4 ..."
    words = {"memory": "its own", "peer": "neighbouring GPU", "host": "from the host"}
    words["network"] = "port"
    assert re.findall(r'class="order-step">(\d)\.', given) == ["1", "2", "3", "4"]
    assert words[right[0]] in given.split("2. ", 1)[1].split("</span>", 1)[0]  # swapped
    assert re.findall(r'<strong class="order-step">(\d)\.', key) == ["1", "2", "3", "4"]
    assert words[right[0]] in key.split("1. ", 1)[1].split("</strong>")[0]
    instructor = kind_site.instructor_page(taking).split("answer key:", 1)[1].split("</span>")[0]
    assert '<strong class="order-step">1.' in instructor


def test_the_studio_tries_an_order_with_the_students_own_boxes(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(2)
    assert html.count('name="response_paths"') == 4
    right = list(studio.answer(2, "paths"))
    tried = studio.preview(2, tried="paths", paths=_posted(right))
    assert "feedback correct" in tried
    assert f'<option value="{right[0]}:1" selected>' in tried
    refused = studio.preview(2, tried="paths", paths=_posted(right)[:1])
    assert "feedback invalid" in refused and "Give every item a position" in refused

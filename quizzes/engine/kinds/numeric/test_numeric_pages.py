"""The numeric kind on the pages: the input with its unit hint, the reading of a graded number,
an exam's read-back, the key, and the studio's preview with the student's own input."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.engine import generate_variant, grade_part, kinds, parse_template

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


def test_the_page_shows_the_unit_hint_and_a_read_back_after_a_check(kind_site):
    taking = kind_site.homework(STARTER)
    assert "Answer in a unit of time, e.g. ms." in taking.page()
    fragment = taking.check("t", "3200 us")
    assert 'class="read-as">Read as <code>' in fragment


def test_results_show_the_answer_as_typed_and_the_key_with_its_unit(kind_site):
    taking = kind_site.homework(STARTER)
    value = taking.answers["t"]
    typed = f"{value * 1000:.4g} ms"
    taking.check("t", typed)
    taking.submit()
    html = taking.results()
    assert f"Your answer: <code>{typed}</code>" in html
    key = html.split("The correct answer is <strong>", 1)[1].split("</strong>", 1)[0]
    assert key.endswith(" ms") and f"The correct answer is <strong>{key}</strong>." in html


def test_an_exam_save_is_read_back_without_being_graded(kind_site):
    taking = kind_site.exam(STARTER, time_limit_minutes=30)
    assert "Read as 3.2 ms" in taking.save("t", "3200 us")
    assert "Cannot be read" in taking.save("t", "26 Gb", sequence=2)
    assert taking.responses() == []


def test_the_instructor_sees_the_key(kind_site):
    taking = kind_site.homework(STARTER)
    taking.check("t", "1 s")
    assert 'answer key: <span class="key"><strong>' in kind_site.instructor_page(taking)


def test_the_studio_tries_a_number_with_the_students_own_input(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(5)
    assert 'name="response_t"' in html and "Answer in a unit of time" in html
    value = studio.answer(5, "t")
    assert "feedback correct" in studio.preview(5, tried="t", t=f"{value:.6g} s")
    blank = studio.preview(5, tried="t", t="1" * 300)
    assert "feedback invalid" in blank and "the limit for a number is 200" in blank


@pytest.mark.parametrize("raw", ["1e999999 s", "9" * 199, "1 s; DROP TABLE", "\u202e5 ms", "--1 s"])
def test_hostile_numbers_are_read_as_invalid_never_raised(raw):
    template = parse_template(STARTER, source="starter.yaml")
    variant = generate_variant(template, 1)
    grade = grade_part(template, variant, "t", kinds.kind_named("numeric").clean(raw, None))
    assert grade.status in ("invalid", "incorrect") and grade.score == 0.0

"""The interval kind on the pages: its input, Check, the results page, the studio's preview."""

from __future__ import annotations

from pathlib import Path

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


def test_the_page_shows_one_labelled_range_input_with_the_unit_hint(kind_site):
    html = kind_site.homework(STARTER).page()
    assert "Your range (low end to high end)" in html
    assert 'placeholder="2 TB/s to 5 TB/s"' in html
    assert "Answer in a unit of time" in html


def test_checking_a_range_records_its_grade_and_shows_the_feedback(kind_site):
    taking = kind_site.homework(STARTER)
    true = taking.answers["t"]
    wide = taking.check("t", f"{true / 20:.4g} s to {true * 20:.4g} s")
    assert "the widest accepted here is a factor of 10" in wide
    assert "could not be read" not in wide
    assert "no try used" in taking.check("t", "about a millisecond")
    taking.check("t", f"{true / 2:.4g} s to {true * 2:.4g} s")
    assert [(s, d) for s, _, d, _ in taking.responses()] == [
        ("incorrect", "interval-too-wide"),
        ("invalid", ""),
        ("correct", ""),
    ]


def test_results_show_the_range_as_given_and_the_key_with_its_width(kind_site):
    taking = kind_site.homework(STARTER)
    true = taking.answers["t"]
    given = f"{true / 2:.4g} s to {true * 2:.4g} s"
    taking.check("t", given)
    taking.submit()
    html = taking.results()
    assert f"Your answer: <code>{given}</code>" in html
    assert "(any range that contains it, at most 10× wide)</strong>." in html


def test_the_studio_previews_the_starter_and_grades_a_tried_range(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(3)
    assert 'name="response_t"' in html and "Your range (low end to high end)" in html
    true = studio.answer(3, "t")
    body = studio.preview(3, tried="t", t=f"{true / 3:.4g} to {true * 3:.4g} s")
    assert "feedback correct" in body
    missed = studio.preview(3, tried="t", t=f"{true * 3:.4g} to {true * 9:.4g} s")
    assert "feedback incorrect" in missed

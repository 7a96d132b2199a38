"""The formula kind on the pages: the input with its live preview, the reading of a graded
formula as math, and the answer key simplified wherever it appears ("b/2", not "2·b/4")."""

from __future__ import annotations

import re
from pathlib import Path

from quizzes.engine import generate_variant, parse_template
from quizzes.engine.kinds.formula import FormulaKind

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")
HALVED = STARTER.replace(
    'answer: "2 * {{ k }} * m * n"', 'answer: "2 * m * n * {{ k }} / (4 * {{ k }})"'
).replace("min_variants: 3", "min_variants: 1")
# What the key must show (m·n/2 as MathML) and what it must not (the constants uncombined).
SIMPLE = re.compile(r"<mfrac><mrow><mi>m</mi><mi>n</mi></mrow><mrow><mn>2</mn></mrow></mfrac>")
UNSIMPLIFIED = re.compile(r"<mn>4</mn>|<mn>1024</mn>|<mn>4096</mn>|<mn>8192</mn>")


def _key(html: str) -> str:
    return html.split("The correct answer is", 1)[1].split("</p>", 1)[0]


def test_the_key_is_the_answer_simplified():
    template = parse_template(HALVED, source="halved.yaml")
    part = template.part("flops")
    answer = generate_variant(template, 1).answers["flops"]
    assert "/ (4 *" in answer  # stored as written, constants put in
    key = FormulaKind().answer_key(part, answer)
    assert key["latex"] == r"\frac{m n}{2}" and key["text"] == answer


def test_a_formula_that_cannot_be_simplified_in_time_is_shown_as_written(monkeypatch):
    import sympy

    from quizzes.engine.kinds.formula import simplified_latex, simplify
    from quizzes.grading.timebox import TimeBoxExpired

    def out_of_time(expr):
        raise TimeBoxExpired

    monkeypatch.setattr(sympy, "factor", out_of_time)
    simplified_latex.cache_clear()
    assert simplify.simplified_latex("2 * m / 4", ("m",)) is None
    assert simplify.simplified_latex("2 * m / 4 +", ("m",)) is None  # unreadable
    written = simplified_latex("2 * m * 3 / 4", ("m",))
    assert "4" in written and "3" in written  # as written, not 3m/2
    simplified_latex.cache_clear()


def test_results_studio_and_instructor_show_the_simplified_key(kind_site):
    taking = kind_site.homework(HALVED)
    for _ in range(3):
        taking.check("flops", "m n / 3")
    taking.submit()
    results = _key(taking.results())
    assert SIMPLE.search(results) and not UNSIMPLIFIED.search(results)
    instructor = kind_site.instructor_page(taking).split("answer key:", 1)[1].split("</span>")[0]
    assert SIMPLE.search(instructor) and not UNSIMPLIFIED.search(instructor)
    studio = kind_site.studio(HALVED).preview(1).split("Correct answer:", 1)[1].split("</p>")[0]
    assert SIMPLE.search(studio)


def test_a_graded_formula_is_read_back_as_math_and_shown_as_typed(kind_site):
    taking = kind_site.homework(STARTER)
    fragment = taking.check("flops", "2 m n")
    assert 'class="read-as">Read as <span class="math inline"><math' in fragment
    taking.submit()
    assert "Your answer: <code>2 m n</code>" in taking.results()


def test_the_live_preview_reads_a_formula_and_other_parts_have_none(kind_site):
    taking = kind_site.homework(STARTER)
    page = taking.page()
    assert "hx-get=" in page and 'id="preview-' in page
    reading = taking.preview("flops", "2 m n").content.decode()
    assert "<math" in reading
    assert taking.preview("flops", "2 m +").status_code == 200


def test_the_studio_tries_a_formula_in_the_students_own_input(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(2)
    assert 'name="response_flops"' in html and "A formula in <code>m</code>, <code>n</code>" in html
    assert "hx-get" not in html.split('name="response_flops"')[0].rsplit("<input", 1)[1]
    k = studio.answer(2, "flops").split("*")[1].strip()
    assert "feedback correct" in studio.preview(2, tried="flops", flops=f"2*{k}*m*n")
    assert "feedback incorrect" in studio.preview(2, tried="flops", flops="m n")

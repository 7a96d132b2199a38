"""A question's figure on the pages: drawn from the variant's own numbers above the parts on the
attempt page, the results, the studio's preview and the instructor's quiz preview; its labels
escaped; its numbers as a table; never the key; cached with the question's rendering."""

from __future__ import annotations

import re

from django.urls import reverse

from content.physics import format_quantity
from quizzes.engine import generate_variant, parse_template
from quizzes.engine.figures import draw_figure
from quizzes.presenters.figures import figure_html
from tests.kind_fixtures import _client

FIGURED = """\
slug: figured
title: Weights and one cache against the budget
chapter: inference
objectives: [Compare the weights and one cache with the budget]
difficulty: 2
parameters:
  acc: {choice: [A100, H100], catalog: accelerator}
  gb: {range: [10, 40], step: 1}
figure:
  draw: bars
  title: "What one {{ acc }} holds <script>alert('t')</script>"
  unit: B
  series: [weights, KV cache]
  bars:
    - label: "weights <img src=x onerror=alert(1)>"
      values: ["gb * 1e9", "0"]
    - label: the weights and one cache
      values: ["gb * 1e9", "2e9"]
  line: {label: budget, value: "acc.memory_bytes"}
prompt: How much does the GPU have left after the weights and one cache?
parts:
  - id: left
    kind: numeric
    answer: "acc.memory_bytes - gb * 1e9 - 2e9"
    unit: B
    plausible: [1.0e9, 1.0e11]
solution: "{{ part_left | B }}"
"""

ROOFLINE = FIGURED.replace(
    """  draw: bars
  title: "What one {{ acc }} holds <script>alert('t')</script>"
  unit: B
  series: [weights, KV cache]
  bars:
    - label: "weights <img src=x onerror=alert(1)>"
      values: ["gb * 1e9", "0"]
    - label: the weights and one cache
      values: ["gb * 1e9", "2e9"]
  line: {label: budget, value: "acc.memory_bytes"}""",
    """  draw: roofline
  title: "The {{ acc }} in bf16"
  accelerator: acc
  dtype: "'bf16'"
  points:
    - {label: "a kernel", intensity: "gb"}""",
)


def _figure(html: str) -> str:
    return html.split('<div class="question-figure-frame">', 1)[1].split("</figure>", 1)[0]


def test_the_attempt_page_draws_the_variants_figure_above_the_parts(kind_site):
    taking = kind_site.homework(FIGURED)
    html = taking.page()
    figure = _figure(html)
    params = taking.variant.parameters
    assert html.index("question-figure-frame") < html.index('id="part-')
    assert 'role="img"' in figure and "<title id=" in figure and "<desc id=" in figure
    weights = format_quantity(params["gb"] * 1e9, "B", sig=3)
    assert f"weights {weights}" in figure.split("<desc", 1)[1]  # the description says it
    assert "<table>" in figure and "The figure's numbers as a table" in figure
    assert "css/question_figure.css" in html


def test_labels_are_escaped_wherever_the_figure_is_drawn(kind_site):
    taking = kind_site.homework(FIGURED)
    for html in (taking.page(), kind_site.studio(FIGURED).preview(2)):
        figure = _figure(html)
        assert "<script>" not in figure and "<img" not in figure
        assert "&lt;script&gt;" in figure and "&lt;img src=x onerror=alert(1)&gt;" in figure


def test_the_figure_never_shows_the_key(kind_site):
    taking = kind_site.homework(FIGURED)
    key = taking.answers["left"]
    figure = re.sub(r'="[^"]*"', "", _figure(taking.page()))
    assert format_quantity(key, "B", sig=3) not in figure


def test_two_students_see_their_own_figures(kind_site):
    taking = kind_site.homework(FIGURED)
    seen = {_figure(taking.page())}
    for _ in range(6):
        other = kind_site.classmate(taking)
        if other.variant.parameters != taking.variant.parameters:
            seen.add(_figure(other.page()))
            break
    assert len(seen) == 2


def test_the_results_page_draws_it_too(kind_site):
    taking = kind_site.homework(FIGURED)
    taking.submit()
    html = taking.results()
    assert 'class="bar-chart-svg"' in _figure(html)


def test_the_studio_preview_draws_the_seeds_figure(kind_site):
    studio = kind_site.studio(FIGURED)
    first, other = _figure(studio.preview(1)), _figure(studio.preview(7))
    assert 'class="bar-chart-svg"' in first and first != other


def test_the_instructors_quiz_preview_draws_it(kind_site):
    taking = kind_site.homework(FIGURED)
    teacher = _client(kind_site.staff(taking))
    quiz = taking.attempt.quiz
    url = reverse("instructor:quiz_preview", args=[quiz.offering.slug, quiz.slug])
    response = teacher.get(url)
    assert response.status_code == 200
    assert 'class="bar-chart-svg"' in _figure(response.content.decode())


def test_a_roofline_figure_draws_the_variants_chip_in_the_narrow_frame(kind_site):
    taking = kind_site.homework(ROOFLINE)
    figure = _figure(taking.page())
    assert '<svg class="roofline-svg" viewBox="0 0 360 330"' in figure
    assert "a kernel" in figure and "in bf16" in figure
    assert re.search(r"<th scope=\"row\">a kernel</th>", figure)
    assert re.search(r"<title[^>]*>The (A100|H100)[^<]* in bf16</title>", figure)


def test_a_question_without_a_figure_draws_none(kind_site):
    plain = FIGURED.split("figure:")[0] + "prompt:" + FIGURED.split("\nprompt:", 1)[1]
    html = kind_site.homework(plain).page()
    assert "question-figure-frame" not in html and "question_figure.css" not in html


def test_a_log_scale_figure_draws_decades():
    text = FIGURED.replace("unit: B\n  series: [weights, KV cache]", "unit: B\n  scale: log")
    text = text.replace('values: ["gb * 1e9", "0"]', 'values: ["gb * 1e9"]')
    text = text.replace('values: ["gb * 1e9", "2e9"]', 'values: ["2e6"]')
    template = parse_template(text, source="f.yaml")
    html = figure_html(draw_figure(template, generate_variant(template, 1)))
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]+)</text>', html)
    assert ticks[0] == "1 MB" and "1 GB" in ticks and "Each division" in html


def test_the_figure_is_cached_with_the_question_and_redrawn_when_its_drawing_changes(
    kind_site, monkeypatch
):
    from quizzes.presenters import figures, page_memo

    taking = kind_site.homework(FIGURED)
    first = _figure(taking.page())
    monkeypatch.setattr(figures, "_bars", lambda drawn: "<figure>redrawn</figure>")
    # A new process (a deploy) starts with no page memo; the shared caches (the question's
    # rendering, the page's section) still hold the picture drawn before.
    page_memo.clear()
    assert _figure(taking.page()) == first
    monkeypatch.setattr(figures, "FIGURE_VERSION", figures.FIGURE_VERSION + 1)
    figures.drawing_digest.cache_clear()
    page_memo.clear()
    try:
        assert "redrawn" in _figure(taking.page())
    finally:
        figures.drawing_digest.cache_clear()

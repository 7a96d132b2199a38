"""Authoring services without the pages: starters, slugs, summaries, diffs, quiz files."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from quizzes.engine import kinds, parse_template
from quizzes.models import Quiz, QuizItem
from quizzes.presenters.studio import diff_rows, histogram
from quizzes.services import authoring
from quizzes.services.bank import read_quiz_text
from tests.quizzes.test_studio_views import make_template


@pytest.mark.parametrize("kind", list(authoring.STARTERS))
def test_every_starter_validates_over_the_default_seeds(kind):
    summary = authoring.validation_summary(authoring.starter_source(kind), authoring.DEFAULT_SEEDS)
    assert summary["ok"], summary["failures"]
    assert summary["variants"] == authoring.DEFAULT_SEEDS


def test_starters_cover_every_answer_kind_and_multi_part():
    found = {}
    for kind in authoring.STARTERS:
        parsed, issues = authoring.read_draft(authoring.starter_source(kind))
        assert issues == []
        found[kind] = parsed.kind
    assert found == {k: k for k in (*kinds.kind_names(), "multi-part")}
    assert {"numeric", "formula", "choice", "interval"} <= set(found)


def test_with_fields_replaces_slug_title_and_chapter_safely():
    text = authoring.with_fields(
        authoring.starter_source("numeric"),
        slug="my-q",
        title='Quotes "and" colons: fine',
        chapter="gpus",
    )
    template = parse_template(text, source="t.yaml")
    assert (template.slug, template.title, template.chapter) == (
        "my-q",
        'Quotes "and" colons: fine',
        "gpus",
    )


def test_read_draft_reports_lines_and_never_raises():
    _, issues = authoring.read_draft("slug: x\ntitle: y\nsoluton: z\n")
    assert any(i.field == "soluton" and i.line == 3 for i in issues)
    for junk in ["", "[", "\x00", "- a\n- b", "a" * (authoring.MAX_SOURCE_CHARS + 1)]:
        parsed, issues = authoring.read_draft(junk)
        assert parsed is None and issues


def test_summary_of_a_broken_text_lists_parse_failures():
    summary = authoring.validation_summary("slug: [", 10)
    assert summary["ok"] is False
    assert summary["failures"][0]["check"] == "parse"


def test_seed_counts_have_limits():
    from quizzes.forms import ValidateForm

    def seeds(raw):
        form = ValidateForm({"seeds": raw})
        return form.cleaned_data["seeds"] if form.is_valid() else form.error_text()

    assert seeds("") == authoring.DEFAULT_SEEDS
    assert seeds(" 5000 ") == 5000
    assert "at most 5,000" in seeds("5001") and "at least 1" in seeds("0")
    for bad in ("1e3", "x"):
        assert "whole number" in seeds(bad)


def test_the_preview_seed_form_falls_back_on_nonsense_and_says_so():
    from quizzes.forms import PreviewSeedForm

    assert PreviewSeedForm({"seed": "17"}).seed_or_default() == 17
    assert PreviewSeedForm({}).seed_or_default() == 0 and not PreviewSeedForm({}).error_text()
    for bad in ("-1", "9" * 40, "9" * 5000, "1e3", "banana"):
        form = PreviewSeedForm({"seed": bad})
        assert form.seed_or_default() == 0
        assert "whole number from 0 to 2,147,483,647" in form.error_text()


def test_diff_rows_number_both_sides():
    rows = diff_rows("a\nb\nc\n", "a\nB\nc\nd\n")
    kinds = [(r.kind, r.old, r.new, r.text) for r in rows if r.kind != "hunk"]
    assert ("del", 2, None, "b") in kinds and ("add", None, 2, "B") in kinds
    assert ("add", None, 4, "d") in kinds and ("same", 1, 1, "a") in kinds


def test_histogram_scales_bars_to_the_tallest_bin():
    chart = histogram([[1e-3, 2e-3, 5], [2e-3, 3e-3, 10], [3e-3, 4e-3, 0]], "s")
    heights = [bar.height for bar in chart.bars]
    assert heights[1] == max(heights) and heights[2] == 0
    assert heights[0] == pytest.approx(heights[1] / 2, abs=0.1)
    assert chart.low.endswith(" ms") and chart.high.endswith(" ms")


@pytest.mark.django_db
def test_quiz_text_reads_back_to_the_same_quiz(course, offering):
    a = make_template(course, "a-q", publish=True)
    b = make_template(course, "b-q", publish=True)
    c = make_template(course, "c-q", publish=True)
    quiz = Quiz.objects.create(
        offering=offering,
        slug="q",
        title="Quiz: a title with a colon",
        due_at=datetime(2031, 3, 1, 12, 0, tzinfo=UTC),
        late_penalty=Decimal("0.1"),
        max_attempts=3,
        pools={"pair": 1},
    )
    QuizItem.objects.create(quiz=quiz, template=a, position=1, points=Decimal("2.5"))
    QuizItem.objects.create(quiz=quiz, template=b, position=2, pool="pair")
    QuizItem.objects.create(quiz=quiz, template=c, position=3, pool="pair")
    text = authoring.quiz_text(quiz, list(quiz.items.select_related("template")))
    parsed = read_quiz_text(text, source="q.yaml")
    assert parsed.title == quiz.title and parsed.pools == {"pair": 1}
    assert [(i.template, i.points, i.pool) for i in parsed.items] == [
        ("a-q", Decimal("2.5"), ""),
        ("b-q", Decimal("1"), "pair"),
        ("c-q", Decimal("1"), "pair"),
    ]
    assert parsed.fields["due_at"] == quiz.due_at
    assert parsed.fields["max_attempts"] == 3
    assert parsed.fields["late_penalty"] == Decimal("0.1")

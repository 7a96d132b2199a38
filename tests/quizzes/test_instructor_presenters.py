"""The instructor pages' presenters: one bar geometry for every chart, the student's own
renderer for a stored variant, and status strings from the models' choices."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from quizzes.models import RegradeStatus
from quizzes.presenters import display
from quizzes.presenters import instructor as pages
from quizzes.presenters.charts import bar_chart
from quizzes.presenters.studio import histogram
from tests.factories import OFFERING, PASSWORD, offering_of
from tests.quizzes.test_instructor_helpers import (
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

ROOT = Path(__file__).resolve().parents[2]


def test_every_chart_is_drawn_by_the_one_bar_geometry():
    chart = bar_chart([1, 3, 0], ["a", "b", "c"], width=300, height=116, gap=2)
    assert [(b.x, b.y, b.width, b.height) for b in chart.bars] == [
        (1.0, 82.7, 98.0, 33.3),
        (101.0, 16.0, 98.0, 100.0),
        (201.0, 116.0, 98.0, 0.0),
    ]
    assert chart.total == 4 and chart.bars[1].mid == 150.0
    # The studio's answer histogram is the same geometry at its own size.
    studio = histogram([[0, 1, 2], [1, 2, 4]], None)
    same = bar_chart([2, 4], ["", ""], width=520, height=150, gap=4)
    assert [(b.x, b.height) for b in studio.bars] == [(b.x, b.height) for b in same.bars]


def test_no_other_module_computes_bar_geometry():
    # Bar heights scaled to the tallest bin are computed in one place only.
    pattern = re.compile(r"(tallest|top)\b.*\bor 1\b")
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "quizzes").rglob("*.py")
        if pattern.search(path.read_text())
    ]
    assert found == ["quizzes/presenters/charts.py"]


def test_instructor_templates_compare_statuses_with_the_choices():
    literal = re.compile(r"""(status|mode) == ['"]""")
    offenders = [
        path.name
        for path in (ROOT / "templates" / "instructor").glob("*.html")
        if literal.search(path.read_text())
    ]
    assert offenders == []
    assert RegradeStatus.APPLIED.label == "Applied"


@pytest.mark.django_db
def test_a_stored_variant_is_drawn_by_the_students_renderer(course):
    quiz, items = make_quiz(course, examples=("decode-step-memory-floor",))
    attempt = submitted_attempt(quiz, make_student(course, "ana"), {items[0]: 1.0})
    row = attempt.variant_for[items[0].pk]
    respond(row, "t", "2 ms", "correct")
    row.response_list = list(row.responses.all())
    view = pages.variant_view(row)
    question = display.question_view(row)
    assert view.error == "" and view.prompt == question.prompt_html
    assert [p.id for p in view.parts] == [p.id for p in question.parts]
    assert view.parts[0].answer == display.correct_answer_html(row, question.parts[0])
    assert [r.raw for r in view.parts[0].responses] == ["2 ms"]


@pytest.mark.django_db
def test_regrade_page_badges_an_applied_run_done(client, course, instructor):
    from quizzes.models import RegradeRun
    from tests.factories import QuestionTemplateFactory

    template = QuestionTemplateFactory(course=course, example="decode-step-memory-floor")
    run = RegradeRun.objects.create(
        offering=offering_of(course),
        template=template,
        target_version=template.current_version,
        status=RegradeStatus.APPLIED,
        created_by=instructor,
    )
    client.login(username=instructor.username, password=PASSWORD)
    html = client.get(
        reverse("instructor:regrade_detail", args=[OFFERING, run.pk])
    ).content.decode()
    assert 'class="badge done">Applied' in html
    assert "Done: responses regraded" in html

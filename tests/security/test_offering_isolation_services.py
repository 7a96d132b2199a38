"""Isolation below the pages: exports, search, analytics, regrades and tasks of one offering only
ever read or write that offering's rows, though both offerings ask the same bank template."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from quizzes import tasks
from quizzes.models import ItemStatistics, RegradeStatus, Response, Variant
from quizzes.services import analytics, regrade
from quizzes.services.instructor import gradebook, student_history, variant_search
from quizzes.services.instructor import statistics as kept
from tests.security.offering_world import SENTINELS, build, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(course):
    return build(course)


def _streamed(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_exports_hold_only_their_own_offerings_rows(world):
    a, b = world
    client = Client()
    client.force_login(a.instructor)
    for name in ("export_gradebook_csv", "export_responses_csv", "export_responses_json"):
        url = reverse(f"instructor:{name}", args=[a.offering.slug])
        text = _streamed(client.get(url))
        assert not [s for s in SENTINELS if s in text], name
        assert "student-a" in text and "student-b" not in text, name
    rows = csv.DictReader(io.StringIO(_streamed(client.get(url.replace(".json", ".csv")))))
    assert {r["quiz"] for r in rows} <= {"shared", "only-a", "written-a"}


def test_search_and_analytics_read_only_their_own_offering(world):
    a, b = world
    template = a.shared_quiz.items.get().template  # asked in both offerings
    assert b.shared_quiz.items.get().template == template
    found = variant_search(a.offering, template_slug=template.slug)
    assert found and {v.attempt.quiz.offering_id for v in found} == {a.offering.pk}
    stats = analytics.item_analysis(template, offering=a.offering)
    assert stats.observations == 1  # A's one submitted attempt at it, not B's
    raws = {e["raw"] for g in stats.wrong for e in g["examples"]}
    assert "4242424 GB" not in raws
    index = {s.slug: s for s in analytics.template_index(a.offering)}
    assert index[template.slug].observations == 1
    codes = analytics.misconception_map(a.offering)
    assert all(row["students"] <= 2 for row in codes)
    book = gradebook(a.offering)
    names = {row["student"].username for row in book.rows}
    assert "student-b" not in names and "student-a" in names
    assert {q.slug for q in book.quizzes} == {"shared", "only-a", "written-a"}
    assert student_history(a.offering, b.student)["attempts"] == []


def test_a_regrade_in_one_offering_never_touches_the_others_responses(world):
    a, b = world
    template = a.item.template
    theirs = list(
        Response.objects.filter(variant__attempt__quiz__offering=b.offering)
        .order_by("pk")
        .values_list("pk", "status", "score", "regraded_at")
    )
    b_before = snapshot(b.offering)
    run = regrade.preview_regrade(
        offering=a.offering,
        template=template,
        target_version=template.current_version,
        recompute_answers=True,
        by=a.instructor,
    )
    ours = Variant.objects.filter(item__template=template, attempt__quiz__offering=a.offering)
    assert run.total == ours.count() and run.offering == a.offering
    regrade.start_regrade(run=run)
    assert regrade.apply_regrade(run_id=run.pk).status == RegradeStatus.APPLIED
    assert (
        list(
            Response.objects.filter(variant__attempt__quiz__offering=b.offering)
            .order_by("pk")
            .values_list("pk", "status", "score", "regraded_at")
        )
        == theirs
    )
    assert snapshot(b.offering) == b_before


def test_a_regrade_of_a_template_outside_the_offerings_bank_is_refused(world, course):
    from django.core.exceptions import ValidationError

    from tests.factories import CourseFactory, QuestionTemplateFactory

    a, _ = world
    foreign = QuestionTemplateFactory(course=CourseFactory(slug="another-book"))
    with pytest.raises(ValidationError):
        regrade.queue_preview(
            offering=a.offering,
            template=foreign,
            target_version=foreign.current_version,
            recompute_answers=False,
            by=a.instructor,
        )


def test_the_statistics_task_never_computes_another_offerings_quiz(world):
    a, b = world
    template = a.item.template
    tasks.refresh_item_statistics.call(template.pk, a.offering.pk, b.only_quiz.pk)
    assert not ItemStatistics.objects.filter(quiz_key=b.only_quiz.pk).exists()
    tasks.refresh_item_statistics.call(template.pk, a.offering.pk, None)
    row = ItemStatistics.objects.get(offering=a.offering, quiz_key=0, template=template)
    assert set(row.seen) == {str(a.shared_quiz.pk), str(a.only_quiz.pk)}
    assert kept.rebuild(a.offering) > 0
    assert not ItemStatistics.objects.filter(offering=b.offering).exists()


def test_the_expiry_sweep_and_scores_stay_per_attempt(world):
    """The one sweep every offering shares closes attempts by their own deadlines; it reads
    no offering's rows into another's (each attempt is scored from its own rows)."""
    from django.utils import timezone

    from quizzes.services.submission import close_expired_attempts

    a, b = world
    before = snapshot(b.offering)
    assert close_expired_attempts(now=timezone.now()) == 0
    assert snapshot(b.offering) == before


def test_a_students_score_notices_read_only_their_offerings_regrades(world):
    """The notices read the 50 newest applied runs: another offering's many runs must never
    crowd out this offering's one (nor be read at all)."""
    from django.utils import timezone

    from quizzes.models import RegradeRun
    from quizzes.presenters.score_notices import score_notices

    a, b = world
    attempt, template = a.submitted, a.item.template

    def applied(offering, preview, minutes_ago):
        return RegradeRun(
            offering=offering,
            template=template,
            target_version=template.current_version,
            status=RegradeStatus.APPLIED,
            applied_at=timezone.now() - timezone.timedelta(minutes=minutes_ago),
            preview=preview,
        )

    change = {"attempt": attempt.pk, "student": a.student.username, "part": "t"}
    RegradeRun.objects.bulk_create(
        [applied(a.offering, [change | {"old_status": "incorrect", "new_status": "correct"}], 60)]
        + [applied(b.offering, [], minute) for minute in range(50)]
    )
    notices = score_notices(a.student, released_quiz_ids={attempt.quiz_id})
    assert [n.kind for n in notices if n.kind == "regrade"] == ["regrade"]

"""The fast seed (rows by COPY on PostgreSQL, students drawn in forked processes) writes what
the plain one writes: the same rows, the same stamps raised, so the same kept statistics.

Each test seeds the same students twice into one database, the plain way (`bulk_create`, one
process) and the fast way, removing the first run's work in between (the students stay, so
their ids, and with them their variants' seeds, are the same). On SQLite `copy_create` is
`bulk_create`; the PostgreSQL pass of the suite runs COPY.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model

from courseware.models import Offering, ReadingProgress
from quizzes.models import Attempt, QuestionTemplate, QuizActivity, Response, Variant
from quizzes.services import seed
from quizzes.services.instructor import offering_statistics, statistics
from tests.factories import ChapterFactory
from tests.quizzes.test_instructor_helpers import make_quiz

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
STUDENTS = 14


@pytest.fixture
def bank(course):
    ChapterFactory(part__course=course)
    make_quiz(course, due_at=NOW - timedelta(days=1), late_penalty=0.1)
    make_quiz(course, slug="second", due_at=None)
    return Offering.objects.default()


def _rows() -> dict:
    """Every seeded row by what names it (not by id), and the fields it stores."""
    attempts = {
        a.pk: (a.student.username, a.quiz.slug, a.number)
        for a in Attempt.objects.select_related("student", "quiz")
    }
    variants = {v.pk: (attempts[v.attempt_id], v.item_id) for v in Variant.objects.all()}
    return {
        "attempts": sorted(
            (key, a.status, a.started_at, a.submitted_at, a.is_late, a.score, a.max_score)
            + (a.awaiting_grading, a.last_activity_at, len(a.item_ids))
            for a in Attempt.objects.all()
            for key in [attempts[a.pk]]
        ),
        "variants": sorted(
            (variants[v.pk], v.version_id, v.seed, v.outcome, v.score, v.created_at)
            + (repr(v.parameters), repr(v.answers))
            for v in Variant.objects.all()
        ),
        "responses": sorted(
            (variants[r.variant_id], r.part_id, r.raw, r.status, r.score, r.feedback)
            + (r.diagnosis, r.interpreted, r.value, r.try_number, r.source, r.created_at)
            for r in Response.objects.all()
        ),
        "reading": sorted(
            ReadingProgress.objects.values_list("user__username", "chapter_id", "read_at")
        ),
    }


def _counters() -> dict:
    return dict(QuizActivity.objects.values_list("quiz_id", "changes"))


def _kept(offering) -> dict:
    """The kept figures of every page, computed now from the stored grades."""
    figures = {
        kind: offering_statistics.refresh(offering, kind).data
        for kind in offering_statistics.FIGURES
    }
    for template in QuestionTemplate.objects.filter(course=offering.course_id):
        figures[template.slug] = statistics.refresh(template, offering).data
    return figures


def _seed(offering, **how) -> dict:
    """Seed the class; what it wrote, how far each quiz's counter moved, the kept figures."""
    before = _counters()
    report = seed.seed_class(offering=offering, students=STUDENTS, now=NOW, **how)
    after = _counters()
    moved = {quiz: n - before.get(quiz, 0) for quiz, n in after.items()}
    return {"report": report, "rows": _rows(), "moved": moved, "kept": _kept(offering)}


def _forget_the_work():
    """Remove what a seed wrote, keeping the students (so the next seed draws the same)."""
    Attempt.objects.all().delete()
    ReadingProgress.objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_the_fast_seed_writes_the_rows_and_kept_statistics_of_the_plain_one(bank, monkeypatch):
    # Batches of three students, so four processes each draw some and the writes interleave.
    monkeypatch.setattr(seed, "STUDENT_BATCH", 3)
    plain = _seed(bank, copy=False, workers=1)
    assert plain["report"].responses and any(plain["moved"].values())
    assert get_user_model().objects.filter(username__startswith=seed.PREFIX).count() == STUDENTS
    _forget_the_work()
    fast = _seed(bank, copy=True, workers=4)
    # The students were made by the first run; the work is the same.
    assert replace(fast["report"], created_students=STUDENTS) == plain["report"]
    assert fast["rows"] == plain["rows"]
    # The stamps: each quiz's statistics counter moved by the same steps (once per batch).
    assert fast["moved"] == plain["moved"]
    assert fast["kept"] == plain["kept"]


@pytest.mark.django_db
def test_inside_a_transaction_the_seed_draws_in_its_own_process(bank, monkeypatch):
    # A fork must not share the open transaction's connection: it draws here instead.
    monkeypatch.setattr(seed, "STUDENT_BATCH", 3)
    monkeypatch.setattr(
        seed, "ProcessPoolExecutor", lambda *a, **k: pytest.fail("forked in a transaction")
    )
    report = seed.seed_class(offering=bank, students=7, now=NOW, workers=4)
    assert report.seeded_students == 7 and report.responses == Response.objects.count()

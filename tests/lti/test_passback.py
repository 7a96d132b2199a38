"""Grade passback (AGS) to the independent platform: every score write, outages, resend."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from lti import passback
from lti.demo_shapes import PLAIN
from lti.models import GradeSync, SyncStatus
from quizzes.models import Attempt, QuizMode
from quizzes.services.attempts import start_attempt
from quizzes.services.instructor import override_score
from quizzes.services.regrade import recompute_attempt_score
from quizzes.services.submission import close_expired_attempts, submit_attempt
from tests.factories import OFFERING, make_quiz
from tests.lti.conftest import launch

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def linked(platform, course):
    """A quiz placed in the LMS with its line item, and Ada launched into it once."""
    quiz = make_quiz(course)
    lineitem = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    done = launch(platform, user="student-ada", custom={"quiz": quiz.slug}, lineitem=lineitem)
    assert done.response.status_code == 302
    sync = GradeSync.objects.get()
    return quiz, sync.user, lineitem


def test_submitted_attempt_then_override_reach_the_platform(platform, linked, instructor):
    quiz, student, lineitem = linked
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    first = platform.scores[-1]
    assert first["lineitem"] == lineitem and first["userId"] == "student-ada"
    assert (first["scoreGiven"], first["scoreMaximum"]) == (0.0, 1.0)
    assert (first["activityProgress"], first["gradingProgress"]) == ("Completed", "FullyGraded")
    attempt.refresh_from_db()
    override_score(attempt=attempt, score="1", reason="Marked by hand", by=instructor)
    assert platform.scores[-1]["scoreGiven"] == 1.0 and len(platform.scores) == 2
    sync = GradeSync.objects.get()
    assert sync.status == SyncStatus.SENT and passback.is_current(sync)


def test_regrade_recompute_sends_only_a_changed_score(platform, linked):
    quiz, student, _ = linked
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    assert len(platform.scores) == 1
    recompute_attempt_score(Attempt.objects.get(pk=attempt.pk))  # nothing changed
    assert len(platform.scores) == 1, "the same score was sent twice"
    variant = attempt.variants.get()
    variant.score = 1.0
    variant.save(update_fields=["score"])
    recompute_attempt_score(Attempt.objects.get(pk=attempt.pk))
    assert platform.scores[-1]["scoreGiven"] == 1.0 and len(platform.scores) == 2


def test_automatic_exam_submission_is_sent(platform, course, linked):
    quiz, student, _ = linked
    quiz.mode, quiz.time_limit_minutes = QuizMode.EXAM, 5
    quiz.save()
    started = timezone.now() - timedelta(minutes=10)
    attempt = start_attempt(quiz=quiz, student=student, now=started)
    assert attempt.deadline is not None
    assert close_expired_attempts(now=timezone.now()) == 1
    assert len(platform.scores) == 1 and platform.scores[0]["scoreMaximum"] == 1.0


def test_platform_down_keeps_the_local_score_retries_and_delivers_once(
    platform, linked, task_worker
):
    from django_tasks_db.models import DBTaskResult

    quiz, student, _ = linked
    platform.down = True
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and attempt.score == Decimal("0.000")
    task_worker()  # the first try, in the background worker
    sync = GradeSync.objects.get()
    assert sync.status == SyncStatus.RETRYING and sync.tries == 1 and "503" in sync.last_error
    assert not passback.is_current(sync) and platform.scores == []
    waiting = DBTaskResult.objects.get(status="READY")
    assert waiting.run_after > timezone.now() + timedelta(seconds=passback.BACKOFF - 5)
    platform.down = False
    task_worker()  # the retry waits for its backoff
    assert platform.scores == []
    DBTaskResult.objects.filter(pk=waiting.pk).update(run_after=timezone.now())
    task_worker()
    assert len(platform.scores) == 1 and GradeSync.objects.get().status == SyncStatus.SENT
    passback.retry_due()  # a sweep afterwards sends nothing more
    task_worker()
    assert len(platform.scores) == 1


def test_gives_up_after_its_retries_until_resent(platform, linked):
    quiz, student, _ = linked
    platform.down = True
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())  # tries run at once here
    sync = GradeSync.objects.get()
    assert sync.status == SyncStatus.FAILED and sync.tries == passback.RETRIES + 1
    platform.down = False
    passback.resend(sync)
    assert len(platform.scores) == 1 and GradeSync.objects.get().status == SyncStatus.SENT


def test_sweep_sends_rows_left_waiting(platform, linked):
    quiz, student, _ = linked
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    GradeSync.objects.update(status=SyncStatus.PENDING, sent_at=None)  # as if the queue was lost
    assert passback.retry_due() == 1 and len(platform.scores) == 2


def test_instructor_page_shows_status_and_resends(platform, linked, client, instructor):
    quiz, student, _ = linked
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    client.force_login(instructor)
    page = client.get("/o/hardware-reality/lms/grades/")
    assert page.status_code == 200 and "LMS has the current score" in page.content.decode()
    assert (
        'href="/o/hardware-reality/lms/grades/" aria-current="page">LMS grades'
        in page.content.decode()
    )
    sync = GradeSync.objects.get()
    response = client.post(f"/o/{OFFERING}/lms/grades/{sync.pk}/resend/")
    assert response.status_code == 302 and len(platform.scores) == 2


def test_students_cannot_see_or_resend(platform, linked, client):
    _, student, _ = linked
    client.force_login(student)
    assert client.get("/o/hardware-reality/lms/grades/").status_code == 403
    sync = GradeSync.objects.get()
    assert client.post(f"/o/{OFFERING}/lms/grades/{sync.pk}/resend/").status_code == 403


def test_one_token_serves_many_scores_and_a_void_one_is_replaced(platform, linked, instructor):
    quiz, student, _ = linked
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    override_score(attempt=attempt, score="1", reason="Marked by hand", by=instructor)
    assert len(platform.scores) == 2
    token_requests = [r for r in platform.requests if r.startswith("POST /token")]
    assert len(token_requests) == 1
    platform.rotate_key()
    attempt.refresh_from_db()
    override_score(attempt=attempt, score="0.5", reason="Second look", by=instructor)
    assert platform.scores[-1]["scoreGiven"] == 0.5
    assert len([r for r in platform.requests if r.startswith("POST /token")]) == 2


def test_a_line_item_search_that_pages_forever_is_stopped(platform, course, monkeypatch):
    """A link without a line item: the tool looks for its column by tag, page after page; a
    platform whose next page is the same page again cannot hold the grade worker."""
    quiz = make_quiz(course)
    done = launch(platform, user="student-ada", custom={"quiz": quiz.slug})
    assert done.response.status_code == 302
    platform.lineitems_link = f'<{platform.service(PLAIN.lineitems)}>; rel="next"'
    sync = GradeSync.objects.get()
    attempt = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=attempt, student=sync.user, now=timezone.now())
    sync.refresh_from_db()
    assert "went on past 1 pages" in sync.last_error and platform.scores == []
    pages = [r for r in platform.requests if r.startswith("GET /ags/course-101/lineitems")]
    assert len(pages) == 1 + passback.RETRIES  # one page per try, never more


def test_a_link_without_a_line_item_finds_or_creates_its_column_by_tag(platform, course):
    quiz = make_quiz(course)
    launch(platform, user="student-ada", custom={"quiz": quiz.slug})
    sync = GradeSync.objects.get()
    attempt = start_attempt(quiz=quiz, student=sync.user, now=timezone.now())
    submit_attempt(attempt=attempt, student=sync.user, now=timezone.now())
    (created,) = platform.lineitems.values()
    assert created["tag"] == f"quiz:{quiz.slug}" and created["scoreMaximum"] == 1.0
    assert platform.scores[-1]["lineitem"] == created["id"]
    assert GradeSync.objects.get().line_item.url == created["id"]

"""An exam's submission returns at once and the task worker grades it, exactly once
(`services.grading_run`): the request grades nothing, a second run or a racing one changes
nothing, the results page shows the questions as they are graded, the LMS hears the score once
it exists, and no student can make anyone's attempt graded again."""

from __future__ import annotations

import logging
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, QuizActivity, QuizMode, Response, SavedAnswer
from quizzes.presenters import page_memo
from quizzes.services import attempts as service
from quizzes.services import grading_run, parts
from quizzes.services.availability import QuizRuleError
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, make_quiz

pytestmark = pytest.mark.django_db

EXAMPLES = ["decode-step-memory-floor", "bound-by-what"]


@pytest.fixture
def exam(course, student):
    """A started two-question exam, both questions answered right, results released at once."""
    quiz = make_quiz(course, examples=EXAMPLES, mode=QuizMode.EXAM, release="immediate")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    numeric = attempt.variants.get(item__position=1)
    choice = attempt.variants.get(item__position=2)
    _save(numeric, student, "t", f"{float(correct_answers(numeric)['t']):.6g} s")
    _save(choice, student, "bound", correct_answers(choice)["bound"][0])
    return attempt


def _save(variant, student, part, raw):
    return service.autosave(
        variant=variant, part_id=part, raw=raw, student=student, now=timezone.now()
    )


def _submit(attempt, student):
    return service.submit_attempt(attempt=attempt, student=student, now=timezone.now())


def _url(name, attempt):
    return reverse(f"quizzes:{name}", args=[OFFERING, attempt.pk])


def _counter(attempt) -> int:
    row = QuizActivity.objects.filter(quiz_id=attempt.quiz_id).first()
    return row.changes if row else 0


def test_submitting_grades_nothing_in_the_request(
    client, exam, student, database_tasks, monkeypatch, django_assert_max_num_queries
):
    def no_grading(*args, **kwargs):
        raise AssertionError("graded inside the submission")

    monkeypatch.setattr(grading_run, "grade_answer", no_grading)
    monkeypatch.setattr(parts, "grade_answer", no_grading)
    client.login(username=student.username, password=PASSWORD)
    before = _counter(exam)
    with django_assert_max_num_queries(14):
        reply = client.post(_url("submit_attempt", exam), {"confirm": "1"})
    assert reply.status_code == 302 and reply["Location"] == _url("attempt_results", exam)
    exam.refresh_from_db()
    assert exam.is_submitted and exam.is_grading and exam.score is None
    assert not Response.objects.filter(variant__attempt=exam).exists()
    assert _counter(exam) == before  # counted when graded, not now
    from django_tasks_db.models import DBTaskResult

    queued = DBTaskResult.objects.filter(task_path="quizzes.tasks.grade_submission")
    assert list(queued.values_list("args_kwargs", flat=True)) == [{"args": [exam.pk], "kwargs": {}}]


def test_the_worker_grades_it_once_however_often_the_task_runs(
    exam, student, database_tasks, task_worker
):
    _submit(exam, student)
    before = _counter(exam)
    from quizzes.tasks import grade_submission

    grade_submission.enqueue(exam.pk)  # a duplicate, as a retry after a lost reply would be
    task_worker()
    exam.refresh_from_db()
    assert not exam.is_grading and exam.score == exam.max_score == 2
    assert Response.objects.filter(variant__attempt=exam).count() == 2
    assert _counter(exam) == before + 1
    assert grading_run.grade_submitted(attempt_id=exam.pk) is False
    assert grading_run.finish(attempt_id=exam.pk) is False
    assert Response.objects.filter(variant__attempt=exam).count() == 2
    assert _counter(exam) == before + 1


def test_answers_saved_after_the_submission_are_refused_and_never_graded(
    exam, student, database_tasks, task_worker
):
    numeric = exam.variants.get(item__position=1)
    frozen = SavedAnswer.objects.get(variant=numeric, part_id="t").raw
    _submit(exam, student)
    with pytest.raises(QuizRuleError):
        _save(numeric, student, "t", "1000 s")  # between the submission and its grading
    task_worker()
    graded = Response.objects.get(variant=numeric, part_id="t")
    assert graded.raw == SavedAnswer.objects.get(variant=numeric, part_id="t").raw == frozen
    assert graded.status == "correct"


def test_results_page_shows_being_graded_then_the_grade(
    client, exam, student, database_tasks, task_worker
):
    client.login(username=student.username, password=PASSWORD)
    _submit(exam, student)
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "being graded" in page and "0 of 2 answered questions graded" in page
    assert _url("attempt_grading", exam) in page and 'hx-trigger="every 2s"' in page
    assert '<noscript><meta http-equiv="refresh"' in page  # without JavaScript, too
    assert "Worked solution" not in page
    partial = client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    assert partial.status_code == 200 and "being graded" in partial.content.decode()
    assert "<html" not in partial.content.decode()
    # One question graded (its own transaction), the other not yet: the list says so.
    numeric = exam.variants.get(item__position=1)
    Response.objects.create(
        variant=numeric, part_id="t", source="exam", raw="1 s", status="incorrect", score=0
    )
    partial = client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    assert "1 of 2 answered questions graded" in partial.content.decode()
    Response.objects.filter(variant=numeric).delete()
    task_worker()
    done = client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    assert done["HX-Redirect"] == _url("attempt_results", exam)
    plain = client.get(_url("attempt_grading", exam))
    assert plain.status_code == 302 and plain["Location"] == _url("attempt_results", exam)
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "being graded" not in page and "Worked solution" in page
    assert '<span class="num">2</span>' in page


def test_results_held_back_by_the_release_policy_stay_held_back_while_grading(
    client, exam, student, database_tasks
):
    exam.quiz.release = "after_due"
    exam.quiz.due_at = timezone.now() + timedelta(days=1)
    exam.quiz.save()
    client.login(username=student.username, password=PASSWORD)
    _submit(exam, student)
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "being graded" in page and "released after the due date" in page
    assert "points" not in page and "correct" not in page


def test_the_lms_hears_the_score_once_after_grading(
    exam, student, database_tasks, task_worker, monkeypatch, django_capture_on_commit_callbacks
):
    import lti.passback

    heard = []
    monkeypatch.setattr(lti.passback, "scores_changed", lambda *ids: heard.append(ids))
    with django_capture_on_commit_callbacks(execute=True):
        _submit(exam, student)
    assert heard == []  # no score yet: nothing to send
    with django_capture_on_commit_callbacks(execute=True):
        task_worker()
    assert heard == [(student.pk, exam.quiz_id)]
    with django_capture_on_commit_callbacks(execute=True):
        grading_run.grade_submitted(attempt_id=exam.pk)
    assert heard == [(student.pk, exam.quiz_id)]


def test_an_overdue_grading_is_done_by_the_results_page_once(
    client, exam, student, database_tasks, settings
):
    client.login(username=student.username, password=PASSWORD)
    _submit(exam, student)
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "being graded" in page  # the worker has its time first
    settings.QUIZ_GRADING_INLINE_AFTER_SECONDS = 0
    Attempt.objects.filter(pk=exam.pk).update(
        grading_queued_at=timezone.now() - timedelta(seconds=5)
    )
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "being graded" not in page and '<span class="num">2</span>' in page
    exam.refresh_from_db()
    assert exam.score == 2 and Response.objects.filter(variant__attempt=exam).count() == 2


def test_the_worker_sweep_grades_what_waited_too_long(exam, student, database_tasks, settings):
    _submit(exam, student)
    settings.QUIZ_GRADING_INLINE_AFTER_SECONDS = 60
    assert grading_run.grade_overdue(now=timezone.now()) == 0
    assert grading_run.grade_overdue(now=timezone.now() + timedelta(seconds=61)) == 1
    exam.refresh_from_db()
    assert exam.score == 2 and not exam.is_grading


def test_another_student_can_neither_see_nor_trigger_the_grading(
    client, exam, student, offering, database_tasks, settings
):
    _submit(exam, student)
    settings.QUIZ_GRADING_INLINE_AFTER_SECONDS = 0
    Attempt.objects.filter(pk=exam.pk).update(
        grading_queued_at=timezone.now() - timedelta(seconds=5)
    )
    other = EnrollmentFactory(offering=offering, role="student").user
    client.login(username=other.username, password=PASSWORD)
    assert client.get(_url("attempt_results", exam)).status_code == 404
    assert client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true").status_code == 404
    exam.refresh_from_db()
    assert exam.is_grading and not Response.objects.filter(variant__attempt=exam).exists()


def test_a_student_cannot_have_a_graded_attempt_graded_again(
    client, exam, student, database_tasks, task_worker
):
    _submit(exam, student)
    task_worker()
    exam.refresh_from_db()
    score = exam.score
    numeric = exam.variants.get(item__position=1)
    client.login(username=student.username, password=PASSWORD)
    # Try to change the answer, submit again, and ask for grading again: nothing moves.
    url = reverse("quizzes:autosave", args=[OFFERING, exam.pk, numeric.pk, "t"])
    client.post(url, {"answer": "1000 s", "sequence": "9"}, HTTP_HX_REQUEST="true")
    client.post(_url("submit_attempt", exam), {"confirm": "1"})
    client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    client.get(_url("attempt_results", exam))
    task_worker()
    exam.refresh_from_db()
    assert exam.score == score and not exam.is_grading
    assert Response.objects.get(variant=numeric).raw != "1000 s"
    assert grading_run.grade_submitted(attempt_id=exam.pk) is False


def test_a_part_whose_grader_fails_is_logged_and_the_rest_is_graded(
    exam, student, database_tasks, monkeypatch, caplog
):
    grade = grading_run.grade_answer

    def broken_numeric(variant, part_id, raw, states):
        if part_id == "t":
            raise RuntimeError("grader down")
        return grade(variant, part_id, raw, states)

    monkeypatch.setattr(grading_run, "grade_answer", broken_numeric)
    _submit(exam, student)
    with caplog.at_level(logging.ERROR, logger="quizzes.services.grading_run"):
        assert grading_run.grade_submitted(attempt_id=exam.pk)
    assert "part t failed" in caplog.text
    exam.refresh_from_db()
    assert exam.score == 1 and not exam.is_grading
    assert SavedAnswer.objects.filter(variant__attempt=exam).count() == 2  # nothing lost


def test_gradebook_shows_an_attempt_being_graded_as_such_never_as_zero(
    client, exam, student, instructor, database_tasks
):
    _submit(exam, student)
    client.force_login(instructor)
    page = client.get(reverse("instructor:gradebook", args=[OFFERING])).content.decode()
    assert "being graded" in page
    assert ">0<span" not in page


def test_homework_is_still_scored_at_submission(course, student, database_tasks):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    _submit(attempt, student)
    attempt.refresh_from_db()
    assert not attempt.is_grading and attempt.score == 0


def _grade_twice_at_once(attempt_id: int):
    """Two threads, each on its own connection, grading one attempt at the same moment."""
    import threading

    from django.db import connection

    barrier, finished, errors = threading.Barrier(2), [], []

    def grade():
        try:
            barrier.wait(timeout=10)
            finished.append(grading_run.grade_submitted(attempt_id=attempt_id))
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=grade) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    return finished, errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_grade_it_exactly_once(course, student, monkeypatch):
    """Real threads on two connections against PostgreSQL's row lock (SQLite's in-memory test
    database refuses a second writer instead of making it wait)."""
    quiz = make_quiz(course, examples=EXAMPLES, mode=QuizMode.EXAM, release="immediate")
    monkeypatch.setattr(grading_run, "enqueue", lambda **kw: None)  # the threads grade it
    for _ in range(3):
        attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
        numeric = attempt.variants.get(item__position=1)
        _save(numeric, student, "t", f"{float(correct_answers(numeric)['t']):.6g} s")
        _submit(attempt, student)
        before = _counter(attempt)
        finished, errors = _grade_twice_at_once(attempt.pk)
        assert not errors, errors
        assert sorted(finished) == [False, True]
        attempt.refresh_from_db()
        assert attempt.score == 1 and not attempt.is_grading
        assert Response.objects.filter(variant__attempt=attempt).count() == 1
        assert _counter(attempt) == before + 1
        attempt.delete()


def test_the_page_of_an_attempt_being_graded_reads_its_progress_once_per_stored_grade(
    client, exam, student, database_tasks, django_assert_num_queries
):
    """The results page and the status it polls every 2 s while a class waits: the session,
    the user, the enrolments, the attempt, and one query for every question's progress, which
    is then kept under the attempt's row (`results_memo.grading_progress`) until a grade stored
    raises its page stamp."""
    client.login(username=student.username, password=PASSWORD)
    _submit(exam, student)
    client.get(_url("attempt_grading", exam))  # the course row, kept a minute per process
    with django_assert_num_queries(5):
        page = client.get(_url("attempt_results", exam)).content.decode()
    assert "0 of 2 answered questions graded" in page
    with django_assert_num_queries(4):
        partial = client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    assert "0 of 2 answered questions graded" in partial.content.decode()
    numeric = exam.variants.get(item__position=1)
    Response.objects.bulk_create(
        [
            Response(
                variant=numeric, part_id="t", source="exam", raw="1 s", status="incorrect", score=0
            )
        ]
    )
    with django_assert_num_queries(5):
        partial = client.get(_url("attempt_grading", exam), HTTP_HX_REQUEST="true")
    assert "1 of 2 answered questions graded" in partial.content.decode()


def test_the_page_of_an_attempt_being_graded_is_kept_whole_until_a_grade_is_stored(
    client, exam, student, database_tasks, django_assert_num_queries
):
    """The page itself is kept in the attempt pages' memo (page_memo.grading_page_key), with
    the request's own CSRF token put in: never the same token twice, never a stale list."""
    client.login(username=student.username, password=PASSWORD)
    _submit(exam, student)
    first = client.get(_url("attempt_results", exam)).content.decode()
    assert any(key.startswith("grading:") for key in page_memo._memo)  # noqa: SLF001
    with django_assert_num_queries(4):
        again = client.get(_url("attempt_results", exam)).content.decode()
    assert _token(again) != _token(first)  # the request's own, put in on the way out
    assert again.replace(_token(again), "") == first.replace(_token(first), "")
    assert "0 of 2 answered questions graded" in again
    other = Client()
    other.login(username=student.username, password=PASSWORD)
    theirs = other.get(_url("attempt_results", exam)).content.decode()
    assert _token(theirs) not in first and "0 of 2 answered questions graded" in theirs
    numeric = exam.variants.get(item__position=1)
    Response.objects.create(
        variant=numeric, part_id="t", source="exam", raw="1 s", status="incorrect", score=0
    )
    page = client.get(_url("attempt_results", exam)).content.decode()
    assert "1 of 2 answered questions graded" in page


def _token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_progress_tells_graded_waiting_and_unanswered_questions_apart(
    exam, student, database_tasks
):
    numeric = exam.variants.get(item__position=1)
    choice = exam.variants.get(item__position=2)
    _submit(exam, student)
    assert grading_run.progress(exam) == [grading_run.WAITING, grading_run.WAITING]
    SavedAnswer.objects.filter(variant=choice).update(raw="")
    Response.objects.create(
        variant=numeric, part_id="t", source="exam", raw="1 s", status="incorrect", score=0
    )
    assert grading_run.progress(exam) == [grading_run.GRADED, grading_run.UNANSWERED]

"""Background work through the database task backend and a worker, as production runs it: a
regrade completes with no browser open, long validations and the expiry sweep run in the worker,
and a retrying task enqueues its next try with a backoff."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from courseware.tasks import RetryLater, backoff_seconds, retrying_task
from quizzes import tasks
from quizzes.models import Attempt, RegradeRun, RegradeStatus, Response
from quizzes.services import attempts as attempt_service
from quizzes.services import authoring
from tests.factories import OFFERING, PASSWORD, example_source, make_quiz, offering_of
from tests.quizzes.test_regrade import SLUG
from tests.quizzes.test_regrade import graded as graded  # the fixture
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db

CALLS: list[dict] = []


@retrying_task(attempts=3, backoff=10, max_backoff=15)
def flaky(*, fail_times: int, error: str = "retry") -> int:
    CALLS.append({"fail_times": fail_times})
    if len(CALLS) <= fail_times:
        raise RetryLater("the LMS is busy") if error == "retry" else ValueError("bad data")
    return len(CALLS)


def _version(template, source: str):
    """A new current version of `template`, numbered after its highest one."""
    import hashlib

    from django.db.models import Max

    from tests.factories import TemplateVersionFactory

    number = (template.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = TemplateVersionFactory(
        template=template,
        number=number,
        source=source,
        content_hash=hashlib.sha256(source.encode()).hexdigest(),
    )
    template.current_version = version
    template.save(update_fields=["current_version"])
    return version


@pytest.fixture(autouse=True)
def _no_calls():
    CALLS.clear()


# ---------------------------------------------------------------- regrades


def test_a_regrade_previews_and_applies_in_the_worker_with_no_page_open(
    client, graded, instructor, task_worker
):
    item, responses = graded
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    client.login(username=instructor.username, password=PASSWORD)
    client.post(
        reverse("instructor:regrade", args=[OFFERING]),
        {"template": item.template.pk, "target_version": wider.pk, "recompute_answers": ""},
    )
    run = RegradeRun.objects.get()
    assert run.status == RegradeStatus.PREVIEWING and run.task_id  # the request did no grading
    page = client.get(
        reverse("instructor:regrade_detail", args=[OFFERING, run.pk])
    ).content.decode()
    assert "in the background" in page and "hx-get" in page

    task_worker()
    run.refresh_from_db()
    assert run.status == RegradeStatus.PREVIEWED and run.changed == 1

    client.post(reverse("instructor:regrade_apply", args=[OFFERING, run.pk]))
    run.refresh_from_db()
    assert run.status == RegradeStatus.RUNNING and run.processed == 0
    progress = reverse("instructor:regrade_progress", args=[OFFERING, run.pk])
    fragment = client.get(progress, HTTP_HX_REQUEST="true").content.decode()
    run.refresh_from_db()
    assert run.processed == 0 and "every 1s" in fragment  # polling reads, it does no work
    client.logout()  # nobody watches from here on

    task_worker()
    run.refresh_from_db()
    assert run.status == RegradeStatus.APPLIED and run.processed == run.total == 2
    assert Response.objects.get(pk=responses["near"].pk).status == "correct"


def test_the_page_reloads_when_the_preview_is_ready(client, graded, instructor):
    item, _ = graded
    run = RegradeRun.objects.create(
        offering=item.quiz.offering,
        template=item.template,
        target_version=item.template.current_version,
    )
    client.login(username=instructor.username, password=PASSWORD)
    url = reverse("instructor:regrade_progress", args=[OFFERING, run.pk]) + "?was=previewing"
    response = client.get(url, HTTP_HX_REQUEST="true")
    assert response["HX-Refresh"] == "true"
    assert "every 1s" not in response.content.decode()


def test_a_failed_preview_says_why_and_cannot_be_applied(
    client, graded, instructor, monkeypatch, task_worker
):
    item, _ = graded

    def broken(**kwargs):
        raise RuntimeError("the version does not parse")

    monkeypatch.setattr(tasks.regrade, "compute_preview", broken)
    run = tasks.request_preview(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=True,
        by=instructor,
    )
    task_worker()
    run.refresh_from_db()
    assert run.status == RegradeStatus.FAILED
    assert "the version does not parse" in run.error
    client.login(username=instructor.username, password=PASSWORD)
    page = client.get(
        reverse("instructor:regrade_detail", args=[OFFERING, run.pk])
    ).content.decode()
    assert "the version does not parse" in page and "Apply" not in page
    assert DBTaskResult.objects.get(id=run.task_id).status == "FAILED"


def test_a_stopped_apply_can_be_resumed(graded, instructor, monkeypatch):
    item, _ = graded
    run = tasks.request_preview(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=False,
        by=instructor,
    )
    real = tasks.regrade.apply_regrade
    monkeypatch.setattr(
        tasks.regrade, "apply_regrade", lambda **kw: (_ for _ in ()).throw(OSError("disk full"))
    )
    run = tasks.request_apply(run=run)
    assert run.status == RegradeStatus.RUNNING and "disk full" in run.error
    monkeypatch.setattr(tasks.regrade, "apply_regrade", real)
    run = tasks.request_apply(run=run)
    assert run.status == RegradeStatus.APPLIED and run.error == ""


# ---------------------------------------------------------------- studio validation


def test_a_long_validation_runs_in_the_worker(client, course, author, monkeypatch, task_worker):
    monkeypatch.setattr(authoring, "DEFAULT_SEEDS", 5)
    template = make_template(course)
    client.force_login(author)
    url = reverse("studio:template_validate", args=[template.slug])
    body = client.post(url, {"seeds": "12"}).content.decode()
    template.refresh_from_db()
    assert template.last_validation["pending"]["seeds"] == 12
    assert "in the background" in body and "every 2s" in body
    task_worker()
    template.refresh_from_db()
    summary = template.last_validation
    assert summary["seeds"] == 12 and summary["variants"] == 12 and "pending" not in summary
    assert "every 2s" not in client.get(url).content.decode()


def test_a_validation_within_the_gate_runs_in_the_request(client, course, author, task_worker):
    template = make_template(course)
    client.force_login(author)
    client.post(reverse("studio:template_validate", args=[template.slug]), {"seeds": "4"})
    template.refresh_from_db()
    assert template.last_validation["seeds"] == 4
    assert not DBTaskResult.objects.exists()


# ---------------------------------------------------------------- expired attempts


def test_the_worker_closes_expired_exams_and_schedules_the_next_sweep(course, student, task_worker):
    exam = make_quiz(course, mode="exam", time_limit_minutes=30)
    past = timezone.now() - timedelta(hours=2)
    attempt = attempt_service.start_attempt(quiz=exam, student=student, now=past)
    assert tasks.schedule_expiry_sweep(delay=0) is True
    assert tasks.schedule_expiry_sweep(delay=0) is False  # one sweep waits at a time
    task_worker()
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and attempt.auto_submitted
    waiting = DBTaskResult.objects.filter(status="READY", task_path__endswith="close_expired_exams")
    (following,) = waiting
    assert following.run_after > timezone.now() + timedelta(seconds=30)


def test_the_worker_command_starts_the_sweep(monkeypatch, database_tasks):
    from django.core.management import call_command

    from quizzes.management.commands import worker

    ran = []
    monkeypatch.setattr(worker.ResilientWorker, "configure_signals", lambda self: None)
    monkeypatch.setattr(worker.ResilientWorker, "run", lambda self: ran.append(self))
    call_command("worker", verbosity=0)
    assert ran[0].process_all_queues and not ran[0].batch
    assert DBTaskResult.objects.filter(task_path__endswith="close_expired_exams").count() == 1


def test_without_a_database_queue_the_sweep_is_left_to_cron(db):
    assert tasks.schedule_expiry_sweep(delay=0) is False  # the tests' immediate backend


def test_the_sweep_task_returns_how_many_it_closed(course, student):
    exam = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt_service.start_attempt(
        quiz=exam, student=student, now=timezone.now() - timedelta(hours=1)
    )
    result = tasks.close_expired_exams.enqueue()
    assert result.return_value == 1
    assert Attempt.objects.get().score == Decimal("0.000")


# ---------------------------------------------------------------- retries


def test_backoff_doubles_and_is_capped():
    delays = [backoff_seconds(n, backoff=30, max_backoff=100) for n in (1, 2, 3, 4)]
    assert delays == [30, 60, 100, 100]


def test_a_retrying_task_tries_again_until_it_succeeds():
    result = flaky.enqueue(fail_times=2)
    assert len(CALLS) == 3  # the immediate backend runs each next try at once
    assert result.status == "FAILED"  # the first try's own result keeps its error


def test_a_retrying_task_gives_up_after_its_attempts():
    flaky.enqueue(fail_times=5)
    assert len(CALLS) == 3


def test_an_error_not_worth_retrying_fails_at_once():
    flaky.enqueue(fail_times=5, error="value")
    assert len(CALLS) == 1


def test_the_next_try_waits_in_the_queue_for_its_backoff(task_worker):
    flaky.enqueue(fail_times=1)
    before = timezone.now()
    task_worker()
    assert len(CALLS) == 1
    failed, waiting = (
        DBTaskResult.objects.filter(status=s, task_path__endswith="flaky").get()
        for s in ("FAILED", "READY")
    )
    assert waiting.args_kwargs["kwargs"] == {"fail_times": 1, "retry_try": 2}
    assert before + timedelta(seconds=9) < waiting.run_after < before + timedelta(seconds=12)
    DBTaskResult.objects.filter(pk=waiting.pk).update(run_after=timezone.now())
    task_worker()
    waiting.refresh_from_db()
    assert len(CALLS) == 2 and waiting.status == "SUCCESSFUL" and waiting.return_value == 2

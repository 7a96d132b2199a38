"""The task worker survives database errors and is watched (issue 33, S5).

The review: the worker exited for good on any database error (SQLite locked over 20 s, a
PostgreSQL restart, read-only or stopped); nothing restarted it, and exam expiry, regrades and
grade passback stopped silently; a worker killed mid-regrade left the run "Running" forever.
The PostgreSQL restart itself is in `test_worker_postgres_restart.py`.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

import health.worker
from health import heartbeat
from health.models import WorkerHeartbeat
from health.recovery import MAX_CLAIMS, requeue_orphans
from quizzes import tasks
from quizzes.models import RegradeRun, RegradeStatus
from tests.factories import OFFERING
from tests.quizzes.test_regrade import graded as graded  # the fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_backoff(monkeypatch):
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) > 50:  # a worker that never recovers fails the test, never hangs it
            raise RuntimeError("the worker never got the database back")

    monkeypatch.setattr(health.worker, "backoff_sleep", wait)
    return waits


def _failing(monkeypatch, target, name, error: Exception, times: int):
    """`target.name` raises `error` on its first `times` calls, then works."""
    real = getattr(target, name)
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= times:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, flaky)
    return calls


@pytest.mark.parametrize(
    "error",
    [
        OperationalError("database is locked"),
        OperationalError("server closed the connection unexpectedly"),
        OperationalError("cannot execute UPDATE in a read-only transaction"),
        OperationalError("connection refused"),
    ],
    ids=["sqlite-locked", "postgres-restarted", "read-only", "stopped"],
)
def test_a_database_error_makes_the_worker_back_off_and_carry_on(
    monkeypatch, task_worker, no_backoff, course, student, error
):
    # Finishing a task is the write the review saw fail (the lock outlasted SQLite's 20 s);
    # an outage fails the write of the failure too, and the worker's recovery, twice more.
    _failing(monkeypatch, DBTaskResult, "set_successful", error, times=1)
    _failing(monkeypatch, DBTaskResult, "set_failed", error, times=1)
    _failing(monkeypatch, health.worker, "requeue_orphans", error, times=3)
    tasks.close_expired_exams.enqueue()
    task_worker()
    sweep = DBTaskResult.objects.filter(task_path__endswith="close_expired_exams")
    assert sweep.filter(status="SUCCESSFUL").exists()
    # It waited 1, 2, 4 s between tries rather than exiting, then ran the task again.
    assert no_backoff == [1.0, 2.0, 4.0]
    seen = WorkerHeartbeat.objects.get()
    assert seen.state == heartbeat.STOPPED  # the batch ended, cleanly
    assert type(error).__name__ in seen.last_error or seen.last_error == ""


def test_the_backoff_doubles_up_to_its_cap(monkeypatch, task_worker, no_backoff):
    from django_tasks_db.models import DBTaskResultQuerySet

    _failing(monkeypatch, DBTaskResultQuerySet, "ready", OperationalError("gone"), times=1)
    _failing(monkeypatch, health.worker, "requeue_orphans", OperationalError("gone"), times=9)
    task_worker()
    assert no_backoff == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0, 30.0]


def _running(worker: str, claims: int = 1, started_ago: timedelta = timedelta(minutes=5)):
    result = tasks.close_expired_exams.enqueue()
    started = timezone.now() - started_ago
    DBTaskResult.objects.filter(pk=result.id).update(
        status="RUNNING",
        worker_ids=[f"old-{i}" for i in range(claims - 1)] + [worker],
        started_at=started,
    )
    return DBTaskResult.objects.get(pk=result.id)


def _heartbeat(worker: str, ago: timedelta, state: str = heartbeat.RUNNING):
    now = timezone.now()
    WorkerHeartbeat.objects.create(
        worker_id=worker, started_at=now - ago, seen_at=now - ago, state=state
    )


def test_a_task_whose_worker_died_goes_back_to_the_queue(database_tasks):
    _heartbeat("dead", timedelta(minutes=10))
    _heartbeat("alive", timedelta(seconds=5))
    orphan, busy = _running("dead"), _running("alive")
    recent_stranger = _running("never-beat", started_ago=timedelta(minutes=1))
    old_stranger = _running("never-beat-old", started_ago=timedelta(hours=2))
    assert requeue_orphans() == 2
    states = dict(DBTaskResult.objects.values_list("pk", "status"))
    assert states[orphan.pk] == "READY" and states[old_stranger.pk] == "READY"
    assert states[busy.pk] == "RUNNING" and states[recent_stranger.pk] == "RUNNING"


def test_a_task_that_keeps_killing_its_workers_is_failed_not_retried_forever(database_tasks):
    _heartbeat("dead", timedelta(minutes=10))
    poison = _running("dead", claims=MAX_CLAIMS)
    assert requeue_orphans() == 0
    poison.refresh_from_db()
    assert poison.status == "FAILED" and "WorkerDied" in poison.exception_class_path


def test_a_regrade_whose_worker_was_killed_resumes_in_the_next_worker(
    graded, instructor, task_worker
):
    item, _ = graded
    run = tasks.request_preview(
        offering=item.quiz.offering,
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=False,
        by=instructor,
    )
    task_worker()
    run = tasks.request_apply(run=RegradeRun.objects.get(pk=run.pk))
    assert run.status == RegradeStatus.RUNNING
    # The worker that claimed the apply was killed (kill -9): its row says RUNNING, its
    # heartbeat stopped ten minutes ago.
    _heartbeat("killed", timedelta(minutes=10))
    DBTaskResult.objects.filter(pk=run.task_id).update(status="RUNNING", worker_ids=["killed"])
    task_worker()
    run.refresh_from_db()
    assert run.status == RegradeStatus.APPLIED and run.processed == run.total


def test_the_supervisor_starts_a_dead_worker_again():
    waits: list[float] = []
    restarts = health.worker.supervise(
        [sys.executable, "-c", "import sys; sys.exit(3)"], max_restarts=2, sleep=waits.append
    )
    assert restarts == 2 and waits == [2.0, 2.0]


def test_make_run_supervises_the_worker():
    from pathlib import Path

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:") :].split("\n\n")[0]
    assert "worker --supervise" in run


# -- watched: the dashboard and the health endpoints ----------------------------------------


def test_healthz_says_the_process_is_up(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_readyz_reports_each_check_and_answers_503_without_a_worker(client):
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503 and body["status"] == "unavailable"
    assert body["checks"]["database"] == {"ok": True}
    assert body["checks"]["cache"] == {"ok": True}
    assert body["checks"]["task_worker"]["ok"] is False
    assert body["checks"]["task_worker"]["state"] == "never seen"


def test_readyz_is_ready_with_a_fresh_heartbeat_and_says_when_it_goes_stale(
    client, settings, monkeypatch
):
    monkeypatch.setenv("GRADING_INLINE", "1")  # no pool starting in this process meanwhile
    _heartbeat("w1", timedelta(seconds=3))
    body = client.get("/readyz").json()
    assert body["status"] == "ok" and body["checks"]["task_worker"]["ok"] is True
    assert 2 <= body["checks"]["task_worker"]["last_seen_seconds_ago"] < 60
    settings.WORKER_STALE_SECONDS = 1
    response = client.get("/readyz")
    assert response.status_code == 503
    assert json.loads(response.content)["checks"]["task_worker"]["ok"] is False


def test_readyz_answers_503_when_the_database_fails(client, monkeypatch):
    from health import views

    monkeypatch.setattr(views, "_database", lambda: {"ok": False, "error": "OperationalError"})
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == {"ok": False, "error": "OperationalError"}


def test_the_instructor_dashboard_says_when_the_worker_was_last_seen(client, instructor):
    client.force_login(instructor)
    _heartbeat("w1", timedelta(seconds=30))
    page = client.get(reverse("instructor:dashboard", args=[OFFERING])).content.decode()
    assert "Background worker: last seen" in page and "worker-stale" not in page
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=9))
    page = client.get(reverse("instructor:dashboard", args=[OFFERING])).content.decode()
    assert "The background worker was last seen 9" in page and "worker-stale" in page
    assert "manage.py worker" in page


def test_the_dashboard_warns_when_no_worker_ever_ran(client, instructor):
    client.force_login(instructor)
    page = client.get(reverse("instructor:dashboard", args=[OFFERING])).content.decode()
    assert "The background worker has not run yet" in page

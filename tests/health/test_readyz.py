"""`/readyz` names each thing a server needs before it takes traffic: the database, the cache,
the task worker's heartbeat and this process's formula-grading pool (registered by the quizzes
app through `health.checks`), and answers 503 while any of them cannot work."""

from __future__ import annotations

import pytest
from django.utils import timezone

from health import checks
from health.models import WorkerHeartbeat
from quizzes.grading import pool

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_alive():
    now = timezone.now()
    WorkerHeartbeat.objects.create(worker_id="w1", started_at=now, seen_at=now, state="running")


@pytest.fixture
def real_pool(monkeypatch):
    """This process's pool, one worker, not inline; stopped afterwards."""
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    monkeypatch.setenv("GRADING_POOL_SIZE", "1")
    pool.shutdown_pool()
    yield
    pool.shutdown_pool()


def test_readyz_names_every_check_and_is_ready_when_all_pass(client, worker_alive, monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "task_worker", "grading_pool"}
    assert body["checks"]["grading_pool"] == {"ok": True, "state": "inline"}


def test_a_pool_not_started_in_this_process_is_ready(client, worker_alive, real_pool):
    body = client.get("/readyz").json()
    assert body["checks"]["grading_pool"] == {"ok": True, "state": "not started", "size": 1}
    assert pool._pool is None  # asking never starts one


def test_readyz_waits_for_the_pool_to_warm_and_fails_when_its_workers_die(
    client, worker_alive, real_pool
):
    pool.start_pool()
    starting = client.get("/readyz")
    assert starting.status_code == 503
    assert starting.json()["checks"]["grading_pool"]["state"] == "starting"

    pool.start_pool(wait=True)
    warm = client.get("/readyz")
    assert warm.status_code == 200, warm.json()
    assert warm.json()["checks"]["grading_pool"] == {
        "ok": True,
        "state": "warm",
        "workers_alive": 1,
        "size": 1,
    }

    for worker in list(pool._pool.workers):
        worker.process.kill()
        worker.process.join(timeout=10)
    down = client.get("/readyz")
    assert down.status_code == 503
    assert down.json()["checks"]["grading_pool"] == {
        "ok": False,
        "state": "down",
        "workers_alive": 0,
        "size": 1,
    }


def test_a_registered_check_that_raises_is_not_ready_and_names_only_the_error_class(
    client, worker_alive, monkeypatch
):
    monkeypatch.setenv("GRADING_INLINE", "1")

    def broken():
        raise RuntimeError("secret detail: password=hunter2")

    monkeypatch.setitem(checks._checks, "broken", broken)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["broken"] == {"ok": False, "error": "RuntimeError"}
    assert b"hunter2" not in response.content


def test_a_check_answering_a_falsy_ok_is_not_ready(client, worker_alive, monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    monkeypatch.setitem(checks._checks, "odd", lambda: {"ok": "", "state": "?"})
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["checks"]["odd"]["ok"] is False


def test_a_probe_may_name_the_checks_that_decide_and_a_dead_task_worker_is_left_out(
    client, monkeypatch
):
    """No heartbeat at all: the full check is 503, the load balancer's probe is 200."""
    monkeypatch.setenv("GRADING_INLINE", "1")
    full = client.get("/readyz")
    assert full.status_code == 503 and full.json()["checks"]["task_worker"]["ok"] is False
    probe = client.get("/readyz?checks=database,cache,grading_pool")
    assert probe.status_code == 200, probe.json()
    assert set(probe.json()["checks"]) == {"database", "cache", "grading_pool"}


def test_an_unknown_check_name_is_refused_with_the_known_ones(client):
    response = client.get("/readyz?checks=database,<script>")
    assert response.status_code == 400
    body = response.json()
    assert body["unknown"] == ["<script>"]
    assert body["known"] == ["database", "cache", "task_worker", "grading_pool"]
    assert response["Content-Type"] == "application/json"


def test_the_task_worker_check_reads_the_database_only_when_it_works(client, monkeypatch):
    from health import views

    monkeypatch.setattr(views, "_database", lambda: {"ok": False, "error": "OperationalError"})
    body = client.get("/readyz?checks=task_worker").json()
    assert body["checks"] == {"task_worker": {"ok": False}}


def test_a_flood_of_check_names_is_answered_briefly(client):
    response = client.get("/readyz?checks=" + ",".join(f"n{i}" for i in range(2000)))
    assert response.status_code == 400
    assert len(response.json()["unknown"]) == 10 and len(response.content) < 1000

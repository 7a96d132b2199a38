"""Starting the pool: in the background, graded in the calling process until a worker is
ready (so the first answer after a start never waits for sympy to load in a new process), and
started when a web worker starts serving, not for other management commands."""

from __future__ import annotations

import os
import runpy
import threading
from pathlib import Path

import pytest

from quizzes import warmup
from quizzes.grading import grade_in_pool, pool, shutdown_pool, start_pool
from quizzes.grading.pool import run_in_pool

from . import pool_hooks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cold_pool(monkeypatch):
    """A pool whose workers never become ready: what a call sees right after a start."""
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    shutdown_pool()
    monkeypatch.setattr(pool._Pool, "_start", lambda self, size: None)
    yield
    shutdown_pool()


def test_a_grade_before_any_worker_is_ready_is_made_in_this_process(cold_pool):
    box = {}

    def grade():
        box["grade"] = grade_in_pool(
            "symbolic", response="2 n m", expected="m*n*2", variables=["n", "m"]
        )

    caller = threading.Thread(target=grade, daemon=True)
    caller.start()
    caller.join(30)
    assert not caller.is_alive(), "the first grade waited for a worker that never came"
    assert box["grade"].status == "correct"
    assert not pool._pool.warm.is_set()


def test_arbitrary_functions_never_run_in_this_process(cold_pool, monkeypatch):
    monkeypatch.setattr(pool, "READY_TIMEOUT", 0.2)
    box = {}

    def call():
        box["grade"] = run_in_pool(pool_hooks.report_pid, timeout=0.1)

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    caller.join(0.5)
    # still waiting for a worker (or told the grader is busy), never run here
    assert "grade" not in box or box["grade"].feedback != str(os.getpid())


def test_start_pool_returns_at_once_and_warms_in_the_background(monkeypatch):
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    monkeypatch.setenv("GRADING_POOL_SIZE", "1")
    shutdown_pool()
    try:
        start_pool()
        assert pool._pool is not None
        pool._pool.warm.wait(60)
        assert pool._pool.warm.is_set()
        pid = int(run_in_pool(pool_hooks.report_pid).feedback)
        assert pid != os.getpid()
    finally:
        shutdown_pool()


@pytest.mark.parametrize(
    ("argv", "environ", "serving"),
    [
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, True),
        (["manage.py", "runserver", "--noreload"], {}, True),
        (["manage.py", "runserver"], {}, False),  # the autoreloader's watcher process
        (["manage.py", "migrate"], {"RUN_MAIN": "true"}, False),
        (["manage.py", "sync_questions"], {}, False),
        (["manage.py", "shell"], {}, False),
        (["pytest", "tests"], {}, False),
        (["manage.py"], {}, False),
    ],
)
def test_the_ready_hook_starts_the_pool_only_when_serving(argv, environ, serving, monkeypatch):
    started = []
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    monkeypatch.setattr("quizzes.grading.start_pool", lambda: started.append(True))
    assert warmup.on_ready(argv, environ) is serving
    assert bool(started) is serving


def test_the_ready_hook_respects_the_setting_and_inline_grading(monkeypatch, settings):
    started = []
    monkeypatch.setattr("quizzes.grading.start_pool", lambda: started.append(True))
    argv, environ = ["manage.py", "runserver", "--noreload"], {}
    settings.GRADING_WARM_ON_START = False
    assert not warmup.on_ready(argv, environ)
    settings.GRADING_WARM_ON_START = True
    monkeypatch.setenv("GRADING_INLINE", "1")
    assert not warmup.on_ready(argv, environ)
    assert started == []


def test_the_gunicorn_config_starts_each_workers_pool(monkeypatch):
    started, warmed = [], []
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    monkeypatch.setattr("quizzes.grading.start_pool", lambda **kw: started.append(kw))
    monkeypatch.setattr("quizzes.warmup.warm_caches", lambda **kw: warmed.append(kw) or {})
    config = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    config["post_worker_init"](object())
    # Started at once, the caches drawn meanwhile, then waited for before taking traffic.
    assert started[0] == {} and started[1]["wait"] is True
    assert 0 < started[1]["timeout"] <= warmup.WARM_SECONDS
    assert len(warmed) == 1

"""The worker pool: results come back, overruns and memory hogs are killed and replaced."""

import threading

import pytest

from quizzes.grading import grade_in_pool, grade_symbolic, shutdown_pool, start_pool
from quizzes.grading.pool import run_in_pool

from . import pool_hooks


@pytest.fixture
def uses_pool(monkeypatch):
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    monkeypatch.setenv("GRADING_POOL_SIZE", "1")
    shutdown_pool()
    start_pool(wait=True)
    yield
    shutdown_pool()


def worker_pid() -> int:
    return int(run_in_pool(pool_hooks.report_pid).feedback)


def test_numeric_grade_comes_back_from_a_worker(uses_pool):
    grade = grade_in_pool("numeric", response="2100 MB/s", expected=2.1e9, unit="B/s")
    assert grade.status == "correct"
    assert grade.value == pytest.approx(2.1e9)


def test_formula_grading_goes_through_the_pool_by_default(uses_pool):
    grade = grade_symbolic("2n^3/(3n^2)", "2n/3", variables=["n"])
    assert grade.status == "correct"
    assert worker_pid() != __import__("os").getpid()


def test_overrunning_call_is_invalid_and_its_worker_replaced(uses_pool):
    before = worker_pid()
    grade = run_in_pool(pool_hooks.sleep_then_report, timeout=0.5, seconds=30)
    assert grade.status == "invalid"
    assert "took too long" in grade.feedback
    after = worker_pid()
    assert after != before


def test_memory_hungry_call_is_invalid_and_its_worker_replaced(uses_pool):
    before = worker_pid()
    grade = run_in_pool(pool_hooks.allocate, gigabytes=64)
    assert grade.status == "invalid"
    assert "memory" in grade.feedback
    assert worker_pid() != before


def test_crashed_worker_is_replaced(uses_pool):
    grade = run_in_pool(pool_hooks.exit_abruptly)
    assert grade.status == "invalid"
    assert grade_in_pool("numeric", response="3", expected=3.0).status == "correct"


def test_template_error_is_raised_in_the_caller(uses_pool):
    with pytest.raises(ValueError, match="template"):
        run_in_pool(pool_hooks.raise_template_error)


def test_unknown_kind_is_refused(uses_pool):
    with pytest.raises(ValueError):
        grade_in_pool("essay", response="x")


def test_concurrent_calls_from_threads_all_get_answers(uses_pool, monkeypatch):
    monkeypatch.setenv("GRADING_POOL_SIZE", "2")
    shutdown_pool()
    start_pool(wait=True)
    results = []

    def grade(index):
        results.append(
            grade_in_pool("numeric", response=f"{index} GB", expected=index * 1e9, unit="B")
        )

    threads = [threading.Thread(target=grade, args=(i,)) for i in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [g.status for g in results] == ["correct"] * 8


def test_inline_mode_grades_in_this_process(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    shutdown_pool()
    assert grade_symbolic("n n", "n^2", variables=["n"]).status == "correct"
    from quizzes.grading import pool

    assert pool._pool is None


def test_a_new_workers_warm_up_does_not_count_against_the_first_calls_timeout(uses_pool):
    # The worker needs far longer than 50 ms to start and warm sympy; only the call is timed.
    grade = run_in_pool(pool_hooks.report_pid, timeout=0.05)
    assert grade.feedback.isdigit()
    assert int(grade.feedback) != __import__("os").getpid()


def test_every_warm_up_formula_is_read_so_the_warm_up_exercises_the_grader():
    from quizzes.grading.formula.grade import grade_symbolic_inline
    from quizzes.grading.warming import WARM_UP

    statuses = {
        response: grade_symbolic_inline(response, expected, variables=variables).status
        for response, expected, variables in WARM_UP
    }
    unread = [response for response, status in statuses.items() if status == "invalid"]
    assert unread == ["1/2n"]  # the one deliberate refusal: ambiguous without parentheses
    assert {"correct", "incorrect"} <= set(statuses.values())

"""The Locust section of docs/BENCHMARKS.md (`bench.locustreport`): written from the recorded
runs, every step's p95 beside its server CPU, the load generator's share stated, and the target
row met only when every request kind's p95 is under 500 ms and every check passed."""

from __future__ import annotations

import copy

from bench.loadtest import STEPS, server_cpu_by_step
from bench.locustreport import ARRIVAL, arrival_arithmetic, locust_section

MACHINE = {"cpu": "Test CPU", "nproc": 2}


def a_run(students: int = 1000, p95: float = 180.0) -> dict:
    steps = {
        step: {"n": students, "failures": 0, "p50_ms": 40.0, "p95_ms": p95, "p99_ms": 300.0}
        | {"max_ms": 900.0, "per_s": 8.0}
        for step in STEPS
    }
    steps["Aggregated"] = {**steps["autosave"], "n": 8 * students}
    return {
        "students": students,
        "servers": 1,
        "workers": 2,
        "windows_s": {"arrive": 120.0, "exam": 120.0, "submit": 60.0},
        "think_s": "20,60",
        "load_average": [1.0, 1.1, 1.2],
        "load_average_at_start": [0.5, 0.6, 0.7],
        "wall_s": 420.0,
        "code": {"commit": "abc1234567", "changed": False, "measured": "2026-12-07 00:30 UTC"},
        "machine": MACHINE,
        "verify": {"exam_submitted": students, "exam_parts_checked": 3 * students},
        "steps": steps,
        "cpu_by_process": {
            "seconds": 400.0,
            "cores": 2,
            "cpu_s": {"gunicorn": 200.0, "Locust": 40.0},
        },
        "locust_cpu_s": 32.0,
        "server_cpu_by_step": {step: {"n": students, "cpu_ms": 10.0} for step in STEPS},
        "problems": [],
        "ok": True,
    }


def test_a_run_under_the_target_meets_it():
    text, targets = locust_section({"runs": {"1000": a_run()}})
    assert "### 1 000 students" in text
    assert "| start attempt | 1 000 | 0 | 40.0 | 180.0 | 300.0 | 900.0 | 10.0 |" in text
    assert "4.00 ms per request** it sent" in text  # 32 s of Locust CPU over 8 000 requests
    assert len(targets) == 1 and targets[0][1].startswith("**met**")


def test_one_slow_step_or_one_failed_check_misses_the_target():
    slow = a_run()
    slow["steps"]["question page"]["p95_ms"] = 620.0
    _, targets = locust_section({"runs": {"1000": slow}})
    assert targets[0][1] == "**not met**: worst p95 620.0 ms (question page)"
    failed = copy.deepcopy(a_run())
    failed["ok"], failed["problems"] = False, ["3 of 1000 students finished before Locust stopped"]
    text, targets = locust_section({"runs": {"1000": failed}})
    assert targets[0][1].startswith("**not met**") and "1 checks failed" in targets[0][1]
    assert "**FAILED**: 3 of 1000 students finished" in text


def test_runs_are_listed_by_class_size():
    text, targets = locust_section({"runs": {"1000": a_run(1000), "500": a_run(500)}})
    assert text.index("### 500 students") < text.index("### 1 000 students")
    assert [t[0].split(" on ")[0] for t in targets] == [
        "exam class of 500",
        "exam class of 1 000",
    ]


def test_the_arrival_arithmetic_adds_the_arrival_steps():
    run = a_run()
    for cost, step in zip((5.0, 35.0, 15.0, 50.0, 40.0), ARRIVAL, strict=True):
        run["server_cpu_by_step"][step]["cpu_ms"] = cost
    text = arrival_arithmetic(run)
    assert "**145 ms of CPU**" in text
    assert "**1.21 cores**" in text  # 0.145 s x 1000 / 120 s


def test_the_workers_views_are_named_as_the_scenario_steps():
    views = {
        "GET quizzes:attempt_detail": {"n": 3, "cpu_ms": 30.0},
        "POST login": {"n": 3, "cpu_ms": 35.0},
        "GET other": {"n": 1, "cpu_ms": 1.0},
    }
    named = server_cpu_by_step(views)
    assert named["question page"]["cpu_ms"] == 30.0
    assert named["log in"]["cpu_ms"] == 35.0
    assert named["GET other"]["n"] == 1  # a view outside the scenario is kept, by its own name

"""The load harness fails a run that did not do what its scenario says, and reports every column."""

from __future__ import annotations

import copy

import pytest

from bench.classload import Spread
from bench.loadreport import KIND_HEADER, SUMMARY_HEADER, deploy_table, load_section
from bench.scenarios import (
    EXAM_MINUTE,
    EXAM_START,
    HOMEWORK_EVENING,
    KINDS,
    Progress,
    by_kind,
    exercised,
    scenarios,
)

EXAM, START, HOMEWORK = scenarios(quick=True)


def examinee(**changes) -> Progress:
    done = Progress(
        logged_in=True,
        exam_started=True,
        exam_parts=3,
        autosaves_acked=3,
        autosaves_by_kind={"numeric": 2, "formula": 1},
        exam_submitted=True,
    )
    for name, value in changes.items():
        setattr(done, name, value)
    return done


def homeworker(**changes) -> Progress:
    done = Progress(
        logged_in=True,
        homework_opened=True,
        homework_parts={"numeric": 2, "formula": 1},
        homework_acked={"numeric": 2, "formula": 1},
    )
    for name, value in changes.items():
        setattr(done, name, value)
    return done


def test_the_scenarios_are_the_exam_minute_the_exam_start_and_the_homework_evening():
    assert (EXAM.name, START.name, HOMEWORK.name) == (EXAM_MINUTE, EXAM_START, HOMEWORK_EVENING)
    assert EXAM.exam and not EXAM.homework and EXAM.submit_at_s > EXAM.window_s
    assert HOMEWORK.homework and not HOMEWORK.exam and HOMEWORK.submit_at_s is None
    full_exam, full_start, full_evening = scenarios(quick=False)
    assert full_exam.window_s == 60 and full_evening.window_s == 600
    # The exam start: the same arrivals, a student's pace, the parts a student reaches.
    assert full_start.window_s == full_exam.window_s and not full_start.every_part
    assert full_start.think_s == (20.0, 60.0) and full_exam.every_part
    assert full_start.submit_at_s > full_exam.submit_at_s
    for scenario in (EXAM, START, HOMEWORK, full_exam, full_start, full_evening):
        assert scenario.deadline_s > scenario.window_s  # bounded: every run stops by itself


def test_an_exam_start_where_a_student_saved_no_part_fails():
    assert exercised(START, {"a": examinee(exam_parts=1, autosaves_acked=1)}, 1)["ok"]
    idle = examinee(exam_parts=0, autosaves_acked=0, autosaves_by_kind={})
    check = exercised(START, {"a": examinee(), "b": idle}, 2)
    assert not check["ok"]
    assert "1 students started the exam and saved no part" in check["problems"]


def test_a_run_where_every_student_did_every_step_passes():
    check = exercised(EXAM, {"a": examinee(), "b": examinee()}, 2)
    assert check["ok"], check["problems"]
    assert check["exam_submitted"] == 2 and check["autosaves_by_kind"] == {
        "numeric": 4,
        "formula": 2,
    }
    assert exercised(HOMEWORK, {"a": homeworker()}, 1)["ok"]


def test_an_exam_run_where_no_student_started_fails_loudly():
    # e.g. every account already had an open attempt, so no page offered a Start form
    idle = {name: Progress(logged_in=True) for name in "abc"}
    check = exercised(EXAM, idle, 3)
    assert not check["ok"]
    assert check["problems"][0] == "no student started the exam: the run exercised nothing"
    assert "3 of 3 students did not submit the exam" in check["problems"]


def test_one_student_who_could_not_start_fails_the_run():
    check = exercised(EXAM, {"a": examinee(), "b": Progress(logged_in=True)}, 2)
    assert not check["ok"]
    assert "1 of 2 students did not start the exam" in check["problems"]


def test_a_homework_run_with_zero_homework_answers_fails_loudly():
    opened_only = {"a": homeworker(homework_acked={}), "b": homeworker(homework_acked={})}
    check = exercised(HOMEWORK, opened_only, 2)
    assert not check["ok"]
    assert check["problems"][0].startswith("no homework answer was acknowledged")
    assert "2 students had a part without an acknowledged answer" in check["problems"]


def test_a_homework_run_without_a_formula_answer_fails():
    numbers_only = homeworker(homework_parts={"numeric": 2}, homework_acked={"numeric": 2})
    check = exercised(HOMEWORK, {"a": numbers_only}, 1)
    assert check["problems"] == ["no formula homework answer was acknowledged"]


def test_an_unacknowledged_autosave_and_a_missing_student_fail_the_run():
    check = exercised(EXAM, {"a": examinee(autosaves_acked=2)}, 2)
    assert "1 students had an autosave not acknowledged" in check["problems"]
    assert "1 of 2 students did not log in" in check["problems"]  # never got to start


def test_latency_is_summarised_per_request_kind_with_errors_and_timeouts_apart():
    timings = {"log in": [0.5, 0.7], "autosave": [0.1] * 10, "submit part": [0.2, 0.4]}
    statuses = {
        "log in": {"302": 2, "timeout": 1},
        "autosave": {"200": 9, "500": 1},
        "submit part": {"200": 2, "error": 1},
    }
    kinds = by_kind(timings, statuses)
    assert set(kinds) == {"login", "page", "start", "answer post", "autosave", "submit"}
    assert kinds["login"]["n"] == 2 and kinds["login"]["timeouts"] == 1
    assert kinds["login"]["p50_ms"] == pytest.approx(600)
    assert kinds["autosave"]["errors"] == 1 and kinds["autosave"]["p95_ms"] == pytest.approx(100)
    assert kinds["answer post"]["errors"] == 1
    assert kinds["page"]["n"] == 0 and kinds["page"]["p99_ms"] is None


def fake_run(**changes) -> dict:
    kinds = by_kind({"autosave": [0.1, 0.2], "submit exam": [1.0]}, {"autosave": {"200": 2}})
    run = {
        "scenario": EXAM_MINUTE,
        "database": "PostgreSQL",
        "servers": 1,
        "workers": 2,
        "students": 12,
        "load_average_start": [9.87, 10.1, 10.2],
        "requests": 345,
        "seconds": 10.0,
        "throughput_per_s": 34.5,
        "errors": 0,
        "timeouts": 3,
        "error_samples": [],
        "kinds": kinds,
        "exercised": exercised(EXAM, {"a": examinee()}, 1),
        "verify": {
            "ok": True,
            "problem_count": 0,
            "problems": [],
            "exam_submitted": 12,
            "exam_rows": 96,
            "homework_acked": 0,
        },
        "ok": True,
    }
    run.update(changes)
    return run


def fake_result(runs) -> dict:
    machine = {
        "date": "2026-12-01 12:00 UTC",
        "cpu": "test CPU",
        "nproc": 2,
        "memory_gib": 1.0,
        "python": "3",
        "django": "5",
        "sqlite": "3",
        "load_average": [9.87, 10.1, 10.2],
    }
    scenario = [{"name": s.name, "description": s.description} for s in (EXAM, HOMEWORK)]
    data = {"harness": 2, "students": 12, "scenarios": scenario, "runs": runs, "skipped": []}
    return {"machine": machine, "quick": True, "data": data}


def test_the_load_report_has_every_column_and_every_request_kind():
    two = fake_run(servers=2, throughput_per_s=51.75, requests_per_server=[170, 175])
    text, targets = load_section(fake_result([fake_run(), two]))
    for column in SUMMARY_HEADER + KIND_HEADER:
        assert f" {column} |" in text, column
    for kind in KINDS:
        assert f"| {kind} |" in text, kind
    assert "| 9.87 / 10.10 / 10.20 |" in text  # the load average at the start of the run
    assert "| 34.5 |" in text and "| 1.50× |" in text  # requests/s and scaling to 2 servers
    assert "each stored exactly once, nothing else stored" in text
    assert "**ok**: 1 students did every step" in text
    assert dict(targets)[
        "exam minute, PostgreSQL, 2 workers: p95 under 500 ms for answer "
        "posts and autosaves, 0 errors, 0 timeouts"
    ].startswith("**not met**")
    assert "| 2 × 2 (requests 170 / 175) |" in text
    assert "| 2 × 2 (requests 170 / 175) |" in deploy_table(fake_result([fake_run(), two]))


def test_the_report_shows_a_failed_scenario_check_as_failed():
    failed = fake_run(ok=False)
    failed["exercised"] = exercised(EXAM, {"a": Progress(logged_in=True)}, 1)
    text, targets = load_section(fake_result([failed]))
    assert "**FAILED**: no student started the exam" in text
    assert targets[0][1].startswith("**not met**")
    broken = copy.deepcopy(fake_run())
    broken["verify"].update(ok=False, problem_count=2)
    assert "**2 problems**" in load_section(fake_result([broken]))[0]


def test_a_spread_browser_alternates_servers_with_one_set_of_cookies():
    tally: dict[int, int] = {}
    spread = Spread([8001, 8002], tally)
    ports = [spread._next().port for _ in range(5)]
    assert ports == [8001, 8002, 8001, 8002, 8001]
    assert tally == {8001: 3, 8002: 2}
    spread.browsers[0].cookies["sessionid"] = "made-on-the-first"
    assert spread.browsers[1].cookies["sessionid"] == "made-on-the-first"


def test_a_simulated_student_sends_a_growing_sequence_above_the_stored_one():
    from bench.drive import next_sequence

    fields = {"sequence": str(2**50)}  # the page's form: the stored save's sequence plus one
    first, second = next_sequence(fields), next_sequence(fields)
    assert int(first) == 2**50 and int(second) == 2**50 + 1
    fresh = {"sequence": "1"}
    assert int(next_sequence(fresh)) < int(next_sequence(fresh))  # the clock, then above it


def test_a_student_at_a_students_pace_starts_no_part_the_deadline_would_cut(monkeypatch):
    import random
    import time

    from bench import drive

    slept = []
    monkeypatch.setattr(drive.time, "sleep", slept.append)
    student = drive.Student(Spread([8001], {}), "s", "pw", drive.Log(), random.Random(1))
    far = time.perf_counter() + 600.0
    assert student.think((20.0, 60.0), far) and 20.0 <= slept[-1] <= 60.0
    near = time.perf_counter() + drive.DEADLINE_MARGIN_S + 10.0
    assert not student.think((20.0, 60.0), near) and len(slept) == 1  # no pause either
    # The final save of a part it started is made before the deadline: its pause shrinks.
    student.pause(1, time.perf_counter() + drive.DEADLINE_MARGIN_S + 0.5, (1.0, 4.0))
    assert slept[-1] <= 0.5

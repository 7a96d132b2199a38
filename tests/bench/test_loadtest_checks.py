"""`make loadtest`'s checks: a Locust run counts only when every step of the scenario ran, no
request failed, every student finished, and the database holds what was acknowledged. Each
case takes a good run and breaks one thing."""

from __future__ import annotations

import csv

import pytest

from bench.loadtest import STEPS, checks, summary_table

STUDENTS = 3
FIELDS = ["Type", "Name", "Request Count", "Failure Count", "50%", "95%", "99%"]


def write_stats(out, counts: dict[str, int], failures: int = 0) -> None:
    with open(out / "locust_stats.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for name, count in counts.items():
            writer.writerow(
                {
                    "Type": "GET",
                    "Name": name,
                    "Request Count": count,
                    "Failure Count": 0,
                    "50%": 10,
                    "95%": 20,
                    "99%": 30,
                }
            )
        writer.writerow(
            {
                "Type": "",
                "Name": "Aggregated",
                "Request Count": sum(counts.values()),
                "Failure Count": failures,
                "50%": 10,
                "95%": 20,
                "99%": 30,
            }
        )


def good_progress() -> dict:
    step = {
        "logged_in": True,
        "exam_started": True,
        "exam_submitted": True,
        "results_seen": True,
        "autosaves_acked": 4,
    }
    return {f"s{i}": dict(step) for i in range(STUDENTS)}


def good_run() -> dict:
    return {"progress": good_progress(), "finished": STUDENTS, "harness_errors": []}


GOOD_VERIFY = {"ok": True, "problems": [], "exam_submitted": STUDENTS}


@pytest.fixture
def out(tmp_path):
    write_stats(tmp_path, {step: STUDENTS for step in STEPS})
    return tmp_path


def test_a_complete_run_passes(out):
    assert checks(out, good_run(), GOOD_VERIFY, STUDENTS) == []
    assert "autosave" in summary_table(out)


def test_a_step_never_sent_fails_the_run(out):
    write_stats(out, {step: STUDENTS for step in STEPS if step != "autosave"})
    problems = checks(out, good_run(), GOOD_VERIFY, STUDENTS)
    assert problems == ["no 'autosave' request was sent: the scenario did not run that step"]


def test_a_failed_request_fails_the_run(out):
    write_stats(out, {step: STUDENTS for step in STEPS}, failures=2)
    problems = checks(out, good_run(), GOOD_VERIFY, STUDENTS)
    assert problems == ["Locust counted 2 failed requests (see locust_failures.csv)"]


@pytest.mark.parametrize("step", ["logged_in", "exam_started", "exam_submitted", "results_seen"])
def test_a_student_who_missed_a_step_fails_the_run(out, step):
    progress = good_progress()
    progress["s1"][step] = False
    problems = checks(out, {**good_run(), "progress": progress}, GOOD_VERIFY, STUDENTS)
    assert problems == [f"1 students never got '{step}' (e.g. s1)"]


def test_a_student_with_no_acknowledged_save_fails_the_run(out):
    progress = good_progress()
    progress["s2"]["autosaves_acked"] = 0
    problems = checks(out, {**good_run(), "progress": progress}, GOOD_VERIFY, STUDENTS)
    assert problems == ["1 students had no save acknowledged"]


def test_students_that_never_ran_fail_the_run(out):
    progress = good_progress()
    del progress["s0"]
    problems = checks(out, {**good_run(), "progress": progress}, GOOD_VERIFY, STUDENTS)
    assert f"2 of {STUDENTS} students ran at all" in problems


def test_the_database_check_decides_too(out):
    verify = {
        "ok": False,
        "problems": ["exam answer exam-1-t stored 2 times"],
        "exam_submitted": STUDENTS,
    }
    problems = checks(out, good_run(), verify, STUDENTS)
    assert problems == ["database: exam answer exam-1-t stored 2 times"]
    lost = {**GOOD_VERIFY, "exam_submitted": STUDENTS - 1}
    problems = checks(out, good_run(), lost, STUDENTS)
    assert problems == [f"database check saw {STUDENTS - 1} submissions"]


def test_a_run_that_wrote_nothing_fails(out):
    problems = checks(out, {}, {}, STUDENTS)
    assert f"0 of {STUDENTS} students ran at all" in problems
    assert "database: the check failed" in problems


def test_students_cut_off_by_the_cap_fail_the_run(out):
    """The lead's first 1,000-student run ended after 210 s, before any submission: a run
    that stops before every student is done never counts."""
    problems = checks(out, {**good_run(), "finished": STUDENTS - 1}, GOOD_VERIFY, STUDENTS)
    assert problems == [f"{STUDENTS - 1} of {STUDENTS} students finished before Locust stopped"]


def test_an_error_inside_the_harness_fails_the_run(out):
    """The same run's students hit 'too many clients' in the harness's own answer lookup and
    were silently restarted; now such a student ends and the run fails, naming the error."""
    run = {**good_run(), "harness_errors": ["s1: OperationalError: too many clients"]}
    problems = checks(out, run, GOOD_VERIFY, STUDENTS)
    assert problems == [
        "1 students ended on an error of the harness: s1: OperationalError: too many clients"
    ]


def test_a_student_without_its_answers_fails_the_run(out):
    progress = good_progress()
    progress["s0"]["answers_missing"] = True
    problems = checks(out, {**good_run(), "progress": progress}, GOOD_VERIFY, STUDENTS)
    assert problems == ["1 students never got their attempt's answers from the answer watcher"]

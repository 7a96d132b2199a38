"""The load report's CPU tables and its statement of where the time goes, from a run's figures."""

from __future__ import annotations

from bench import loadreport

RUN = {
    "scenario": "exam minute",
    "database": "PostgreSQL",
    "servers": 1,
    "workers": 2,
    "code": {"commit": "abc1234567", "changed": True, "measured": "2026-12-02 00:20 UTC"},
    "server_cpu_by_kind": {
        "autosave": {"n": 1000, "cpu_s": 8.0, "cpu_ms": 8.0, "wall_ms": 50.0},
        "submit": {"n": 10, "cpu_s": 2.0, "cpu_ms": 200.0, "wall_ms": 900.0},
    },
    "process_cpu": {"seconds": 10.0, "cores": 2, "cpu_s": {"gunicorn": 12.0, "PostgreSQL": 6.0}},
}


def test_the_cpu_tables_give_each_kinds_share_and_the_cores_used():
    text = loadreport.cpu_tables(RUN)
    assert "| autosave | 1 000 | 8.00 | 80% | 50.0 |" in text
    assert "| submit | 10 | 200.0 | 20% | 900.0 |" in text
    assert "| gunicorn | 12.0 | 1.20 |" in text
    assert "| **all** | 18.0 | **1.80** |" in text


def test_the_gap_is_stated_from_the_runs_own_figures():
    text = loadreport.gap(RUN)
    assert "18 CPU-seconds in 10 s: 1.80 of the machine's 2 cores" in text
    assert "Each autosave costs 8.00 ms" in text and "80% of the app's CPU" in text


def test_a_run_says_which_commit_it_measured_or_that_it_did_not_record_it():
    assert loadreport.code_line(RUN) == (
        "code `abc1234567` with uncommitted changes, measured 2026-12-02 00:20 UTC"
    )
    assert "not recorded" in loadreport.code_line({})
    assert loadreport.gap({"scenario": "exam minute"}) == ""

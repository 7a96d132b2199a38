"""The arrival section is rendered from its results files, before beside after when both were
measured in one session, and survives `--report-only`."""

from __future__ import annotations

import json

from bench import __main__ as bench_main
from bench import report
from bench.arrivalreport import TITLE, arrival_section
from tests.bench.test_postcost_report import MACHINE


def _run(quiz_cpu: float, start_cpu: float, start_queries: int) -> dict:
    def step(cpu, ratio, alone, count):
        return {"cpu_ms": cpu, "ratio": ratio, "ratio_alone": alone, "queries": count}

    return {
        "started": "2026-12-07 03:30:00",
        "load_start": [3.5, 1, 1],
        "load_end": [4.5, 1, 1],
        "blocks": 6,
        "rounds": 6,
        "steps": {
            "floor": step(3.0, 1.0, 1.2, 2),
            "login page": step(3.0, 1.0, 1.2, 0),
            "log in": step(45.0, 15.0, 18.0, 18),
            "quiz page": step(quiz_cpu, quiz_cpu / 3, quiz_cpu / 2.5, 6),
            "start attempt": step(start_cpu, start_cpu / 3, start_cpu / 2.5, start_queries),
        },
    }


def _result(suite: str, session: str, *runs: dict, **extra) -> dict:
    data = {"session": session, "runs_per_database": len(runs), "alternated": True, **extra}
    data.update(sqlite=list(runs), postgresql=list(runs))
    return {"suite": suite, "quick": False, "machine": MACHINE, "data": data}


AFTER = _result("arrival", "s1", _run(6.0, 51.0, 12), _run(7.0, 53.0, 12), commit="cce11e3abcd")
BEFORE = _result(
    "arrival-before", "s1", _run(17.0, 63.0, 17), commit="82e40c0abcd", subject="Docs: a change"
)


def test_each_step_before_and_after_with_the_floor_interleaved_and_alone():
    text, targets = arrival_section(AFTER, BEFORE)
    prose = " ".join(text.split())
    assert text.startswith(TITLE)
    assert "| SQLite | quiz page | 17.0 | 6.50 | 5.7 / 6.8 | 2.2 / 2.6 | 6 → 6 |" in text
    assert (
        "| PostgreSQL | start attempt | 63.0 | 52.0 | 21.0 / 25.2 | 17.3 / 20.8 | 17 → 12 |" in text
    )
    assert "128.0 ms before, 106.5 ms after" in prose  # 3 + 45 + quiz page + Start
    assert "at 82e40c0abc" in prose and "at cce11e3abc" in prose
    assert "load average 3.5–4.5" in prose and targets == []


def test_before_from_another_session_is_not_shown_as_a_comparison():
    other = {**BEFORE, "data": {**BEFORE["data"], "session": "s0"}}
    text, _ = arrival_section(AFTER, other)
    assert "CPU ms before" not in text and "No before figures" in " ".join(text.split())
    assert "| PostgreSQL | start attempt | 52.0 | 17.3 / 20.8 | 12 |" in text


def test_report_only_keeps_the_section(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    (results / "arrival.json").write_text(json.dumps(AFTER))
    (results / "arrival-before.json").write_text(json.dumps(BEFORE))
    monkeypatch.setattr(report, "ROOT", tmp_path)
    monkeypatch.setattr(report, "RESULTS", results)
    monkeypatch.setattr(report, "DOC", tmp_path / "BENCHMARKS.md")
    monkeypatch.setattr(report, "DEPLOY", tmp_path / "deploy.md")
    assert bench_main.main(["--report-only"]) == 0
    written = (tmp_path / "BENCHMARKS.md").read_text()
    assert TITLE in written and "CPU ms after" in written

"""The postcost section is rendered from its results files and survives `--report-only`."""

from __future__ import annotations

import json

from bench import __main__ as bench_main
from bench import report
from bench.postcostreport import TITLE, postcost_section

MACHINE = {
    "date": "2026-12-01 21:30 UTC",
    "cpu": "Test CPU",
    "nproc": 2,
    "memory_gib": 4,
    "python": "3.11",
    "django": "5.2",
    "sqlite": "3.40",
    "postgresql": "15",
    "load_average": [0.2, 0.2, 0.2],
}


def _run(autosave_ratio: float, autosave_cpu: float, queries: int) -> dict:
    def kind(cpu, ratio, count):
        return {"cpu_ms": cpu, "ratio": ratio, "queries": count, "wall_ms": cpu}

    return {
        "started": "2026-12-01 21:30:00",
        "load_start": [1.5, 1, 1],
        "load_end": [2.5, 1, 1],
        "blocks": 6,
        "rounds": 10,
        "kinds": {
            "floor": kind(4.0, 1.0, 2),
            "autosave": kind(autosave_cpu, autosave_ratio, queries),
            "check": kind(22.0, 5.5, 12),
        },
    }


def _result(suite: str, session: str, *runs: dict, **extra) -> dict:
    data = {"session": session, "runs_per_database": len(runs), "alternated": True, **extra}
    data.update(sqlite=list(runs), postgresql=list(runs))
    return {"suite": suite, "quick": False, "machine": MACHINE, "data": data}


AFTER = _result("postcost", "s1", _run(2.0, 8.0, 7), _run(2.4, 9.0, 7))
BEFORE = _result(
    "postcost-before", "s1", _run(4.0, 16.0, 11), _run(4.4, 18.0, 11), commit="4a95f70abc"
)


def test_section_shows_before_and_after_measured_in_the_same_session():
    text, targets = postcost_section(AFTER, BEFORE)
    prose = " ".join(text.split())
    assert text.startswith(TITLE)
    assert (
        "| SQLite | exam autosave | 17.0 | 8.50 | 4.20 (4.00, 4.40) | 2.20 (2.00, 2.40) | 11 → 7 |"
        in text
    )
    assert "exam autosave on PostgreSQL 2.20× the floor against 4.20× before (CPU -50 %)" in prose
    assert "at 4a95f70" in prose and "load average 1.5–2.5" in prose
    assert targets == []


def test_before_from_another_session_is_not_shown_as_a_comparison():
    other = {**BEFORE, "data": {**BEFORE["data"], "session": "s0"}}
    text, _ = postcost_section(AFTER, other)
    prose = " ".join(text.split())
    assert "CPU ms before" not in text and "No before figures from the same session" in prose
    assert "| PostgreSQL | exam autosave | 8.50 | 2.20 (2.00, 2.40) | 7 |" in text


def test_report_only_keeps_the_section(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    (results / "postcost.json").write_text(json.dumps(AFTER))
    (results / "postcost-before.json").write_text(json.dumps(BEFORE))
    monkeypatch.setattr(report, "ROOT", tmp_path)
    monkeypatch.setattr(report, "RESULTS", results)
    monkeypatch.setattr(report, "DOC", tmp_path / "BENCHMARKS.md")
    monkeypatch.setattr(report, "DEPLOY", tmp_path / "deploy.md")
    assert bench_main.main(["--report-only"]) == 0
    written = (tmp_path / "BENCHMARKS.md").read_text()
    assert TITLE in written and "CPU ms after" in written

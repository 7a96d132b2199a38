"""The report section of the `arrival` suite: what each step of a class's arrival costs.

`arrival.json` holds the current tree's runs; `arrival-before.json`, when present and measured
in the same session (alternately), an older tree's, shown beside it.
"""

from __future__ import annotations

import textwrap
from statistics import fmean

from bench.report import _machine, ms, table

TITLE = "## The arrival, step by step: CPU per request against the floor, side by side"
STEPS = ("floor", "login page", "log in", "quiz page", "start attempt")
ARRIVAL = STEPS[1:]
DATABASES = (("sqlite", "SQLite"), ("postgresql", "PostgreSQL"))


def _mean(runs: list[dict], step: str, field: str) -> float:
    return fmean(run["steps"][step][field] for run in runs)


def _ratio(runs: list[dict], step: str) -> str:
    return f"{_mean(runs, step, 'ratio'):.1f} / {_mean(runs, step, 'ratio_alone'):.1f}"


def _queries(runs: list[dict], step: str) -> str:
    return "/".join(sorted({str(run["steps"][step]["queries"]) for run in runs}))


def _loads(runs: list[dict]) -> str:
    loads = [run[field][0] for run in runs for field in ("load_start", "load_end")]
    starts = sorted(run["started"] for run in runs)
    return (
        f"{len(runs)} runs started between {starts[0]} and {starts[-1]}, load average "
        f"{min(loads):.1f}–{max(loads):.1f} at their starts and ends"
    )


def _sum(runs: list[dict]) -> float:
    return sum(_mean(runs, step, "cpu_ms") for step in ARRIVAL)


def arrival_section(result: dict, before: dict | None = None) -> tuple[str, list]:
    data = result["data"]
    if before and before["data"].get("session") != data.get("session"):
        before = None
    old = before["data"] if before else {}
    rows, said, every = [], [], []
    for key, label in DATABASES:
        runs, earlier = data.get(key) or [], old.get(key) or []
        every += runs + earlier
        for step in STEPS:
            row = [label, step]
            if earlier:
                row += [ms(_mean(earlier, step, "cpu_ms")), ms(_mean(runs, step, "cpu_ms"))]
                row += [_ratio(earlier, step), _ratio(runs, step)]
                row += [f"{_queries(earlier, step)} → {_queries(runs, step)}"]
            else:
                row += [ms(_mean(runs, step, "cpu_ms")), _ratio(runs, step), _queries(runs, step)]
            rows.append(row)
        if runs:
            total = f"{ms(_sum(runs))} ms"
            if earlier:
                total = f"{ms(_sum(earlier))} ms before, {total} after"
            said.append(f"on {label} the four steps cost {total} of CPU per student")
    commit = (data.get("commit") or "")[:10] + ("-dirty" if data.get("dirty") else "")
    if before:
        header = [
            "database",
            "step",
            "CPU ms before",
            "CPU ms after",
            "× floor before (interleaved / alone)",
            "× floor after (interleaved / alone)",
            "queries before → after",
        ]
        compared = (
            f'"Before" is the tree at {old["commit"][:10]} ("{old.get("subject", "")}"), '
            f'exported and measured with the same bench; "after" is the tree at {commit}. The '
            f"two were run alternately, current first, {data['runs_per_database']} runs each per "
            "database, in the same minutes; figures are the means of the runs'."
        )
    else:
        header = ["database", "step", "CPU ms", "× floor (interleaved / alone)", "queries"]
        compared = (
            f"Code {commit}. No before figures from the same session: `--arrival-before "
            "COMMIT` measures an older tree alternately with this one."
        )
    first = (data.get("sqlite") or data.get("postgresql"))[0]
    method = (
        "`python -m bench --only arrival` (`bench.arrival`). One process per run and database "
        "sends, round after round in a shuffled order, the floor (a logged-in view returning "
        "two bytes through the same middleware and session) and the four requests a student "
        "makes arriving at an exam, as the load test's students do: the login page, the log-in "
        "POST (the password checked with the site's Argon2id hasher), the exam's page and the "
        "Start POST (the attempt and its 8 variants drawn and stored); each step is another "
        "fresh student's (a first look, a first attempt). "
        f"{first['blocks']} blocks of {first['rounds']} rounds. CPU ms is the median CPU time "
        "per request (`time.process_time`, which the machine's other tenants do not add to); × "
        "floor is the median over the blocks of each step's median over the floor's, the floor "
        "timed interleaved with the steps and alone (8 requests in a row before each block). "
        f"{compared} Queries as the bench counts them (transaction statements included). The "
        f"machine was shared with other work ({_loads(every)})."
    )
    text = [TITLE, _machine(result), _fill(method), table(header, rows)]
    if said:
        text.append(
            _fill(
                f"Measured: {'; '.join(said)} (the log-in's share is the password hash, "
                'docs/deploy.md "Logins at the start of a class"). These are single-process '
                "CPU costs, not latency under load: the Locust section measures that."
            )
        )
    return "\n\n".join(text) + "\n", []


def _fill(paragraph: str) -> str:
    return textwrap.fill(paragraph, width=96, break_long_words=False, break_on_hyphens=False)

"""The report section of the `postcost` suite: an autosave and a Check against the floor.

`postcost.json` holds the current tree's runs; `postcost-before.json`, when present, an older
tree's (`--postcost-before COMMIT`). The before columns are shown only when both were measured
in the same session, alternately; otherwise the section says the before figures are missing.
"""

from __future__ import annotations

import textwrap
from statistics import fmean

from bench.report import _machine, ms, table

TITLE = "## Cost per answer post: autosave and Check against the floor, side by side"
KINDS = (("floor", "floor"), ("autosave", "exam autosave"), ("check", "homework Check (number)"))
DATABASES = (("sqlite", "SQLite"), ("postgresql", "PostgreSQL"))


def _mean(runs: list[dict], kind: str, field: str) -> float:
    return fmean(run["kinds"][kind][field] for run in runs)


def _ratios(runs: list[dict], kind: str) -> str:
    each = ", ".join(f"{run['kinds'][kind]['ratio']:.2f}" for run in runs)
    return f"{_mean(runs, kind, 'ratio'):.2f} ({each})"


def _queries(runs: list[dict], kind: str) -> str:
    return "/".join(sorted({str(run["kinds"][kind]["queries"]) for run in runs}))


def _change(after: float, before: float) -> str:
    return f"{(after - before) / before * 100:+.0f} %"


def _loads(runs: dict) -> str:
    every = [
        run for by_database in runs.values() for found in by_database.values() for run in found
    ]
    loads = [run[field][0] for run in every for field in ("load_start", "load_end")]
    starts = sorted(run["started"] for run in every)
    return (
        f"{len(every)} runs started between {starts[0]} and {starts[-1]}, load average "
        f"{min(loads):.1f}–{max(loads):.1f} at their starts and ends"
    )


def _paired(after: dict, before: dict | None) -> dict | None:
    if before and before["data"].get("session") == after["data"].get("session"):
        return before
    return None


def postcost_section(result: dict, before: dict | None = None) -> tuple[str, list[tuple[str, str]]]:
    data = result["data"]
    before = _paired(result, before)
    old = before["data"] if before else {}
    rows, findings = [], []
    for key, label in DATABASES:
        runs, earlier = data.get(key) or [], old.get(key) or []
        if not runs:
            continue
        for kind, name in KINDS:
            after_cpu, after_queries = _mean(runs, kind, "cpu_ms"), _queries(runs, kind)
            if earlier:
                before_cpu = _mean(earlier, kind, "cpu_ms")
                rows.append(
                    [
                        label,
                        name,
                        ms(before_cpu),
                        ms(after_cpu),
                        _ratios(earlier, kind),
                        _ratios(runs, kind),
                        f"{_queries(earlier, kind)} → {after_queries}",
                    ]
                )
                if kind != "floor":
                    findings.append(
                        f"{name} on {label} {_mean(runs, kind, 'ratio'):.2f}× the floor against "
                        f"{_mean(earlier, kind, 'ratio'):.2f}× before (CPU "
                        f"{_change(after_cpu, before_cpu)})"
                    )
            else:
                rows.append([label, name, ms(after_cpu), _ratios(runs, kind), after_queries])
                if kind != "floor":
                    findings.append(
                        f"{name} on {label} {_mean(runs, kind, 'ratio'):.2f}× the floor"
                    )
    if before:
        header = [
            "database",
            "request",
            "CPU ms before",
            "CPU ms after",
            "× floor before (runs)",
            "× floor after (runs)",
            "queries before → after",
        ]
        commit = old["commit"][:7]
        compared = (
            f'"Before" is the tree at {commit}'
            + (f' ("{old["subject"]}")' if old.get("subject") else "")
            + ', exported and measured with the same bench; "after" is the current tree. The two '
            f"were run alternately, current first, {data['runs_per_database']} runs each per "
            f"database, in the same minutes; CPU ms and × floor are the means of the runs' figures "
            f"(each run's ratio in brackets)."
        )
    else:
        header = ["database", "request", "CPU ms", "× floor (runs)", "queries"]
        compared = (
            "No before figures from the same session: `--postcost-before COMMIT` measures an "
            "older tree alternately with this one. CPU ms and × floor are the means of the runs."
        )
    method = (
        "`python -m bench --only postcost` (`bench.postcost`). One process per run and database "
        "sends, round after round in a shuffled order, the floor (a logged-in view returning "
        "two bytes through the same middleware and session), an htmx autosave of an exam part "
        "and an htmx Check of a homework part (a wrong number, taken back untimed, so every "
        "Check is a first try), each run with a fresh student; "
        f"{data['sqlite'][0]['blocks']} blocks of {data['sqlite'][0]['rounds']} rounds. CPU ms "
        "is the median CPU time per request (`time.process_time`, which the machine's other "
        "tenants do not add to); × floor is the median over the blocks of each post's median "
        f"over the floor's within the block. {compared} Queries as the bench counts them "
        "(transaction statements included). The machine was shared with other work "
        f"({_loads(_runs(data, old))}), which raises absolute times: read the ratios."
    )
    said = (
        f"Measured: {'; '.join(findings)}. These are single-process CPU costs of one request "
        "each, not latency under load (the load section measures that); what changed between "
        'the trees is in `docs/deploy.md`, "What an answer post costs".'
    )
    text = "\n\n".join([TITLE, _machine(result), _fill(method), table(header, rows), _fill(said)])
    return text + "\n", []


def _fill(paragraph: str) -> str:
    return textwrap.fill(paragraph, width=96, break_long_words=False, break_on_hyphens=False)


def _runs(data: dict, old: dict) -> dict:
    runs = {"current": {key: data.get(key, []) for key, _ in DATABASES}}
    if old:
        runs["before"] = {key: old.get(key, []) for key, _ in DATABASES}
    return runs

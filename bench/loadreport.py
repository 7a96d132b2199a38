"""The load section of docs/BENCHMARKS.md, from bench/results/load.json (the class harness)."""

from __future__ import annotations

from bench.report import _machine, ms, num, rate, table, verdict
from bench.scenarios import EXAM_MINUTE, EXAM_START, KINDS, PHASES

SUMMARY_HEADER = [
    "scenario",
    "database",
    "servers × workers",
    "students",
    "load average at start",
    "requests",
    "req/s",
    "vs 1 server",
    "errors",
    "timeouts",
    "scenario check",
    "database check",
]
KIND_HEADER = ["request kind", "n", "p50 ms", "p95 ms", "p99 ms", "errors", "timeouts"]


def _single(runs: list[dict], run: dict) -> dict | None:
    """The one-server run of the same scenario, database and worker count."""
    return next(
        (
            r
            for r in runs
            if r["servers"] == 1
            and (r["scenario"], r["database"], r["workers"])
            == (run["scenario"], run["database"], run["workers"])
        ),
        None,
    )


def _scenario_cell(check: dict) -> str:
    if check["ok"]:
        saved = ", ".join(f"{k} {n}" for k, n in sorted(check.get("autosaves_by_kind", {}).items()))
        answered = ", ".join(f"{k} {n}" for k, n in sorted(check["homework_acked"].items()))
        done = f"{check['students']} students did every step"
        return (
            f"**ok**: {done}"
            + (f"; saved {saved}" if saved else "")
            + (f"; answered {answered}" if answered else "")
        )
    return "**FAILED**: " + "; ".join(check["problems"][:3])


def _database_cell(v: dict) -> str:
    counted = (
        f"{v['exam_submitted']} exams, {v['exam_rows']} exam answers, "
        f"{v['homework_acked']} homework answers"
    )
    if v["ok"]:
        return f"{counted}: **each stored exactly once, nothing else stored**"
    return f"{counted}: **{v['problem_count']} problems**"


def summary_row(runs: list[dict], run: dict) -> list[str]:
    single = _single(runs, run)
    scaling = "–"
    if run["servers"] > 1 and single and single["throughput_per_s"]:
        scaling = f"{run['throughput_per_s'] / single['throughput_per_s']:.2f}×"
    load = run["load_average_start"]
    return [
        run["scenario"],
        run["database"],
        f"{run['servers']} × {run['workers']}"
        + (
            f" (requests {' / '.join(map(str, run['requests_per_server']))})"
            if run["servers"] > 1 and run.get("requests_per_server")
            else ""
        ),
        str(run["students"]),
        " / ".join(f"{x:.2f}" for x in load),
        num(run["requests"]),
        rate(run["throughput_per_s"]),
        scaling,
        str(run["errors"]),
        str(run["timeouts"]),
        _scenario_cell(run["exercised"]),
        _database_cell(run["verify"]),
    ]


def kind_rows(run: dict) -> list[list[str]]:
    rows = []
    for kind in KINDS:
        k = run["kinds"][kind]
        rows.append(
            [
                kind,
                str(k["n"]),
                ms(k["p50_ms"]),
                ms(k["p95_ms"]),
                ms(k["p99_ms"]),
                str(k["errors"]),
                str(k["timeouts"]),
            ]
        )
    return rows


CPU_KIND_HEADER = ["request kind", "requests", "CPU ms / request", "share of app CPU"]
CPU_KIND_HEADER += ["in the app, wall ms / request"]
PROCESS_HEADER = ["process", "CPU s", "cores used (of {cores})"]


def code_line(run: dict) -> str:
    code = run.get("code")
    if not code:
        return "code: not recorded (a run before the harness recorded it)"
    changed = " with uncommitted changes" if code["changed"] else ""
    return f"code `{code['commit']}`{changed}, measured {code['measured']}"


def window_table(run: dict) -> str:
    """The answer posts' latency by when they were sent: where in the run the slow ones are."""
    text = ""
    for kind, rows in (run.get("windows") or {}).items():
        cells = [
            [f"{r['from_s']:.0f}–{r['to_s']:.0f} s", num(r["n"]), ms(r["p50_ms"]), ms(r["p95_ms"])]
            for r in rows
        ]
        text += (
            f"\n{kind[:1].upper() + kind[1:]} latency by when it was sent (seconds from the "
            "run's start):\n\n" + table(["sent", "n", "p50 ms", "p95 ms"], cells) + "\n"
        )
    return text


def cpu_tables(run: dict) -> str:
    """Where the run's CPU went: per request kind inside the app, and per kind of process."""
    text = ""
    by_kind = run.get("server_cpu_by_kind")
    if by_kind:
        total = sum(k["cpu_s"] for k in by_kind.values()) or 1.0
        rows = [
            [kind, num(k["n"]), ms(k["cpu_ms"]), f"{k['cpu_s'] / total:.0%}", ms(k["wall_ms"])]
            for kind, k in sorted(by_kind.items(), key=lambda kv: -kv[1]["cpu_s"])
        ]
        text += "\nServer CPU by request kind (each request's own thread CPU in the app):\n\n"
        text += table(CPU_KIND_HEADER, rows) + "\n"
    processes = run.get("process_cpu")
    if processes and processes.get("cpu_s"):
        seconds = processes["seconds"] or 1.0
        header = [h.format(cores=processes["cores"]) for h in PROCESS_HEADER]
        rows = [
            [role, f"{cpu:.1f}", f"{cpu / seconds:.2f}"] for role, cpu in processes["cpu_s"].items()
        ]
        rows.append(
            [
                "**all**",
                f"{sum(processes['cpu_s'].values()):.1f}",
                f"**{sum(processes['cpu_s'].values()) / seconds:.2f}**",
            ]
        )
        text += (
            f"\nCPU by process over the {seconds:.0f} s the class ran:\n\n"
            + table(header, rows)
            + "\n"
        )
    return text


def gap(run: dict) -> str:
    """Why a run's latencies are what they are, from its own CPU figures: how much of the
    machine the class asked for, what the arriving students alone asked for, the autosave's
    share, and how its latency differs while the class arrives and after."""
    processes, by_kind = run.get("process_cpu") or {}, run.get("server_cpu_by_kind") or {}
    if not processes.get("cpu_s") or not by_kind:
        return ""
    seconds = processes["seconds"] or 1.0
    used = sum(processes["cpu_s"].values())
    app = sum(k["cpu_s"] for k in by_kind.values()) or 1.0
    save = by_kind.get("autosave") or by_kind.get("answer post")
    if not save:
        return ""
    name = "autosave" if "autosave" in by_kind else "answer post"
    text = (
        f"\n**Where the time goes ({run['scenario']}, {run['database']}, "
        f"{run['servers']} × {run['workers']}).** The class used {used:.0f} CPU-seconds in "
        f"{seconds:.0f} s: {used / seconds:.2f} of the machine's {processes['cores']} cores, "
        "the simulated class and the database included (a process that lived less than a "
        "second is missed, so this is a floor). Each "
        f"{name} costs {ms(save['cpu_ms'])} ms of the app's own CPU and there are "
        f"{num(save['n'])} of them: {save['cpu_s'] / app:.0%} of the app's CPU."
    )
    arriving = sum(by_kind[k]["cpu_s"] for k in ("login", "page", "start") if k in by_kind)
    window, students = run.get("window_s"), run.get("students")
    if window and students and arriving:
        text += (
            f" Each arriving student costs {arriving / students * 1000:.0f} ms of the app's "
            "CPU (the login page and the login, the quiz and question pages, the start): "
            f"{students} of them arriving over {window:.0f} s ask for "
            f"{arriving / window:.2f} cores on their own, before any {name}."
        )
    phases = (run.get("phases") or {}).get(name) or {}
    if phases:
        told = "; ".join(
            f"{phase}, p95 {ms(p['p95_ms'])} ms (p50 {ms(p['p50_ms'])}, {num(p['n'])} sent)"
            for phase, p in sorted(phases.items(), key=lambda item: PHASES.index(item[0]))
        )
        text += f" The {name}s by when they were sent: {told}."
    slow = (run.get("kinds", {}).get(name) or {}).get("p95_ms")
    if slow is None:  # no such requests measured: nothing to say of the target
        return text + "\n"
    if slow < 500:
        return text + (
            f" The {name}s' p95 is under 500 ms: the class left the machine room enough that a "
            "request waits little beyond its own work.\n"
        )
    return text + (
        " With the cores this busy, a request's latency is mostly its wait for a free thread "
        "and a core, not its own work (compare the app's wall time per request above with "
        "the client's). The p95 target needs the class to ask for clearly less CPU than the "
        "machine has: cheaper requests, or fewer of them per student, or more cores.\n"
    )


def method(scenarios: list[dict]) -> str:
    """What the harness does and checks (also shown before its first run)."""
    listed = "\n".join(f"- **{s['name']}**: {s['description']}." for s in scenarios)
    return f"""The site is served the production way (`gunicorn config.wsgi`, wrapped by
`bench.cpuwsgi` to count each request's CPU, `DJANGO_DEBUG=0`, loopback only) on SQLite and
on PostgreSQL; on PostgreSQL once more with two gunicorn instances on different ports sharing
the database and one Redis cache (`REDIS_URL`), each student's requests alternating between
the two servers. Every run has its own fresh
accounts (a new prefix; the run refuses accounts that already have an attempt) and its own
quiz. Each student is a thread with its own connection, cookies and CSRF token; runs are
bounded and stop by themselves.

{listed}

A run passes only if **every student did every step** (counted from the site's
acknowledgements: logged in, started, each part saved or answered, submitted; at least one
numeric and one formula answer) **and** the database check holds: every acknowledged answer
is stored exactly once with the text sent, nothing else is stored, every submitted attempt's
score equals the one recomputed from its rows. A run that exercised nothing fails.
Latencies are per request kind; "timeouts" are requests the client gave up on (30 s).

Where the time goes, per run: each request's own thread CPU inside the app by kind
(`bench.cpuwsgi`: thread time, so neither the GIL's queue nor the database's reply counts), and
every process's CPU, read from `/proc` each second while the class runs (`bench.cpusample`:
the servers, the grading pool, PostgreSQL, Redis and the simulated class itself, which shares
the machine). "Cores used" near the machine's count means the class asked for more CPU than
there is, and the latencies are queueing. Each run records the commit it measured.
"""


def serving(runs: list[dict]) -> str:
    """How the measured servers ran, from the runs themselves."""
    args = sorted({r.get("gunicorn", "") for r in runs} - {""})
    how = f" with `{'`, `'.join(args)}`" if args else ""
    workers = sorted({r["workers"] for r in runs})
    return (
        f"Each server: `gunicorn config.wsgi -w {'/'.join(map(str, workers))}`{how}; passwords "
        "are Argon2id (`config/hashers.py`), as in production."
    )


def before_section(before: dict | None) -> str:
    """The same exam minute measured on the code before issue 20's fixes, for comparison."""
    if not before:
        return ""
    rows = []
    for run in before["data"]["runs"]:
        k = run["kinds"]
        rows.append(
            [
                str(run["students"]),
                " / ".join(f"{x:.2f}" for x in run["load_average_start"]),
                rate(run["throughput_per_s"]),
                f"{ms(k['login']['p50_ms'])} / {ms(k['login']['p95_ms'])}",
                f"{ms(k['autosave']['p50_ms'])} / {ms(k['autosave']['p95_ms'])}",
                str(run["errors"]),
                str(run["timeouts"]),
                f"{run['exercised']['exam_started']} started, "
                f"{run['exercised']['exam_submitted']} submitted",
            ]
        )
    header = ["students", "load average at start", "req/s", "login p50 / p95 ms"]
    header += ["autosave p50 / p95 ms", "errors", "timeouts", "exams"]
    return (
        f"\n**Before the fixes** (exam minute, PostgreSQL, 1 server × 2 workers; code "
        f"{before['data']['code']}; {_machine(before)[1:-2]}):\n\n" + table(header, rows) + "\n"
    )


def load_section(result: dict, before: dict | None = None) -> tuple[str, list[tuple[str, str]]]:
    data = result["data"]
    runs = data["runs"]
    detail = ""
    for run in runs:
        detail += (
            f"\n**{run['scenario']}, {run['database']}, {run['servers']} server(s) × "
            f"{run['workers']} workers**, {run['students']} students; {code_line(run)}:\n\n"
            + table(KIND_HEADER, kind_rows(run))
            + "\n"
            + window_table(run)
            + cpu_tables(run)
        )
        if run["scenario"] in (EXAM_MINUTE, EXAM_START):
            detail += gap(run)
        if run["error_samples"]:
            detail += "\nErrors: " + "; ".join(f"`{e}`" for e in run["error_samples"][:5]) + "\n"
        if run.get("server_log_errors"):
            detail += "\nServer log: " + "; ".join(f"`{e}`" for e in run["server_log_errors"][:5])
            detail += "\n"
    skipped = "".join(f"\n- {s}" for s in data.get("skipped", []))
    text = f"""## Load: a class at once (exam minute, homework evening)

{_machine(result)}

{method(data["scenarios"])}
{serving(runs)}

{table(SUMMARY_HEADER, [summary_row(runs, r) for r in runs])}
{skipped}
{before_section(before)}
{detail}
The old harness's figures (before issue 20) are not shown: its check could pass while
exercising nothing; its raw results stay in `bench/results/load-old-harness.json`.
"""
    targets = [
        (
            "load: every run did what its scenario says and stored every acknowledged answer once",
            verdict(all(r["ok"] for r in runs), f"{sum(not r['ok'] for r in runs)} runs failed"),
        )
    ]
    for run in runs:
        if run["scenario"] not in (EXAM_MINUTE, EXAM_START) or run["database"] != "PostgreSQL":
            continue
        v = run["verify"]
        targets.append(
            (
                f"{run['scenario']} deadline burst, PostgreSQL, {run['servers']} server(s): "
                "every student submitted, no acknowledged answer lost",
                verdict(v["ok"] and v["exam_submitted"] == run["students"])
                + f" ({v['exam_submitted']} of {run['students']} submitted, "
                + (
                    f"{v['exam_rows']} answers graded once each)"
                    if v["ok"]
                    else f"{v['problem_count']} database problems)"
                ),
            )
        )
    for scenario, told in ((EXAM_MINUTE, ""), (EXAM_START, ", at a student's pace")):
        exam = next(
            (
                r
                for r in runs
                if r["scenario"] == scenario
                and r["database"] == "PostgreSQL"
                and r["servers"] == 1
                and r["workers"] == 2
            ),
            None,
        )
        if not exam:
            continue
        worst = max(exam["kinds"][k]["p95_ms"] or 0 for k in ("answer post", "autosave"))
        met = worst < 500 and exam["errors"] == 0 and exam["timeouts"] == 0
        targets.append(
            (
                f"{scenario}{told}, PostgreSQL, 2 workers: p95 under 500 ms for answer posts "
                "and autosaves, 0 errors, 0 timeouts",
                verdict(met) + f" (p95 {ms(worst)} ms, {exam['errors']} errors, "
                f"{exam['timeouts']} timeouts, {exam['students']} students)",
            )
        )
    return text, targets


def deploy_table(result: dict) -> str:
    """The throughput block of docs/deploy.md: one row per run of the class harness."""
    runs = result["data"]["runs"]
    header = ["scenario", "database", "servers × workers", "requests/s", "vs 1 server"]
    header += ["autosave p95 ms", "answer p95 ms", "errors", "timeouts", "checks"]
    rows = []
    for run in runs:
        row = summary_row(runs, run)
        rows.append(
            row[:3]
            + row[6:8]
            + [ms(run["kinds"]["autosave"]["p95_ms"]), ms(run["kinds"]["answer post"]["p95_ms"])]
            + row[8:10]
            + ["passed" if run["ok"] else "**FAILED**"]
        )
    m = result["machine"]
    return (
        f"{table(header, rows)}\n\n_{result['data']['students']} students per run, measured "
        f"{m['date']}, {m['nproc']} cores, load average {m['load_average'][0]} at the start._\n"
    )

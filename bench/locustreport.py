"""The Locust section of docs/BENCHMARKS.md, from bench/results/loadtest.json (`make loadtest
... LOADTEST_ARGS=--record`, bench/loadtest.py): one exam class per size, the latest run."""

from __future__ import annotations

from bench.loadtest import STEPS
from bench.report import ms, num, table, verdict

# The steps a student takes to arrive, in order (bench/loadtest.py's STEPS up to the first
# view of the attempt): their CPU, added up, is what one arrival costs the server.
ARRIVAL = ("login page", "log in", "quiz page", "start attempt", "question page")
STEP_HEADER = ["step", "requests", "failures", "p50 ms", "p95 ms", "p99 ms", "max ms"]
STEP_HEADER += ["server CPU ms / request"]
LATENCY_TARGET_MS = 500.0

METHOD = """`make loadtest STUDENTS=N LOADTEST_ARGS="--arrive A --exam E --submit S --record"`
(`bench/loadtest.py`, `bench/locustfile.py`). A throwaway PostgreSQL prepared as the bench
prepares it, fresh accounts and a fresh 8-question exam for the run; one gunicorn as
`docs/deploy.md` says (2 gthread workers × 4 threads, keep-alive 10 s) serving the site wrapped
in `bench.cpuwsgi` (each request's CPU, by view), and the task worker that grades the
submissions. Locust, headless, on the same 2 cores, is one user per student: the login page,
the login, the exam's page, Start, the attempt's first view, then, part after part in an order
of its own, a pause drawn from the think time and an autosave of its answer (a mix of right,
wrong and unreadable), until the common submission window, where it submits at a moment drawn
in the window and opens the results page it is sent to. The users are spawned evenly over the
arrival window; the run ends when the last student has seen its results.

The correct answers each student needs for a realistic mix come from one watcher process with
one database connection (niced below the site), never from the load generator: the first
1,000-student run (2026-12-06 23:40 UTC, commit e9fc3cf) looked them up from each Locust user,
opened a connection per user, met PostgreSQL's limit ("too many clients", 610 times), restarted
the failed users and stopped after 210 s, before any submission. The run fails unless every
step was sent, Locust counted no failure, every student logged in, started, had a save
acknowledged, got its answers, submitted, saw its results and finished before Locust's cap, no
student ended on an error of the harness, and the database check after the run (every
acknowledged save is what was stored and graded once, every score recomputes) passes. CPU is
read from /proc for every process of the run (Locust's own count leaves its start-up out), and
per request inside the site's workers."""


def _steps(run: dict) -> list[list[str]]:
    cpu = run.get("server_cpu_by_step", {})
    rows = []
    for step in (*STEPS, "Aggregated"):
        f = run["steps"].get(step)
        if f is None:
            continue
        server = cpu.get(step, {}).get("cpu_ms")
        rows.append(
            [
                step,
                num(f["n"]),
                str(f["failures"]),
                ms(f["p50_ms"]),
                ms(f["p95_ms"]),
                ms(f["p99_ms"]),
                ms(f["max_ms"]),
                ms(server) if server is not None else "–",
            ]
        )
    return rows


def _processes(run: dict) -> str:
    cpu = run["cpu_by_process"]
    requests = run["steps"].get("Aggregated", {}).get("n", 0)
    rows = [
        [
            role,
            f"{seconds:.1f}",
            f"{seconds / cpu['seconds']:.2f}" if cpu["seconds"] else "–",
            f"{seconds / requests * 1000:.2f}" if requests else "–",
        ]
        for role, seconds in sorted(cpu["cpu_s"].items(), key=lambda kv: -kv[1])
    ]
    header = ["process", "CPU s", f"cores (of {cpu['cores']})", "CPU ms per request sent"]
    own = run.get("locust_cpu_s")
    note = ""
    if own is not None and requests:
        note = (
            f"\nLocust's own count while its users ran: {own:.1f} s of CPU, "
            f"**{own / requests * 1000:.2f} ms per request** it sent and timed.\n"
        )
    return f"CPU by process over {cpu['seconds']:.0f} s:\n\n{table(header, rows)}\n{note}"


def arrival_arithmetic(run: dict) -> str:
    cpu = run.get("server_cpu_by_step", {})
    if not all(step in cpu for step in ARRIVAL):
        return ""
    each = sum(cpu[step]["cpu_ms"] for step in ARRIVAL)
    window = run["windows_s"]["arrive"]
    cores = each / 1000 * run["students"] / window
    parts = " + ".join(f"{step} {cpu[step]['cpu_ms']:.1f}" for step in ARRIVAL)
    return (
        f"\nOne arrival costs the site's workers **{each:.0f} ms of CPU** ({parts}); "
        f"{num(run['students'])} arrivals in {window:.0f} s need **{cores:.2f} cores** for the "
        "arrivals alone, before the saves of those already in, PostgreSQL, the task worker and "
        "the load generator.\n"
    )


def _worst(run: dict) -> tuple[str, float]:
    steps = {k: v for k, v in run["steps"].items() if k != "Aggregated"}
    if not steps:
        return "none", 0.0
    step = max(steps, key=lambda k: steps[k]["p95_ms"])
    return step, steps[step]["p95_ms"]


def _run_text(run: dict) -> str:
    m = run["machine"]
    code = run["code"]
    changed = " with uncommitted changes" if code["changed"] else ""
    w = run["windows_s"]
    start = " / ".join(f"{x:.2f}" for x in run["load_average_at_start"])
    end = " / ".join(f"{x:.2f}" for x in run["load_average"])
    verdict_line = (
        "**every check passed**"
        if run["ok"]
        else "**FAILED**: " + "; ".join(p.splitlines()[0] for p in run["problems"][:4])
    )
    v = run.get("verify") or {}
    database = (
        f"{v.get('exam_submitted', 0)} submissions, {v.get('exam_parts_checked', 0)} saved "
        f"parts checked, graded within {v.get('grading_drained_s', 0)} s of the run's end, "
        f"{v.get('problem_count', 0)} problems"
    )
    return f"""
### {num(run["students"])} students

Code `{code["commit"]}`{changed}, measured {code["measured"]} on {m["cpu"]}, {m["nproc"]} cores;
load average {start} at the start and {end} at the end (1, 5, 15 minutes; other work shares
the machine). {run["servers"]} server × {run["workers"]} workers; arrival over {w["arrive"]:.0f} s,
exam {w["exam"]:.0f} s, submission window {w["submit"]:.0f} s, think time {run["think_s"]} s per
part; the run took {run["wall_s"]:.0f} s with its preparation. Checks: {verdict_line}. Database:
{database}.

{table(STEP_HEADER, _steps(run))}
{arrival_arithmetic(run)}
{_processes(run)}"""


def locust_section(result: dict) -> tuple[str, list[tuple[str, str]]]:
    runs = sorted(result["runs"].values(), key=lambda r: r["students"])
    text = "## Load on Locust: an exam class on two cores (issue 34)\n\n" + METHOD + "\n"
    targets = []
    for run in runs:
        text += _run_text(run)
        step, p95 = _worst(run)
        met = run["ok"] and p95 < LATENCY_TARGET_MS
        targets.append(
            (
                f"exam class of {num(run['students'])} on Locust (PostgreSQL, "
                f"{run['servers']} × {run['workers']} workers): every request kind p95 under "
                "500 ms, 0 errors, every check",
                verdict(
                    met,
                    f"worst p95 {ms(p95)} ms ({step})"
                    + ("" if run["ok"] else f", {len(run['problems'])} checks failed"),
                )
                + (f" (worst p95 {ms(p95)} ms, {step})" if met else ""),
            )
        )
    return text, targets

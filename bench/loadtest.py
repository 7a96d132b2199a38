"""`make loadtest`: an exam class on Locust against the site served as docs/deploy.md says, and
the checks that make its figures mean something.

A throwaway PostgreSQL (or `--database-url`), prepared as the bench prepares it (book, bank,
demo course), fresh accounts and a fresh exam for this run; gunicorn (`--servers` of them, a
throwaway Redis shared between two) and the task worker; then Locust, headless, one user per
student (`bench/locustfile.py`): log in, open the exam, start it, answer its parts at a
student's pace, submit in the common window, open the results. Locust writes its CSV files and
HTML report to `--out` (bench/results/locust/ by default). The site is served wrapped in
`bench.cpuwsgi` (each request's CPU by view) and every process's CPU is sampled from /proc, so
the run states what each step costs the server and what the load generator itself takes of the
same cores. `--record` keeps the figures in bench/results/loadtest.json and rewrites
docs/BENCHMARKS.md from them.

The run fails (exit status 1) unless every check passes:
- every kind of request of the scenario was sent (a step that silently never ran fails it),
  and Locust counted no failure;
- every student logged in, started, had at least one save acknowledged, submitted and saw the
  results page, and finished before Locust's cap (the run ends when the last student is done;
  the cap, GRACE_S past the nominal windows, only stops a run that hangs);
- no student ended on an error of the harness itself, and every one got its attempt's correct
  answers from the answer watcher (`bench.loadprep.watch_answers`: one process with one
  database connection; the Locust process opens none);
- the database check (`bench.loadprep.verify`): every acknowledged save is what was stored and
  graded once at the submission, nothing else was stored, every score recomputes.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import pg
from bench.cpusample import DUMP_EVERY_S, Sampler, worker_totals
from bench.database_suites import ROOT, Site, django
from bench.loadsuite import GUNICORN_ARGS, code_version, redis_server

STEPS = (
    "login page",
    "log in",
    "quiz page",
    "start attempt",
    "question page",
    "autosave",
    "submit exam",
    "results page",
)


def stats_rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "locust_stats.csv", newline="") as f:
        return {row["Name"]: row for row in csv.DictReader(f)}


def checks(out: Path, run: dict, verify: dict, students: int) -> list[str]:
    """Every reason the run does not count; empty when it does."""
    problems = []
    rows = stats_rows(out)
    for step in STEPS:
        sent = int(rows.get(step, {}).get("Request Count") or 0)
        if not sent:
            problems.append(f"no '{step}' request was sent: the scenario did not run that step")
    failures = int(rows.get("Aggregated", {}).get("Failure Count") or 0)
    if failures:
        problems.append(f"Locust counted {failures} failed requests (see locust_failures.csv)")
    progress = run.get("progress", {})
    if len(progress) != students:
        problems.append(f"{len(progress)} of {students} students ran at all")
    finished = run.get("finished", 0)
    if finished != students:
        problems.append(f"{finished} of {students} students finished before Locust stopped")
    for step in ("logged_in", "exam_started", "exam_submitted", "results_seen"):
        short = [name for name, p in progress.items() if not p.get(step)]
        if short:
            problems.append(f"{len(short)} students never got '{step}' (e.g. {short[0]})")
    unsaved = [name for name, p in progress.items() if not p.get("autosaves_acked")]
    if unsaved:
        problems.append(f"{len(unsaved)} students had no save acknowledged")
    blind = [name for name, p in progress.items() if p.get("answers_missing")]
    if blind:
        problems.append(
            f"{len(blind)} students never got their attempt's answers from the answer watcher"
        )
    errors = run.get("harness_errors", [])
    if errors:
        problems.append(f"{len(errors)} students ended on an error of the harness: {errors[0]}")
    if not verify.get("ok"):
        problems += [f"database: {p}" for p in verify.get("problems", ["the check failed"])]
    if verify.get("exam_submitted", 0) != students:
        problems.append(f"database check saw {verify.get('exam_submitted')} submissions")
    return problems


def summary_table(out: Path) -> str:
    rows = stats_rows(out)
    lines = [f"{'request':<16} {'count':>7} {'fail':>5} {'p50':>7} {'p95':>7} {'p99':>7} ms"]
    for step in (*STEPS, "Aggregated"):
        row = rows.get(step)
        if row:
            lines.append(
                f"{step:<16} {row['Request Count']:>7} {row['Failure Count']:>5} "
                f"{row['50%']:>7} {row['95%']:>7} {row['99%']:>7}"
            )
    return "\n".join(lines)


@contextlib.contextmanager
def database(url: str | None, port: int | None = None):
    if url:
        yield url
        return
    with pg.cluster(port) as cluster:
        yield cluster.create_database("loadtest")


# Locust's cap on the run, past the nominal windows: the run ends when the last student has
# seen its results (bench/locustfile.py), and only a run that hangs meets the cap.
GRACE_S = 900
# The site's views by the scenario's step names (bench.cpuwsgi keys a request by its view).
STEP_VIEWS = {
    "login page": "GET login",
    "log in": "POST login",
    "quiz page": "GET quizzes:quiz_detail",
    "start attempt": "POST quizzes:start_attempt",
    "question page": "GET quizzes:attempt_detail",
    "autosave": "POST quizzes:autosave",
    "submit exam": "POST quizzes:submit_attempt",
    "results page": "GET quizzes:attempt_results",
}


def server_cpu_by_step(views: dict) -> dict:
    """The workers' CPU per request of each step of the scenario, from `bench.cpuwsgi`'s
    totals by view (any other view the students reached is kept under its own name)."""
    by_view = {view: step for step, view in STEP_VIEWS.items()}
    return {by_view.get(view, view): figures for view, figures in views.items()}


def locust_command(args, hosts: list[str], out: Path, arrival: float) -> list[str]:
    run_time = int(arrival + args.exam + args.submit + GRACE_S)
    return [
        str(Path(sys.executable).with_name("locust")),
        "-f",
        "bench/locustfile.py",
        "--headless",
        "--host",
        hosts[0],
        "--users",
        str(args.students),
        "--spawn-rate",
        f"{args.students / arrival:.3f}",
        "--run-time",
        f"{run_time}s",
        "--stop-timeout",
        "40",
        "--csv",
        str(out / "locust"),
        "--html",
        str(out / "locust_report.html"),
        "--only-summary",
        "--loglevel",
        "WARNING",
    ]


def run(args) -> int:
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("locust_*"):
        old.unlink()
    answers = out / "answers"
    shutil.rmtree(answers, ignore_errors=True)
    answers.mkdir()
    cpu_dir = Path(tempfile.mkdtemp(prefix="loadtest-cpu."))
    run_id = uuid.uuid4().hex[:8]
    prefix, slug = f"lt-{run_id}-", f"loadtest-exam-{run_id}"
    load_at_start = os.getloadavg()
    # The code the servers import now, not whatever the checkout holds when the run ends.
    code = code_version()
    started = time.monotonic()
    with database(args.database_url, args.pg_port) as url:
        if not args.prepared:
            print(f"loadtest: preparing the database ({url.rsplit('@', 1)[-1]})")
            django("prepare", url)
        accounts = django("accounts", url, "--students", str(args.students), "--prefix", prefix)
        made = django("quiz", url, "--slug", slug, "--mode", "exam")
        names = [n for n in accounts["usernames"] if not n.endswith("9999")][: args.students]
        accounts_file, run_file = out / "accounts.json", out / "run.json"
        accounts_file.write_text(
            json.dumps(
                {
                    "usernames": names,
                    "password": accounts["password"],
                    "slug": slug,
                    "quiz_url": made["url"],
                }
            )
        )
        with contextlib.ExitStack() as stack:
            env = {
                "GUNICORN_CMD_ARGS": GUNICORN_ARGS,
                "DJANGO_CONN_MAX_AGE": "60",
                "BENCH_CPU_DIR": str(cpu_dir),
            }
            if args.servers > 1:
                env["REDIS_URL"] = stack.enter_context(redis_server())
            # The site's own application, wrapped to count each request's CPU (bench.cpuwsgi).
            sites = [
                Site(url, args.workers, env=env, app="bench.cpuwsgi:application")
                for _ in range(args.servers)
            ]
            for site in sites:
                stack.callback(site.stop)
            worker = background(["manage.py", "worker"], url)
            stack.callback(worker.wait, 20)
            stack.callback(worker.terminate)
            # The students' correct answers: one process, one connection, niced below the site.
            watcher_out = out / "answerwatch.json"
            watcher = background(
                ["-m", "bench.djangoside", "answerwatch", "--slug", slug, "--run", str(answers)]
                + ["--out", str(watcher_out)],
                url,
                nice=WATCHER_NICE,
            )
            stack.callback(watcher.wait, 60)
            stack.callback((answers / "stop").touch)
            hosts = [f"http://127.0.0.1:{site.port}" for site in sites]
            arrival = max(1.0, args.arrive)
            print(
                f"loadtest: {args.students} students on {len(sites)} server(s), arriving over "
                f"{arrival:.0f} s, submitting {args.exam:.0f}-{args.exam + args.submit:.0f} s "
                "after the last arrival; Locust headless"
            )
            environment = {
                **os.environ,
                "DATABASE_URL": url,
                "LOADTEST_ACCOUNTS": str(accounts_file),
                "LOADTEST_ANSWERS": str(answers),
                "LOADTEST_RUN": str(run_file),
                "LOADTEST_ARRIVE_S": str(arrival),
                "LOADTEST_EXAM_S": str(args.exam),
                "LOADTEST_SUBMIT_S": str(args.submit),
                "LOADTEST_THINK_S": args.think,
                "LOADTEST_HOSTS": ",".join(hosts),
            }
            locust = subprocess.Popen(
                locust_command(args, hosts, out, arrival), cwd=ROOT, env=environment
            )
            sampler = Sampler(
                servers=[site.process.pid for site in sites],
                named={
                    locust.pid: "Locust",
                    worker.pid: "task worker",
                    watcher.pid: "answer watcher",
                },
            )
            sampler.start()
            locust.wait()
            cpu = sampler.stop()
            time.sleep(2 * DUMP_EVERY_S)  # the workers' last counts reach their files
        run_data = json.loads(run_file.read_text()) if run_file.exists() else {}
        verify_in = out / "verify-input.json"
        verify_in.write_text(json.dumps(run_data.get("verify", {})))
        verify = django("verify", url, "--run", str(verify_in)) if run_data else {}
    server_cpu = server_cpu_by_step(worker_totals(cpu_dir, "views-*.json"))
    shutil.rmtree(cpu_dir, ignore_errors=True)
    shutil.rmtree(answers, ignore_errors=True)
    problems = checks(out, run_data, verify, args.students)
    report = {
        "code": code,
        "students": args.students,
        "servers": args.servers,
        "workers": args.workers,
        "windows_s": {"arrive": args.arrive, "exam": args.exam, "submit": args.submit},
        "think_s": args.think,
        "load_average": os.getloadavg(),
        "load_average_at_start": load_at_start,
        "wall_s": time.monotonic() - started,
        "verify": verify,
        "steps": step_figures(out),
        "cpu_by_process": cpu,
        # Locust's own count, from its first user to its last (its start-up left out).
        "locust_cpu_s": run_data.get("locust_cpu_s"),
        "server_cpu_by_step": server_cpu,
        "problems": problems,
        "ok": not problems,
    }
    (out / "checks.json").write_text(json.dumps(report, indent=2))
    print(summary_table(out))
    print(cpu_table(report))
    print(f"loadtest: report {out / 'locust_report.html'}, CSV {out}/locust_*.csv")
    for problem in problems:
        print(f"loadtest: FAILED: {problem}")
    print(f"loadtest: {'ok' if not problems else 'FAILED'}: every check in {out / 'checks.json'}")
    if args.record:
        record(report)
    return 0 if not problems else 1


# The answer watcher yields the cores to the site and the load generator.
WATCHER_NICE = 5


def background(command: list[str], url: str, nice: int = 0) -> subprocess.Popen:
    """A Django-side process of the run (the task worker, the answer watcher), quiet."""
    return subprocess.Popen(
        [sys.executable, *command],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: os.nice(nice)) if nice else None,
    )


def step_figures(out: Path) -> dict:
    """Locust's figures per step (and "Aggregated"): count, failures, percentiles in ms."""
    rows = stats_rows(out) if (out / "locust_stats.csv").exists() else {}
    figures = {}
    for step in (*STEPS, "Aggregated"):
        row = rows.get(step)
        if row:
            figures[step] = {
                "n": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                **{f"p{q}_ms": float(row[f"{q}%"] or 0) for q in (50, 95, 99)},
                "max_ms": float(row.get("Max Response Time") or 0),
                "per_s": float(row.get("Requests/s") or 0),
            }
    return figures


def cpu_table(report: dict) -> str:
    """CPU by process and by request kind, and the load generator's share per request."""
    cpu = report["cpu_by_process"]
    requests = report["steps"].get("Aggregated", {}).get("n", 0)
    lines = [f"CPU over {cpu['seconds']:.0f} s on {cpu['cores']} cores:"]
    for role, seconds in cpu["cpu_s"].items():
        per = f", {seconds / requests * 1000:.2f} ms per request" if requests else ""
        lines.append(f"  {role:<16} {seconds:8.1f} s ({seconds / cpu['seconds']:.2f} cores{per})")
    if report.get("locust_cpu_s") is not None and requests:
        own = report["locust_cpu_s"]
        lines.append(
            f"  Locust while the students ran: {own:.1f} s, {own / requests * 1000:.2f} ms "
            "per request"
        )
    lines.append("server CPU per request (ms), by step:")
    for step, figures in report["server_cpu_by_step"].items():
        lines.append(f"  {step:<32} n {figures['n']:>6}  cpu {figures['cpu_ms']:7.2f}")
    return "\n".join(lines)


def record(report: dict) -> None:
    """Keep the run in bench/results/loadtest.json (one per class size, the latest) and
    rewrite docs/BENCHMARKS.md from the results (`bench.report`)."""
    from bench import machine
    from bench import report as writer

    path = writer.RESULTS / "loadtest.json"
    kept = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    kept["runs"][str(report["students"])] = {**report, "machine": machine.describe()}
    path.write_text(json.dumps(kept, indent=1, sort_keys=True, default=str) + "\n")
    writer.write()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadtest", description=__doc__)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--arrive", type=float, default=20.0, help="arrival window (s)")
    parser.add_argument("--exam", type=float, default=40.0, help="exam time after arrival (s)")
    parser.add_argument("--submit", type=float, default=15.0, help="submission window (s)")
    parser.add_argument(
        "--think",
        default="20,60",
        help="pause before each part, 'a,b' (s); a student's pace, as the load review's",
    )
    parser.add_argument("--servers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server")
    parser.add_argument("--database-url", default=None, help="default: a throwaway PostgreSQL")
    parser.add_argument(
        "--prepared", action="store_true", help="--database-url was prepared by an earlier run"
    )
    parser.add_argument(
        "--pg-port", type=int, default=None, help="the throwaway PostgreSQL port (default: free)"
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="keep the figures in bench/results/loadtest.json and rewrite docs/BENCHMARKS.md",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "locust"))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

"""`make loadtest`: an exam class on Locust against the site served as docs/deploy.md says, and
the checks that make its figures mean something.

A throwaway PostgreSQL (or `--database-url`), prepared as the bench prepares it (book, bank,
demo course), fresh accounts and a fresh exam for this run; gunicorn (`--servers` of them, a
throwaway Redis shared between two) and the task worker; then Locust, headless, one user per
student (`bench/locustfile.py`): log in, open the exam, start it, answer its parts at a
student's pace, submit in the common window, open the results. Locust writes its CSV files and
HTML report to `--out` (bench/results/locust/ by default).

The run fails (exit status 1) unless every check passes:
- every kind of request of the scenario was sent (a step that silently never ran fails it),
  and Locust counted no failure;
- every student logged in, started, had at least one save acknowledged, submitted and saw the
  results page;
- the database check (`bench.loadprep.verify`): every acknowledged save is what was stored and
  graded once at the submission, nothing else was stored, every score recomputes.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from bench import pg
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
    for step in ("logged_in", "exam_started", "exam_submitted", "results_seen"):
        short = [name for name, p in progress.items() if not p.get(step)]
        if short:
            problems.append(f"{len(short)} students never got '{step}' (e.g. {short[0]})")
    unsaved = [name for name, p in progress.items() if not p.get("autosaves_acked")]
    if unsaved:
        problems.append(f"{len(unsaved)} students had no save acknowledged")
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
def database(url: str | None):
    if url:
        yield url
        return
    with pg.cluster() as cluster:
        yield cluster.create_database("loadtest")


def run(args) -> int:
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("locust_*"):
        old.unlink()
    run_id = uuid.uuid4().hex[:8]
    prefix, slug = f"lt-{run_id}-", f"loadtest-exam-{run_id}"
    with database(args.database_url) as url:
        if not args.prepared:
            print(f"loadtest: preparing the database ({url.rsplit('@', 1)[-1]})")
            django("prepare", url)
        accounts = django("accounts", url, "--students", str(args.students), "--prefix", prefix)
        django("quiz", url, "--slug", slug, "--mode", "exam")
        names = [n for n in accounts["usernames"] if not n.endswith("9999")][: args.students]
        accounts_file, run_file = out / "accounts.json", out / "run.json"
        accounts_file.write_text(
            json.dumps({"usernames": names, "password": accounts["password"], "slug": slug})
        )
        with contextlib.ExitStack() as stack:
            env = {"GUNICORN_CMD_ARGS": GUNICORN_ARGS, "DJANGO_CONN_MAX_AGE": "60"}
            if args.servers > 1:
                env["REDIS_URL"] = stack.enter_context(redis_server())
            sites = [Site(url, args.workers, env=env) for _ in range(args.servers)]
            for site in sites:
                stack.callback(site.stop)
            worker = subprocess.Popen(
                [sys.executable, "manage.py", "worker"],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": url},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            stack.callback(worker.wait, 20)
            stack.callback(worker.terminate)
            hosts = [f"http://127.0.0.1:{site.port}" for site in sites]
            arrival = max(1.0, args.arrive)
            run_time = int(arrival + args.exam + args.submit + 60)
            print(
                f"loadtest: {args.students} students on {len(sites)} server(s), arriving over "
                f"{arrival:.0f} s, submitting {args.exam:.0f}-{args.exam + args.submit:.0f} s "
                "after the last arrival; Locust headless"
            )
            locust = [
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
            environment = {
                **os.environ,
                "DATABASE_URL": url,
                "LOADTEST_ACCOUNTS": str(accounts_file),
                "LOADTEST_RUN": str(run_file),
                "LOADTEST_ARRIVE_S": str(arrival),
                "LOADTEST_EXAM_S": str(args.exam),
                "LOADTEST_SUBMIT_S": str(args.submit),
                "LOADTEST_THINK_S": args.think,
                "LOADTEST_HOSTS": ",".join(hosts),
            }
            subprocess.run(locust, cwd=ROOT, env=environment, check=False)
        run_data = json.loads(run_file.read_text()) if run_file.exists() else {}
        verify_in = out / "verify-input.json"
        verify_in.write_text(json.dumps(run_data.get("verify", {})))
        verify = django("verify", url, "--run", str(verify_in)) if run_data else {}
    problems = checks(out, run_data, verify, args.students)
    report = {
        "code": code_version(),
        "students": args.students,
        "servers": args.servers,
        "workers": args.workers,
        "load_average": os.getloadavg(),
        "verify": verify,
        "problems": problems,
        "ok": not problems,
    }
    (out / "checks.json").write_text(json.dumps(report, indent=2))
    print(summary_table(out))
    print(f"loadtest: report {out / 'locust_report.html'}, CSV {out}/locust_*.csv")
    for problem in problems:
        print(f"loadtest: FAILED: {problem}")
    print(f"loadtest: {'ok' if not problems else 'FAILED'}: every check in {out / 'checks.json'}")
    return 0 if not problems else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadtest", description=__doc__)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--arrive", type=float, default=20.0, help="arrival window (s)")
    parser.add_argument("--exam", type=float, default=40.0, help="exam time after arrival (s)")
    parser.add_argument("--submit", type=float, default=15.0, help="submission window (s)")
    parser.add_argument("--think", default="2,8", help="pause before each part, 'a,b' (s)")
    parser.add_argument("--servers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server")
    parser.add_argument("--database-url", default=None, help="default: a throwaway PostgreSQL")
    parser.add_argument(
        "--prepared", action="store_true", help="--database-url was prepared by an earlier run"
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "locust"))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

"""The load suite: the exam minute and the homework evening, SQLite and PostgreSQL, 1 and 2 servers.

Every run gets its own accounts (a prefix no earlier run used) and its own quiz, so nothing a
previous run did can make a step silently disappear; `bench.classload` refuses accounts that
already have attempts and checks afterwards that every student did every step.  The two-server
runs start two gunicorn instances on different ports against one PostgreSQL database with one
Redis cache (`REDIS_URL`), started here on a free loopback port and stopped afterwards; if
`redis-server` or the Python client is missing they are skipped with a message saying so.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import pg
from bench.cpusample import DUMP_EVERY_S, worker_totals
from bench.database_suites import ROOT, Site, django
from bench.scenarios import scenarios


def redis_missing() -> str | None:
    """Why a shared Redis cannot be started here, or None if it can."""
    if shutil.which("redis-server") is None:
        return "redis-server is not installed (Debian: apt-get install redis-server)"
    if importlib.util.find_spec("redis") is None:
        return "the Python redis client is not installed (requirements.txt)"
    return None


@contextlib.contextmanager
def redis_server():
    """A throwaway Redis on a free loopback port, nothing written to disk; yields its URL."""
    port = pg.free_port()
    folder = tempfile.mkdtemp(prefix="bench-redis.")
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder]
        + ["--appendonly", "no", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import redis

        client = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        else:
            raise RuntimeError("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


# How each gunicorn serves (docs/deploy.md): threads let a worker answer an autosave while
# another request of the same worker waits on the database or hashes a password (Argon2 releases
# the GIL); keep-alive outlasts a typing student's pause between autosaves.
GUNICORN_ARGS = "--worker-class gthread --threads 4 --keep-alive 10"


def code_version() -> dict:
    """The commit measured, whether the tree had changes on top of it, and when."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    outside_results = ["--", ".", ":!bench/results", ":!docs"]
    changed = git("status", "--porcelain", "--untracked-files=no", *outside_results)
    return {
        "commit": git("rev-parse", "--short=10", "HEAD") or "unknown",
        "subject": git("log", "-1", "--format=%s")[:120],
        "changed": bool(changed),
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def run_names(scenario) -> tuple[str, str]:
    """A new account prefix and quiz slug: no run ever meets another run's accounts or quiz."""
    run_id = uuid.uuid4().hex[:8]
    kind = ("exam", "exam") if scenario.exam else ("hw", "homework")
    return f"{kind[0]}-{run_id}-", f"bench-{kind[1]}-{run_id}"


def one_run(
    url: str,
    label: str,
    scenario,
    *,
    students: int,
    servers: int,
    workers: int,
    quick: bool,
    env=None,
) -> dict:
    """Fresh accounts and a fresh quiz, `servers` gunicorns, the scenario, both checks."""
    prefix, slug = run_names(scenario)
    django("accounts", url, "--students", str(students), "--prefix", prefix)
    django("quiz", url, "--slug", slug, "--mode", "exam" if scenario.exam else "homework")
    sites, worker = [], None
    print(f"bench: load, {scenario.name}, {label}, {students} students, {servers}×{workers}")
    cpu_dir = Path(tempfile.mkdtemp(prefix="bench-cpu."))
    try:
        served = {"GUNICORN_CMD_ARGS": GUNICORN_ARGS, "BENCH_CPU_DIR": str(cpu_dir), **(env or {})}
        for _ in range(servers):
            # The site's own application, wrapped to count each request's CPU (bench.cpuwsgi).
            sites.append(Site(url, workers, env=served, app="bench.cpuwsgi:application"))
        # The task worker grades the exams' submissions, as in production (docs/deploy.md).
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "worker"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        options = ["--ports", ",".join(str(s.port) for s in sites), "--slug", slug]
        options += ["--students", str(students), "--prefix", prefix, "--scenario", scenario.name]
        options += ["--server-pids", ",".join(str(s.process.pid) for s in sites)]
        result = django("classload", url, *options, *(["--quick"] if quick else []))
        time.sleep(2 * DUMP_EVERY_S)  # the workers' last counts reach their files
    finally:
        for site in sites:
            site.stop()
        if worker is not None:
            worker.terminate()
            worker.wait(20)
    result["server_cpu_by_kind"] = worker_totals(cpu_dir)
    shutil.rmtree(cpu_dir, ignore_errors=True)
    result.update(database=label, workers=workers, prefix=prefix, quiz=slug, gunicorn=GUNICORN_ARGS)
    result["code"] = code_version()
    result["server_log_errors"] = sorted({e for site in sites for e in site.server_errors()})
    print(
        f"bench: {result['throughput_per_s']:.1f} req/s, {result['errors']} errors, "
        f"{result['timeouts']} timeouts, scenario ok={result['exercised']['ok']}, "
        f"database ok={result['verify']['ok']}"
    )
    for problem in result["exercised"]["problems"] + result["verify"]["problems"][:5]:
        print(f"bench:   FAILED: {problem}")
    return result


def kept_runs(runs: list[dict], students: int) -> list[dict]:
    """The runs just made, plus the saved runs of the same size this invocation did not redo
    (same scenario, database and server count), so runs made in turns form one report."""
    import json

    saved = Path(__file__).parent / "results" / "load.json"
    if not saved.exists():
        return runs
    old = json.loads(saved.read_text())["data"]
    if old.get("students") != students or old.get("harness") != 2:
        return runs

    def ident(run):
        return (run["scenario"], run["database"], run["servers"])

    made = {ident(run) for run in runs}
    return [run for run in old["runs"] if ident(run) not in made] + runs


def load(pg_url: str, args) -> dict:
    students = 20 if args.quick and args.students == 300 else args.students
    workers = [int(w) for w in args.workers.split(",")]
    databases = getattr(args, "load_database", None) or ["SQLite", "PostgreSQL"]
    wanted = getattr(args, "load_scenario", None)
    chosen = [s for s in scenarios(quick=args.quick) if not wanted or s.name in wanted]
    server_counts = {int(n) for n in getattr(args, "load_servers", "1,2").split(",")}
    sites = []
    if "SQLite" in databases:
        sqlite = f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-sqlite.')) / 'load.sqlite3'}"
        print("bench: load: preparing SQLite")
        django("prepare", sqlite)
        sites.append(("SQLite", sqlite))
    if "PostgreSQL" in databases:
        sites.append(("PostgreSQL", pg_url))
    runs, skipped = [], []
    missing = redis_missing()
    for label, url in sites:
        for scenario in chosen:
            for w in workers if label == "SQLite" or 1 in server_counts else []:
                runs.append(
                    one_run(
                        url,
                        label,
                        scenario,
                        students=students,
                        servers=1,
                        workers=w,
                        quick=args.quick,
                    )
                )
            if label != "PostgreSQL" or 2 not in server_counts:
                continue  # two servers share one PostgreSQL, as the deployment guide has it
            if missing:
                skipped.append(f"two servers, {scenario.name}: skipped, {missing}")
                print(f"bench: {skipped[-1]}")
                continue
            with redis_server() as redis_url:
                runs.append(
                    one_run(
                        url,
                        label,
                        scenario,
                        students=students,
                        servers=2,
                        workers=workers[-1],
                        quick=args.quick,
                        env={"REDIS_URL": redis_url},
                    )
                )
    if getattr(args, "load_keep", False):
        runs = kept_runs(runs, students)
    return {
        "harness": 2,
        "students": students,
        "scenarios": [s.__dict__ for s in scenarios(quick=args.quick)],
        "runs": runs,
        "skipped": skipped,
        "ok": all(r["ok"] for r in runs),
    }

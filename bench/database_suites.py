"""The suites that need a database and a served site: pages, instructor, ratios, postcost,
load, faults, hostile.

One throwaway PostgreSQL cluster serves them all and is stopped at the end, even on failure.
Each Django-side step runs in its own process (`bench.djangoside`) with its DATABASE_URL, so
SQLite and PostgreSQL each get their own settings; gunicorn is started and stopped here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench import machine, pg
from bench.stats import growth_exponent

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SEED_BUDGET_S = float(os.environ.get("BENCH_SEED_BUDGET", "300"))


def django(command: str, database_url: str, *options: str, env=None) -> dict:
    """Run `python -m bench.djangoside COMMAND` against a database; its JSON result."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    environment = {**os.environ, "DATABASE_URL": database_url, **(env or {})}
    try:
        subprocess.run(
            [sys.executable, "-m", "bench.djangoside", command, "--out", path, *options],
            cwd=ROOT,
            env=environment,
            check=True,
        )
        return json.loads(Path(path).read_text())
    finally:
        os.unlink(path)


# -- pages ----------------------------------------------------------------------------------


def pages_on(database_url: str, label: str, sizes: list[int], repeat: int) -> dict:
    print(f"bench: pages on {label}: preparing")
    prepared = django("prepare", database_url)
    runs, seeding, skipped = [], [], []
    for size in sizes:
        started = time.perf_counter()
        if seeding and size > seeding[-1]["students"]:
            # Seeding grows about linearly: skip a size that would not fit in the budget.
            last = seeding[-1]
            rate = last["seconds"] / max(1, last["students"] - last.get("from", 0))
            projected = rate * (size - last["students"])
            if projected > SEED_BUDGET_S:
                skipped.append(
                    {"size": size, "projected_seed_s": projected, "budget_s": SEED_BUDGET_S}
                )
                print(f"bench: {size} students would take ~{projected:.0f} s to seed: skipped")
                continue
        print(f"bench: pages on {label}: seeding {size} students")
        seeded = django("seed", database_url, "--students", str(size))
        seeded["from"] = seeding[-1]["students"] if seeding else 0
        seeding.append(seeded)
        print(f"bench: pages on {label}: measuring at {size} ({seeded['seconds']:.0f} s seeding)")
        runs.append(django("pages", database_url, "--size", str(size), "--repeat", str(repeat)))
        runs[-1]["seed_seconds"] = time.perf_counter() - started
    growth = {}
    if len(runs) > 1:
        for name in runs[0]["pages"]:
            sizes_ok = [r["students"] for r in runs if name in r["pages"]]
            medians = [r["pages"][name]["median_ms"] for r in runs if name in r["pages"]]
            growth[name] = growth_exponent(sizes_ok, medians)
    return {
        "database": label,
        "prepared": prepared,
        "seeding": seeding,
        "skipped": skipped,
        "runs": runs,
        "growth": growth,
    }


def caches(args) -> dict:
    """What each cache on the student's path buys (`bench.cachecost`), on SQLite: the ratio
    of a page to the floor with the cache on and off, side by side; then a worker's memory
    with every cache full (`bench.cachefill`)."""
    sqlite_path = Path(tempfile.mkdtemp(prefix="bench-sqlite.")) / "bench.sqlite3"
    url = f"sqlite:///{sqlite_path}"
    print("bench: caches on sqlite: preparing")
    django("prepare", url)
    django("seed", url, "--students", "30")
    print("bench: caches on sqlite: measuring")
    costs = django("cachecost", url, "--repeat", "4" if args.quick else "6")
    print("bench: caches on sqlite: filling every cache (a worker's memory)")
    return {"sqlite": costs, "fill": django("cachefill", url)}


# -- a served site --------------------------------------------------------------------------


class Site:
    """gunicorn with `workers` workers on a free loopback port, production settings."""

    def __init__(self, database_url: str, workers: int, env=None, app: str = "config.wsgi"):
        self.port = pg.free_port()
        self.workers = workers
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DJANGO_DEBUG": "0",
            "DJANGO_INSECURE_HTTP": "1",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            **(env or {}),
        }
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                app,
                "-w",
                str(workers),
                "-b",
                f"127.0.0.1:{self.port}",
                "--timeout",
                "30",
                "--graceful-timeout",
                "5",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/accounts/login/") as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"gunicorn did not start; see {self.log.name}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.flush()

    def server_errors(self) -> list[str]:
        self.log.seek(0)
        lines = [line.strip() for line in self.log]
        # The last line of a traceback names the exception: that is what the report needs.
        found = [line for line in lines if ("Error:" in line or "Exception:" in line)]
        return sorted(set(found))[:20]


def _drive(database_url, site: Site, slug: str, students: int, prefix: str, env=None) -> dict:
    return django(
        "drive",
        database_url,
        "--port",
        str(site.port),
        "--slug",
        slug,
        "--students",
        str(students),
        "--prefix",
        prefix,
        env=env,
    )


def faults(database_url: str, cluster: pg.Cluster, args) -> dict:
    students = 40 if args.quick else 80
    django("accounts", database_url, "--students", str(students), "--prefix", "fault-")
    django("exam", database_url, "--slug", "bench-exam-faults")
    site = Site(database_url, 2)
    restart = " ".join(
        (["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else [])
        + [
            str(Path(cluster.bin) / "pg_ctl"),
            "-D",
            str(cluster.data),
            "-m",
            "fast",
            "-w",
            "restart",
        ]
    )
    print(f"bench: faults, {students} students, 2 workers")
    try:
        result = _drive(
            database_url,
            site,
            "bench-exam-faults",
            students,
            "fault-",
            env={
                "BENCH_WINDOW": "10",
                "BENCH_DEADLINE": "300",
                "BENCH_FAULTS": "1",
                "BENCH_GUNICORN_PID": str(site.process.pid),
                "BENCH_PG_RESTART": restart,
            },
        )
    finally:
        site.stop()
    result["server_log_errors"] = site.server_errors()
    return result


def hostile(database_url: str) -> dict:
    django("accounts", database_url, "--students", "1", "--prefix", "hostile-")
    site = Site(database_url, 2)
    print("bench: hostile input over HTTP")
    try:
        result = django("hostile", database_url, "--port", str(site.port), "--prefix", "hostile-")
    finally:
        site.stop()
    result["server_log_errors"] = site.server_errors()
    return result


def run(wanted: list[str], args, *, save) -> None:
    with pg.cluster(args.pg_port) as cluster:
        facts = machine.describe(cluster.bin)
        if "pages" in wanted:
            sizes = [int(s) for s in args.sizes.split(",")]
            if args.quick:
                sizes = [s for s in sizes if s <= 1000]
            repeat = 5 if args.quick else 15
            sqlite_path = Path(tempfile.mkdtemp(prefix="bench-sqlite.")) / "bench.sqlite3"
            data = {
                "sqlite": pages_on(f"sqlite:///{sqlite_path}", "SQLite", sizes, repeat),
                "postgresql": pages_on(
                    cluster.create_database("bench_pages"), "PostgreSQL", sizes, repeat
                ),
            }
            save("pages", data, quick=args.quick, machine=facts)
        if "instructor" in wanted:
            from bench import instructorpages

            instructorpages.run(cluster, args, save=save, facts=facts)
        if "ratios" in wanted:
            from bench import ratiosuite

            ratiosuite.run(cluster, args, save=save)
        if "caches" in wanted:
            save("caches", caches(args), quick=args.quick, machine=facts)
        if "postcost" in wanted:
            from bench import postcostsuite

            postcostsuite.run(cluster, args, save=save)
        if "arrival" in wanted:
            from bench import arrivalsuite

            arrivalsuite.run(cluster, args, save=save)
        served = [s for s in wanted if s in ("load", "faults", "hostile")]
        if served:
            url = cluster.create_database("bench_site")
            django("prepare", url)
            if "load" in served:
                from bench import loadsuite

                save("load", loadsuite.load(url, args), quick=args.quick, machine=facts)
            if "faults" in served:
                save("faults", faults(url, cluster, args), quick=args.quick, machine=facts)
            if "hostile" in served:
                save("hostile", hostile(url), quick=args.quick, machine=facts)

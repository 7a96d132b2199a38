"""`python -m bench`: run the suites, store raw figures in bench/results/, write the report.

Each suite writes `bench/results/<suite>.json` (its figures plus the machine they were measured
on); the report is rebuilt from every results file present, so `--only grading` refreshes one
section and keeps the others.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
SUITES = (
    "grading",
    "variants",
    "pages",
    "instructor",
    "ratios",
    "caches",
    "postcost",
    "arrival",
    "load",
    "faults",
    "hostile",
)
# Every suite but the two that need no database runs once per database.
DATABASE_SUITES = tuple(s for s in SUITES if s not in ("grading", "variants"))


def _arguments(argv):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller runs")
    parser.add_argument(
        "--only", action="append", choices=SUITES, help="run only this suite (repeatable)"
    )
    parser.add_argument(
        "--sizes",
        default="100,1000,10000",
        help="class sizes for the page measurements (default 100,1000,10000)",
    )
    parser.add_argument(
        "--instructor-sizes",
        default="300,3000",
        help="instructor: class sizes on PostgreSQL (default 300,3000)",
    )
    parser.add_argument(
        "--instructor-database",
        metavar="URL",
        help="instructor: measure already seeded PostgreSQL databases instead of seeding one: "
        "one URL per size, comma-separated, each holding its class (or one URL for all)",
    )
    parser.add_argument(
        "--students",
        type=int,
        default=300,
        help="simulated students per load run (default 300; 20 with --quick)",
    )
    parser.add_argument(
        "--workers", default="2", help="gunicorn worker counts per server for the load test"
    )
    parser.add_argument(
        "--load-scenario",
        action="append",
        choices=("exam minute", "exam start", "homework evening"),
        help="load: run only this scenario (repeatable; default all)",
    )
    parser.add_argument(
        "--load-database",
        action="append",
        choices=("SQLite", "PostgreSQL"),
        help="load: run only on this database (repeatable; default both)",
    )
    parser.add_argument(
        "--load-servers",
        default="1,2",
        help="load: server counts on PostgreSQL (default 1,2; SQLite always runs one)",
    )
    parser.add_argument(
        "--load-keep",
        action="store_true",
        help="load: keep saved runs of the same size that this invocation does not redo",
    )
    parser.add_argument(
        "--postcost-before",
        metavar="COMMIT",
        help="postcost: also measure this commit's tree, alternately with the current one "
        "(writes bench/results/postcost-before.json)",
    )
    parser.add_argument(
        "--arrival-before",
        metavar="COMMIT",
        help="arrival: also measure this commit's tree, alternately with the current one "
        "(writes bench/results/arrival-before.json)",
    )
    parser.add_argument(
        "--ratios-before",
        metavar="COMMIT",
        help="ratios: also measure this commit's tree, alternately with the current one "
        "(writes bench/results/ratios-before.json)",
    )
    parser.add_argument(
        "--pg-port",
        type=int,
        default=None,
        help="the throwaway PostgreSQL cluster's port (default: a free one; a helper's own on a "
        "shared machine)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="rebuild docs/BENCHMARKS.md from results"
    )
    return parser.parse_args(argv)


def save(suite: str, data: dict, *, quick: bool, machine: dict) -> None:
    RESULTS.mkdir(exist_ok=True)
    payload = {"suite": suite, "quick": quick, "machine": machine, "data": data}
    path = RESULTS / f"{suite}.json"
    path.write_text(json.dumps(payload, indent=1, sort_keys=True, default=str) + "\n")
    print(
        f"bench: wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}"
    )


def main(argv=None) -> int:
    args = _arguments(argv)
    os.environ.setdefault("DJANGO_INSECURE_HTTP", "1")
    from bench import machine, report

    if args.report_only:
        report.write()
        return 0
    suites = args.only or list(SUITES)
    started = time.perf_counter()
    if "grading" in suites:
        from bench import grading

        print("bench: grading")
        save("grading", grading.run(quick=args.quick), quick=args.quick, machine=machine.describe())
    if "variants" in suites:
        from bench import variants

        print("bench: variants and validate_questions")
        save(
            "variants", variants.run(quick=args.quick), quick=args.quick, machine=machine.describe()
        )
    wanted = [s for s in suites if s in DATABASE_SUITES]
    if wanted:
        from bench import database_suites

        database_suites.run(wanted, args, save=save)
    report.write()
    print(f"bench: done in {time.perf_counter() - started:.0f} s")
    return 0 if load_ok(suites) else 1


def load_ok(suites) -> bool:
    """False, loudly, if a load run of this invocation skipped a step or failed its check."""
    if "load" not in suites:
        return True
    result = json.loads((RESULTS / "load.json").read_text())
    failed = [r for r in result["data"]["runs"] if not r["ok"]]
    for run in failed:
        problems = run["exercised"]["problems"] + run["verify"]["problems"][:5]
        print(
            f"bench: LOAD RUN FAILED ({run['scenario']}, {run['database']}, "
            f"{run['servers']} server(s)): " + "; ".join(problems)
        )
    return not failed


if __name__ == "__main__":
    sys.exit(main())

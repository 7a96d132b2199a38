"""`python -m bench --only instructor`: the instructor's statistics pages against the floor at
two class sizes on PostgreSQL (issue 34 item 2: flat from 300 to 3,000 students, within 10x
the floor).

A `seed_demo` class grown to each size, `ANALYZE`d (the planner's statistics fresh, as a
class's are after a semester of autovacuum), then `bench.pagetimes` (`djangoside pages`) on the
floor and the instructor pages only, each with its load average before and after and the
commit measured. `--instructor-database URL` measures an already seeded database instead of
seeding one (the sizes it holds); `bench/results/instructor-before.json`, if present, is the
same measurement of the tree before the kept statistics, shown beside.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = "gradebook,item analysis,item index,misconception map"
SHOWN = ("floor (minimal view)", "gradebook", "item analysis", "item index", "misconception map")


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return ""


def measure(database_url: str, size: int, repeat: int) -> dict:
    """One size's figures (the class must already be seeded), with the load around them."""
    from bench.database_suites import django

    django("analyze", database_url)
    before = [round(x, 2) for x in os.getloadavg()]
    run = django(
        "pages", database_url, "--size", str(size), "--repeat", str(repeat), "--pages", PAGES
    )
    run["load_average"] = [before, [round(x, 2) for x in os.getloadavg()]]
    run["commit"] = commit()
    return run


def run(cluster, args, *, save, facts) -> None:
    from bench.database_suites import django

    sizes = [int(s) for s in args.instructor_sizes.split(",")]
    repeat = 5 if args.quick else 15
    url = args.instructor_database
    runs = []
    if url is None:
        url = cluster.create_database("bench_instructor")
        django("prepare", url)
    for size in sizes:
        if not args.instructor_database:
            print(f"bench: instructor pages: seeding {size} students")
            django("seed", url, "--students", str(size))
        print(f"bench: instructor pages: measuring at {size}")
        runs.append(measure(url, size, repeat))
    save("instructor", {"runs": runs}, quick=args.quick, machine=facts)


def analyze(args) -> dict:
    """`djangoside analyze`: refresh the planner's statistics (PostgreSQL; nothing on SQLite)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {"vendor": connection.vendor}


def section(result: dict, before: dict | None) -> tuple[str, list]:
    from bench.report import ms, table
    from bench.stats import growth_exponent

    runs = result["data"]["runs"]
    old = {r["size"]: r for r in (before or {}).get("data", {}).get("runs", [])}
    header = ["page"]
    for r in runs:
        header.append(f"{r['students']} students")
        if r["size"] in old:
            header.append(f"{r['students']}, before")
    header += ["queries", "growth"]
    rows, targets = [], []
    for name in SHOWN:
        row = [name]
        for r in runs:
            for source in (r, old.get(r["size"])):
                if source is None:
                    continue
                entry = source["pages"].get(name)
                row.append(
                    f"{ms(entry['median_ms'])} ms ({entry['floor_ratio']:.1f}×)" if entry else "–"
                )
        counts = sorted({r["pages"][name]["queries"] for r in runs if name in r["pages"]})
        row.append(" / ".join(str(c) for c in counts))
        have = [r for r in runs if name in r["pages"]]
        slope = growth_exponent(
            [r["students"] for r in have], [r["pages"][name]["median_ms"] for r in have]
        )
        row.append(f"{slope:.2f}" if slope is not None else "–")
        rows.append(row)
        if name in ("item index", "misconception map") and have:
            worst = max(r["pages"][name]["floor_ratio"] for r in have)
            targets.append(
                (
                    f"{name} within 10× the floor at every size (PostgreSQL)",
                    ("**met**" if worst <= 10 else "**not met**") + f" (worst {worst:.1f}×)",
                )
            )
    m = result["machine"]
    loads = "; ".join(
        f"{r['students']} students: {r['load_average'][0][0]} → {r['load_average'][1][0]}"
        for r in runs
    )
    when = f"_Measured {m['date']} on {m['cpu']}, {m['nproc']} cores; PostgreSQL {m['postgresql']}"
    text = f"""## Instructor statistics pages against the floor (PostgreSQL)

{when}; commit {runs[0].get("commit") or "?"}; load average (1 min) before → after: {loads}._

A `seed_demo` class grown to each size and `ANALYZE`d, then the floor (a signed-in view of two
bytes) and each page in process (`bench.pagetimes`), median of the timed requests with its
multiple of the floor; "before" is the same measurement of the tree before the item index and
the misconception map kept their figures (`bench/results/instructor-before.json`, commit
{(before or {}).get("data", {}).get("runs", [{}])[0].get("commit", "?")}). Queries: the count at
each size (one number when it does not change). Growth: the slope of log(time) on log(students),
0 flat, 1 linear. The pages read kept figures; computing them again is the task worker's
(`refresh_offering_statistics`), not the page's. Times in ms.

{table(header, rows)}
"""
    return text, targets

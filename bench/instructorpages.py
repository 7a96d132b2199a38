"""`python -m bench --only instructor`: the instructor's statistics pages against the floor at
two class sizes on PostgreSQL (issue 34 item 2: flat from 300 to 3,000 students, within 10x
the floor).

A `seed_demo` class grown to each size, `ANALYZE`d (the planner's statistics fresh, as a
class's are after a semester of autovacuum), then `bench.pagetimes` (`djangoside pages`) on the
floor and the instructor pages only, each with its load average before and after and the
commit measured. `--instructor-database URL[,URL...]` measures already seeded databases instead
of seeding one: one URL per size (each holding its class), or one for every size;
`bench/results/instructor-before.json`, if present, is the same measurement of the tree before
the kept statistics, shown beside.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
    run = django("instructor", database_url, "--size", str(size), "--repeat", str(repeat))
    run["load_average"] = [before, [round(x, 2) for x in os.getloadavg()]]
    run["commit"] = commit()
    return run


def run(cluster, args, *, save, facts) -> None:
    from bench.database_suites import django

    sizes = [int(s) for s in args.instructor_sizes.split(",")]
    repeat = 5 if args.quick else 15
    given = args.instructor_database.split(",") if args.instructor_database else []
    if len(given) not in (0, 1, len(sizes)):
        raise SystemExit("--instructor-database: one URL, or one per size")
    runs = []
    url = given[0] if given else None
    if url is None:
        url = cluster.create_database("bench_instructor")
        django("prepare", url)
    for n, size in enumerate(sizes):
        seeded = None
        if len(given) == len(sizes):
            url = given[n]
        if not given:
            print(f"bench: instructor pages: seeding {size} students")
            seeded = django("seed", url, "--students", str(size))
        print(f"bench: instructor pages: measuring at {size}")
        runs.append(measure(url, size, repeat))
        # Growing the class from the size before (seed_demo's default), or seeded beforehand.
        runs[-1]["seeding"] = seeded and {
            "seconds": seeded["seconds"],
            "workers": seeded.get("workers"),
        }
    save("instructor", {"runs": runs}, quick=args.quick, machine=facts)


def pages_side_by_side(args) -> dict:
    """`djangoside instructor`: each round times the floor, then every page, then the floor
    again; a page's ratio in a round is its time over the mean of the two floors around it, so
    a machine that other work slows slows both (the load moves while a round takes a second,
    not while a whole run does). Median over the rounds; queries from one untimed pass."""
    import time

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench.djangoside import bench_offering
    from bench.pagetimes import STUDENT, _student_attempt
    from bench.stats import summarize
    from quizzes.models import Attempt, Response

    settings.ROOT_URLCONF = "bench.urls"
    offering = bench_offering()
    staff = f"/o/{offering.slug}/instructor"
    slug = offering.quizzes.get(slug="bench-homework").items.order_by("position")[0].template.slug
    urls = {
        "gradebook": f"{staff}/gradebook/",
        "item analysis": f"{staff}/items/{slug}/",
        "item index": f"{staff}/items/",
        "misconception map": f"{staff}/misconceptions/",
    }
    student, _ = _student_attempt(offering)
    as_student, as_staff = Client(), Client()
    as_student.force_login(student)
    as_staff.force_login(get_user_model().objects.get(username="instructor"))

    def timed(client, url):
        started = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return (time.perf_counter() - started) * 1000

    queries = {}
    for name, url in {"floor (minimal view)": "/bench-floor/", **urls}.items():
        client = as_student if url == "/bench-floor/" else as_staff
        client.get(url)  # warm: parsed templates, and a kept row computed if there is none
        with CaptureQueriesContext(connection) as captured:
            client.get(url)
        queries[name] = len(captured.captured_queries)
    times = {name: [] for name in ["floor (minimal view)", *urls]}
    ratios = {name: [] for name in urls}
    for _ in range(args.repeat):
        for name, url in urls.items():
            first = timed(as_student, "/bench-floor/")
            page = timed(as_staff, url)
            last = timed(as_student, "/bench-floor/")
            times["floor (minimal view)"] += [first, last]
            times[name].append(page)
            ratios[name].append(page / ((first + last) / 2))
    pages = {}
    for name, samples in times.items():
        entry = {**summarize([t / 1000 for t in samples]), "queries": queries[name]}
        ordered = sorted(ratios.get(name, [1.0]))
        entry["floor_ratio"] = ordered[len(ordered) // 2]
        entry["floor_ratio_iqr"] = [ordered[len(ordered) // 4], ordered[(3 * len(ordered)) // 4]]
        pages[name] = entry
    return {
        "size": args.size,
        "students": offering.enrollments.filter(role="student")
        .exclude(user__username=STUDENT)
        .count(),
        "attempts": Attempt.objects.filter(quiz__offering=offering).count(),
        "responses": Response.objects.filter(variant__attempt__quiz__offering=offering).count(),
        "vendor": connection.vendor,
        "rounds": args.repeat,
        "pages": pages,
    }


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
        # On the ratio to the floor, which the machine's other work moves little: two sizes are
        # measured minutes apart, and a busier minute slows every page, the floor's too.
        slope = growth_exponent(
            [r["students"] for r in have], [r["pages"][name]["floor_ratio"] for r in have]
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
    seeding = ", ".join(
        f"to {r['students']} in {r['seeding']['seconds']:.0f} s" for r in runs if r.get("seeding")
    )
    if runs and all("seeding" in r and not r["seeding"] for r in runs):
        seeding = (
            "\n\nThe classes were seeded beforehand, one database per size "
            "(`--instructor-database`), and measured one after the other."
        )
    elif seeding:
        workers = next(r["seeding"].get("workers") for r in runs if r.get("seeding"))
        seeding = (
            f"\n\nSeeding (`seed_demo`, growing the class; {workers or '?'} processes drawing the "
            f"students' variants, rows by COPY), under the same load: {seeding}."
        )
    text = f"""## Instructor statistics pages against the floor (PostgreSQL)

{when}; commit {runs[0].get("commit") or "?"}; load average (1 min) before → after: {loads}._

A `seed_demo` class grown to each size and `ANALYZE`d, then each page timed in process between
two requests of the floor (a signed-in view of two bytes), round after round: the median time
of each page, and in brackets the median over the rounds of its time over the mean of the two
floors around it (the machine was shared: the ratio is what carries over); "before" is the
same measurement of the tree before the item index and
the misconception map kept their figures (`bench/results/instructor-before.json`, commit
{(before or {}).get("data", {}).get("runs", [{}])[0].get("commit", "?")}). Queries: the count at
each size (one number when it does not change). Growth: the slope of log(× floor) on
log(students), 0 flat, 1 linear (on the ratio, not the time: the sizes are measured minutes
apart and a busier minute slows every page, the floor's too). The pages read kept figures;
computing them again is the task worker's (`refresh_offering_statistics`), not the page's.
Since the 2026-12-06 figures: the analytics filter reads its quiz choices with the quizzes'
statistics counters in one query (the kept rows are compared with them) and both its choice
lists without a server-side cursor; the index's rows escape only their text. Times in ms.{seeding}

{table(header, rows)}
"""
    return text, targets

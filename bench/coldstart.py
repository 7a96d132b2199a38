"""The first formula grade after a process starts, and the grades after it.

Each run is a fresh Python process that imports the grader as a web worker does and then
grades formulas through `grade_in_pool`, the site's path.  "cold" grades at once, with nothing
started before (the pool starts on that first call); "warm start" calls `start_pool()` first,
as the gunicorn hook and the app's ready hook do when a worker starts serving, and the first
answer arrives a moment later.  After the first grade, each process grades `AFTER` more
distinct formulas, whose p50/p99 are reported beside the first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AFTER = 40

_CHILD = r"""
import json, sys, time
started = time.perf_counter()
import quizzes.grading as grading
imported = time.perf_counter()
if sys.argv[1] == "warm":
    grading.start_pool()
    time.sleep(float(sys.argv[2]))

def grade(c):
    return grading.grade_in_pool(
        "symbolic", response=f"{c}*n(n+1)/2", expected=f"{c}*(n^2/2 + n/2)", variables=["n"]
    )

t = time.perf_counter(); first = grade(3); first_s = time.perf_counter() - t
after = []
for c in range(5, 5 + int(sys.argv[3])):
    t = time.perf_counter(); grade(c); after.append(time.perf_counter() - t)
print(json.dumps({"import_s": imported - started, "first_s": first_s,
                  "first_status": first.status, "after_s": after}))
grading.shutdown_pool()
"""


def _child(mode: str, delay: float, after: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GRADING_INLINE"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(delay), str(after)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(*, quick: bool = False) -> dict:
    from bench.stats import summarize

    processes = 3 if quick else 6
    results = {}
    for mode, delay in (("cold", 0.0), ("warm", 2.0)):
        runs = [_child(mode, delay, AFTER) for _ in range(processes)]
        after = [s for r in runs for s in r["after_s"]]
        results[mode] = {
            "processes": processes,
            "delay_s": delay,
            "first": summarize([r["first_s"] for r in runs]),
            "first_statuses": sorted({r["first_status"] for r in runs}),
            "after": summarize(after),
            "import": summarize([r["import_s"] for r in runs]),
        }
    return results

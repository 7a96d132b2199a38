"""How long one student's expensive formulas can delay another's: `python -m bench.fairness`.

A hostile student's job is modelled by the worst a job can do, holding a grading worker for
the whole time limit (a test hook that sleeps past it and is killed).  Without a per-student
limit that student can keep every worker busy (`hostile` threads = 4); with the limit of one
formula in flight per student (quizzes.services.grading_budget) at most one worker.  Meanwhile
another student grades an ordinary formula every 0.2 s; the figures are that student's
latencies.  Pool of 2 workers, time limit 2 s, as on the site.
"""

from __future__ import annotations

import json
import os
import threading
import time

from bench.stats import summarize


def _scenario(hostile: int, seconds: float) -> dict:
    from quizzes.grading import grade_in_pool
    from quizzes.grading.pool import run_in_pool
    from tests.grading import pool_hooks

    stop = time.monotonic() + seconds

    def attacker():
        while time.monotonic() < stop:
            run_in_pool(pool_hooks.sleep_then_report, timeout=2.0, seconds=30)

    threads = [threading.Thread(target=attacker, daemon=True) for _ in range(hostile)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    latencies, c = [], 2
    while time.monotonic() < stop:
        c += 1
        started = time.perf_counter()
        grade_in_pool("symbolic", response=f"{c} n(n+1)/2", expected=f"{c}*(n^2+n)/2",
                      variables=["n"])  # fmt: skip
        latencies.append(time.perf_counter() - started)
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    return summarize(latencies)


def run(seconds: float = 12.0) -> dict:
    from quizzes.grading import shutdown_pool, start_pool

    os.environ.pop("GRADING_INLINE", None)
    os.environ["GRADING_POOL_SIZE"] = "2"
    results = {}
    for label, hostile in (("alone", 0), ("one in flight (the limit)", 1), ("four at once", 4)):
        shutdown_pool()
        start_pool(wait=True)
        results[label] = _scenario(hostile, seconds)
    shutdown_pool()
    return results


if __name__ == "__main__":
    for label, summary in run().items():
        print(json.dumps({label: {k: round(v, 1) for k, v in summary.items()}}))

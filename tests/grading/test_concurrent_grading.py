"""Formula verdicts do not depend on other threads grading at the same time (issue 32, item 1).

mpmath's working precision is one setting for the process; the grader raised it for each
comparison and another thread leaving its own block put it back to 15 digits mid-comparison,
so ``atan(x)`` against ``asin(x/sqrt(1+x^2))`` came out incorrect in about one run in six. Each
test here starts a fresh process (as a web worker starts), grades hard identities from several
threads at once for several rounds, every thread released by a barrier in the same instant,
and requires every verdict to be right: inline (``GRADING_INLINE=1``, a threaded deployment),
and while the grading pool is still starting, when answers are graded in the web process beside
the pool's own warm-up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (response, expected, variables, verdict): identities that sympy's algebra does not settle,
# so the numbers decide, and near misses of them that must stay incorrect.
CASES = [
    ("atan(x)", "asin(x/sqrt(1+x^2))", {"x": "real"}, "correct"),
    ("asin(x/sqrt(1+x^2))", "atan(x)", {"x": "real"}, "correct"),
    ("pi/2 - atan(1/x)", "atan(x)", {"x": "positive"}, "correct"),
    ("acos(1/sqrt(1+x^2))", "atan(x)", {"x": "positive"}, "correct"),
    ("atan(x)", "asin(x/sqrt(2+x^2))", {"x": "real"}, "incorrect"),
    ("pi/2 - atan(x)", "atan(x)", {"x": "positive"}, "incorrect"),
]

DRIVER = """
import json, os, sys, threading
from quizzes.grading import grade_in_pool, pool, start_pool

cases, threads, rounds = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if os.environ.get("GRADING_INLINE") != "1":
    start_pool()  # in the background, as a web worker does; graded here until it is warm
wrong, total, while_warming = [], 0, 0
lock = threading.Lock()

def grade(case):
    global total, while_warming
    response, expected, variables, verdict = case
    barrier.wait()
    warming = pool._pool is not None and not pool._pool.warm.is_set()
    status = grade_in_pool(
        "symbolic", response=response, expected=expected, variables=variables
    ).status
    with lock:
        total += 1
        while_warming += warming
        if status != verdict:
            wrong.append([response, expected, status])

for round_ in range(rounds):
    barrier = threading.Barrier(threads)
    workers = [
        threading.Thread(target=grade, args=(cases[(round_ + i) % len(cases)],))
        for i in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
print(json.dumps({"wrong": wrong, "total": total, "while_warming": while_warming}))
"""


def grade_at_once(threads: int, rounds: int, *, inline: bool) -> dict:
    env = {**os.environ, "GRADING_POOL_SIZE": "1"}
    env.pop("GRADING_INLINE", None)
    if inline:
        env["GRADING_INLINE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(CASES), str(threads), str(rounds)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(("threads", "rounds"), [(2, 20), (8, 4)])
def test_every_verdict_is_right_with_threads_grading_inline_at_once(threads, rounds):
    outcome = grade_at_once(threads, rounds, inline=True)
    assert outcome["total"] == threads * rounds
    assert outcome["wrong"] == []


@pytest.mark.slow
@pytest.mark.parametrize(("threads", "rounds"), [(2, 8), (8, 2)])
def test_every_verdict_is_right_while_the_pool_is_starting(threads, rounds):
    outcome = grade_at_once(threads, rounds, inline=False)
    assert outcome["total"] == threads * rounds
    assert outcome["while_warming"] > 0, "no answer was graded before the pool was warm"
    assert outcome["wrong"] == []


def test_a_verdict_does_not_change_while_another_thread_resets_mpmaths_precision():
    # What another thread leaving its own mpmath block does to the process-wide context, done
    # here all the time: the grader's numbers must not be made with that context at all.
    import threading

    import mpmath

    from quizzes.grading.formula.grade import grade_symbolic_inline

    stop = threading.Event()

    def reset_precision():
        while not stop.is_set():
            mpmath.mp.prec = 53

    resetter = threading.Thread(target=reset_precision, daemon=True)
    resetter.start()
    try:
        statuses = [
            grade_symbolic_inline(response, expected, variables=variables).status
            for response, expected, variables, _ in CASES * 2
        ]
    finally:
        stop.set()
        resetter.join()
    assert statuses == [verdict for *_, verdict in CASES * 2]

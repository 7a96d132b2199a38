"""Grading benchmarks: numbers, numbers with units, formulas and the hostile corpus.

"Per call" is the grader in this process (how numbers are graded on the site); "pool" goes
through `grade_in_pool`, the worker processes with hard limits that formulas use on the site.
Throughput through the pool is measured with as many client threads as the pool has workers.
"""

from __future__ import annotations

import os
import threading
import time

from bench.stats import summarize, time_calls
from quizzes.grading import grade_in_pool, grade_numeric, shutdown_pool
from quizzes.grading.formula.grade import grade_symbolic_inline

# (response, expected value in SI units, unit): a mix of right and wrong answers.
NUMBERS = [
    ("42", 42.0, None),
    ("3.35e12", 3.35e12, None),
    ("1/3", 1 / 3, None),
    ("2^10", 1024.0, None),
    ("0.75", 0.5, None),
    ("12.5%", 0.125, None),
]
WITH_UNITS = [
    ("3350 GB/s", 3.35e12, "B/s"),
    ("3.35 TB/s", 3.35e12, "B/s"),
    ("26.8 Tbit/s", 3.35e12, "B/s"),
    ("80 GiB", 80e9, "B"),
    ("989 TFLOP/s", 989e12, "FLOP/s"),
    ("12 ms", 0.0125, "s"),
    ("295 FLOP/B", 295.2, "FLOP/B"),
    ("3.35 GHz", 3.35e12, "B/s"),
]
# (response, expected, variables): what a student types for the book's formulas.
ORDINARY = [
    ("2*n*m*k", "2 n m k", ["n", "m", "k"]),
    ("2 L H d b T", "2*L*H*d*b*T", ["L", "H", "d", "b", "T"]),
    ("n(n+1)/2", "n^2/2 + n/2", ["n"]),
    ("P*b/B", "b P / B", ["P", "b", "B"]),
    ("log2(n)", "log(n)/log(2)", ["n"]),
    ("(m*k + k*n + m*n)*s", "s*(m k + n k + m n)", ["m", "n", "k", "s"]),
    ("F/(B)", "F/B", ["F", "B"]),
    ("n^2", "n^3", ["n"]),
    ("2 m n", "2 m n k", ["m", "n", "k"]),
]
HARD = [
    ("sin(x)^2 + cos(x)^2", "1", {"x": "real"}),
    ("(a+b)^8", "expand((a+b)^8)", ["a", "b"]),
    ("log(a*b)", "log(a) + log(b)", ["a", "b"]),
    ("exp(2 log n)", "n^2", ["n"]),
    ("(n+1)!/n!", "n+1", ["n"]),
    ("sqrt(n^2)", "n", ["n"]),
    ("(1 + 1/n)^n * n^n", "(n+1)^n", ["n"]),
    ("tan(x) cos(x)", "sin(x)", {"x": "real"}),
]


def _hostile() -> list[str]:
    # The grader's own hostile corpus, kept with its tests so both use the same list.
    from tests.grading.test_hostile import HOSTILE

    return list(HOSTILE)


def _expand_identity(expected: str) -> str:
    # "expand((a+b)^8)" is written out here because the grader accepts no calls but its own.
    if expected == "expand((a+b)^8)":
        return " + ".join(f"{_binomial(8, k)}*a^{8 - k}*b^{k}" for k in range(9))
    return expected


def _binomial(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


def _salted(cases, count: int, salt, seed: str) -> list:
    """`count` concrete calls cycling through `cases`, each made distinct by `salt`.

    Distinct inputs keep sympy's and the unit parser's caches from timing only the second call.
    """
    import random

    rng = random.Random(seed)
    return [salt(cases[i % len(cases)], rng) for i in range(count)]


def _number_salt(case, rng):
    from content.physics import format_quantity

    response, expected, unit = case
    factor = rng.choice([1.0, 1.0, 1.0, 1.5, 0.5]) * (1 + rng.uniform(-0.004, 0.004))
    value = expected * factor
    if unit is None:
        return (f"{value:.6g}", expected, unit)
    try:
        return (format_quantity(value, unit), expected, unit)
    except (KeyError, ValueError):
        return (response, expected, unit)


def _formula_salt(case, rng):
    response, expected, variables = case
    c = rng.randint(2, 97)
    return (f"{c}*({response})", f"{c}*({_expand_identity(expected)})", variables)


def _each(cases, run, repeat: int) -> tuple[list[float], list[dict]]:
    every, per_case = [], []
    for case in cases:
        durations = time_calls(lambda case=case: run(case), repeat=repeat)
        every += durations
        status = run(case).status
        per_case.append({"input": case[0][:60], "status": status, **summarize(durations)})
    return every, per_case


def _distinct(calls, run) -> list[float]:
    run(calls[0])
    durations = []
    for call in calls:
        started = time.perf_counter()
        run(call)
        durations.append(time.perf_counter() - started)
    return durations


def _throughput(cases, run, *, threads: int, seconds: float) -> float:
    """Calls per second with `threads` client threads calling round-robin for `seconds`."""
    count = [0] * threads
    stop = time.perf_counter() + seconds

    def loop(slot: int) -> None:
        i = slot
        while time.perf_counter() < stop:
            run(cases[i % len(cases)])
            i += 1
            count[slot] += 1

    started = time.perf_counter()
    workers = [threading.Thread(target=loop, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(count) / (time.perf_counter() - started)


def _numeric(case):
    response, expected, unit = case
    return grade_numeric(response, expected, unit=unit)


def _numeric_pool(case):
    response, expected, unit = case
    return grade_in_pool("numeric", response=response, expected=expected, unit=unit)


def _formula(case):
    response, expected, variables = case
    return grade_symbolic_inline(response, _expand_identity(expected), variables=variables)


def _formula_pool(case):
    response, expected, variables = case
    return grade_in_pool(
        "symbolic", response=response, expected=_expand_identity(expected), variables=variables
    )


def run(*, quick: bool = False) -> dict:
    """Every grading figure, as a JSON-ready dict."""
    repeat = 20 if quick else 200
    formula_repeat = 5 if quick else 30
    seconds = 2.0 if quick else 5.0
    pool_size = int(os.environ.get("GRADING_POOL_SIZE", "2"))
    hostile = [(text, "n", ["n"]) for text in _hostile()]
    results: dict = {"pool_size": pool_size, "groups": {}}

    def group(name, cases, call, pool_call, repeat, *, salt=None, detail=False):
        grade_in_pool("numeric", response="1", expected=1.0)  # start the pool, untimed
        calls = _salted(cases, repeat * len(cases), salt, name) if salt else None
        entry = {"cases": len(cases), "distinct_inputs": bool(salt)}
        if call:
            inline = _distinct(calls, call) if calls else _each(cases, call, repeat)[0]
            entry["per_call"] = summarize(inline)
            entry["per_call_throughput_per_s"] = _throughput(
                calls or cases, call, threads=1, seconds=seconds
            )
        pool_calls = calls[: max(len(calls) // 4, 3 * len(cases))] if calls else None
        pooled = _distinct(pool_calls, pool_call) if pool_calls else []
        pooled_cases = []
        if detail or not pool_calls:
            more, pooled_cases = _each(cases, pool_call, max(repeat // 4, 3))
            pooled = pooled or more
        entry["pool"] = summarize(pooled)
        entry["pool_throughput_per_s"] = _throughput(
            calls or cases, pool_call, threads=pool_size, seconds=seconds
        )
        if detail:
            entry["per_case_pool"] = pooled_cases
        results["groups"][name] = entry

    group("numeric", NUMBERS, _numeric, _numeric_pool, repeat, salt=_number_salt)
    group("numeric with units", WITH_UNITS, _numeric, _numeric_pool, repeat, salt=_number_salt)
    group(
        "formula, ordinary",
        ORDINARY,
        _formula,
        _formula_pool,
        formula_repeat,
        salt=_formula_salt,
        detail=True,
    )
    group(
        "formula, hard identities",
        HARD,
        _formula,
        _formula_pool,
        formula_repeat,
        salt=_formula_salt,
        detail=True,
    )
    # Hostile formulas are only ever graded in the pool on the site: that is what is timed.
    group("formula, hostile corpus", hostile, None, _formula_pool, 12, detail=True)
    hostile_numbers = [(text, 3.0, None) for text in _hostile() if not text.isdigit()]
    group("numeric, hostile corpus", hostile_numbers, _numeric, _numeric_pool, 8, detail=True)
    shutdown_pool()
    from bench import coldstart

    results["first_grade"] = coldstart.run(quick=quick)
    return results

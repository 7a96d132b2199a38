"""Inline grading (no pool) is bounded by itself: a size check refuses towers at once, and
every step has its own time box, also on a thread where signals cannot be used.

Each call runs in a daemon thread with a generous external timeout: the test asserts the
outcome, and fails (instead of hanging the suite) when a call never returns.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from quizzes.grading import grade_symbolic

GENEROUS = 30.0
# Burns 0.1 s of this thread's CPU time: a box counts CPU time on a thread (the wall clock on
# the main thread), so a sleep would never make one expire.
SPIN_SOURCE = (
    "import time\n_end = time.thread_time() + 0.1\nwhile time.thread_time() < _end:\n    pass"
)


def spin(seconds: float) -> None:
    """Pass `seconds` of this thread's CPU time without calling any Python function (no trace
    event): the deadline of a box passes, on a thread or on the main thread."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def grade_in_thread(response, expected, variables=("n",)):
    box = {}
    variables = variables if isinstance(variables, dict) else list(variables)

    def run():
        box["grade"] = grade_symbolic(response, expected, variables=variables)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(GENEROUS)
    assert not worker.is_alive(), f"grading {response!r} did not return"
    return box["grade"]


HOSTILE = [
    "exp(exp(exp(exp(n))))",
    "exp(exp(exp(n)))",
    "n^(n^(n^n))",
    "n^n^n",
    "2^2^2^2^n",
    "(n!)!",
    "exp(n!)^n!",
    "10^(10^n)",
    "exp(exp(exp(n/2)))",
]


@pytest.mark.parametrize("response", HOSTILE)
def test_towers_with_variables_are_refused_by_a_size_check(response):
    grade = grade_in_thread(response, "2*n + 1")
    assert grade.status == "invalid"
    assert "too large" in grade.feedback


@pytest.mark.parametrize("expected", HOSTILE[:3])
def test_a_tower_on_the_expected_side_is_a_fault_of_the_question(expected):
    grade = grade_in_thread("n", expected)
    assert grade.status == "invalid" and "question" in grade.feedback


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("exp(exp(n))", "incorrect"),  # huge but evaluable: not refused
        ("exp(n^3)", "incorrect"),
        ("2^n", "incorrect"),
        ("n^(1/(n+1))", "incorrect"),
        ("n! / (n-1)!", "incorrect"),
    ],
)
def test_large_but_evaluable_formulas_are_still_graded(response, status):
    assert grade_in_thread(response, "2*n + 1").status == status


# Sampling now reaches 10^400 (and 10^-12) where a formula's growth allows it, and a min's or
# max's threshold wherever it is: none of that may make a comparison slow or crash, and where
# precision runs out (exp(n) + 1 at n = 10^30) the point is skipped, not misjudged.
LARGE = [
    ("n^n", "n^n + 1", ["n"], "incorrect"),
    ("exp(n)", "exp(n) + 1", ["n"], "incorrect"),
    ("exp(exp(n))", "exp(exp(n)) + 1", ["n"], "incorrect"),
    ("n!", "(n + 1)!/(n + 1)", {"n": "positive integer"}, "correct"),
    ("tan(10^30 n)", "sin(10^30 n)/cos(10^30 n)", ["n"], "correct"),
    ("min(n, 10^400)", "n", ["n"], "incorrect"),
    ("floor(n/10^399)", "0", {"n": "positive integer"}, "incorrect"),
    ("(n + 10^399)^1000", "n", ["n"], "incorrect"),
    ("log(log(n))", "log(log(n)) + 1/10^30", ["n"], "incorrect"),
    ("1/n", "1/n + 10^-12", ["n"], "incorrect"),
    ("exp(1/n)", "exp(1/n) (1 + 10^-40)", ["n"], "incorrect"),
    ("n^(n^2)", "n^(n^2) n/n", ["n"], "correct"),
    ("x^999 + 1", "2 (x^999 + 1)/2", {"x": "real"}, "correct"),
    ("floor(x^3)", "floor(x)^3", {"x": "real"}, "incorrect"),
    ("sqrt(n^2 + 1) - n", "1/(sqrt(n^2 + 1) + n)", ["n"], "correct"),
]


@pytest.mark.parametrize(("response", "expected", "variables", "status"), LARGE)
def test_huge_sampled_magnitudes_are_graded_without_a_crash(response, expected, variables, status):
    assert grade_in_thread(response, expected, variables).status == status


def test_the_time_box_works_on_a_thread_without_signals():
    import time

    from quizzes.grading.timebox import TimeBoxExpired, time_box

    outcome = {}

    def spin():
        import sympy

        started = time.monotonic()
        try:
            with time_box(0.2):
                while True:
                    sympy.Integer(5) * 2  # sympy's own code: where a box may raise
        except TimeBoxExpired:
            outcome["elapsed"] = time.monotonic() - started

    worker = threading.Thread(target=spin, daemon=True)
    worker.start()
    worker.join(GENEROUS)
    assert not worker.is_alive()
    assert "elapsed" in outcome


def test_an_expired_box_raises_past_finalizers_and_is_not_lost():
    """CI printed "Exception ignored in: <generator ...>" with TimeBoxExpired's traceback.

    A box that expired while Python closed a generator or ran a `__del__` raised inside it,
    where nobody can catch it; Python then unset the trace function, so the box was lost and
    the computation ran on. The box now raises at the next ordinary call.
    """

    import sympy

    from quizzes.grading.timebox import TimeBoxExpired, time_box

    unraisable = []
    outcome = {"finalized": []}

    def ordinary():
        return int(sympy.Integer(1) * 1)  # sympy's own code: where a box may raise

    class Holder:
        def __del__(self):
            outcome["finalized"].append(ordinary())

    def run():
        try:
            with time_box(0.05):
                numbers = iter(sympy.preorder_traversal(sympy.Symbol("x") + 1))
                next(numbers)  # a generator of sympy's own, where a box may raise
                holder = Holder()
                spin(0.1)  # no trace event of sympy's: the deadline passes
                del numbers  # the generator is closed now, after the deadline
                del holder  # and __del__ runs, calling an ordinary function
                outcome["went on"] = True
                ordinary()
                outcome["not stopped"] = True
        except TimeBoxExpired:
            outcome["expired"] = True

    previous_hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(GENEROUS)
    finally:
        sys.unraisablehook = previous_hook
    assert not worker.is_alive()
    assert [hook.exc_type for hook in unraisable] == []
    assert outcome == {"finalized": [1], "went on": True, "expired": True}


def test_an_expired_box_lets_an_import_finish_and_raises_after_it(tmp_path, monkeypatch):
    """Load runs hung a web worker: threads grading inline waited forever on a module lock of
    sympy's lazy imports, held by a thread whose box had raised inside the import system.
    Now an import started in an expired box finishes, and the box raises after it."""

    from quizzes.grading.timebox import TimeBoxExpired, time_box

    (tmp_path / "slow_to_import.py").write_text(
        f"import sympy\n{SPIN_SOURCE}\nVALUE = int(sympy.Integer(2) + 1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    outcome = {}

    def run():
        import sympy

        try:
            with time_box(0.05):
                import slow_to_import  # its body outlives the box

                outcome["imported"] = slow_to_import.VALUE
                sympy.Integer(1) + 1
                outcome["not stopped"] = True
        except TimeBoxExpired:
            outcome["expired"] = True

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(GENEROUS)
    assert not worker.is_alive()
    assert outcome == {"imported": 3, "expired": True}
    sys.modules.pop("slow_to_import", None)


def test_the_signal_box_raises_after_an_import_too(tmp_path, monkeypatch):
    from quizzes.grading.timebox import TimeBoxExpired, time_box

    (tmp_path / "slow_on_main.py").write_text(
        f"import sympy\n{SPIN_SOURCE}\nVALUE = int(sympy.Integer(2) + 1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import sympy

    outcome = {}
    try:
        with time_box(0.05):
            import slow_on_main

            outcome["imported"] = slow_on_main.VALUE
            for _ in range(100_000):
                sympy.Integer(1) + 1
            outcome["not stopped"] = True
    except TimeBoxExpired:
        outcome["expired"] = True
    sys.modules.pop("slow_on_main", None)
    assert outcome == {"imported": 3, "expired": True}


@pytest.mark.parametrize("on_thread", [True, False], ids=["trace box", "signal box"])
@pytest.mark.parametrize("setting", ["precision", "evaluate"])
def test_a_box_expiring_inside_a_settings_block_leaves_the_settings_as_they_were(
    on_thread, setting
):
    """The reviewer's finding: a box that expired under `mpmath.workdps(60)` or
    `sympy.evaluate(False)` raised in the `__exit__` that restores them, and left mpmath's
    precision at 60 digits for the process, or sympy unevaluating for the thread."""

    import mpmath
    import sympy
    from sympy.core.parameters import global_parameters

    from quizzes.grading.timebox import TimeBoxExpired, time_box

    block = mpmath.workdps(60) if setting == "precision" else sympy.evaluate(False)
    outcome = {}

    def run():
        try:
            with time_box(0.05):
                with block:
                    spin(0.1)  # the deadline passes inside; the next call is __exit__'s
                for _ in range(100_000):
                    sympy.Integer(1) + 1
        except TimeBoxExpired:
            outcome["expired"] = True
        outcome["dps"], outcome["evaluate"] = mpmath.mp.dps, global_parameters.evaluate

    if on_thread:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(GENEROUS)
        assert not worker.is_alive()
    else:
        run()
    assert outcome == {"expired": True, "dps": 15, "evaluate": True}


def test_the_signal_box_fires_in_a_program_run_with_python_m(tmp_path):
    """`<frozen runpy>` sits under every frame of a `python -m` program; the box took it for
    an import under way and never fired."""
    import subprocess

    (tmp_path / "boxed_main.py").write_text(
        "import time, sympy\n"
        "from quizzes.grading.timebox import TimeBoxExpired, time_box\n"
        "started = time.monotonic()\n"
        "try:\n"
        "    with time_box(0.05):\n"
        "        while time.monotonic() - started < 5:\n"
        "            sympy.Integer(1) + 1\n"
        "    print('not stopped')\n"
        "except TimeBoxExpired:\n"
        "    print('expired after', round(time.monotonic() - started, 2))\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{root}"}
    done = subprocess.run(
        [sys.executable, "-m", "boxed_main"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.startswith("expired after"), done.stdout + done.stderr
    assert float(done.stdout.split()[-1]) < 2.0


def test_a_swallowing_except_exception_cannot_hide_an_expired_box():
    from quizzes.grading.timebox import TimeBoxExpired

    assert not issubclass(TimeBoxExpired, Exception)

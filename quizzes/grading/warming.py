"""What the grading pool preloads and warms with: the graders, and a corpus of the book's
usual answers, so the first real answer a worker grades finds sympy's functions imported and its
assumption and simplification caches primed.  `quizzes.grading` configures the pool with these;
the pool itself knows no grader."""

from __future__ import annotations

# (response, expected, variables): the book's usual shapes (products, quotients, powers, logs,
# roots, factorials, absolute values) and each variable domain.
WARM_UP = (
    ("2 n m k", "2*n*m*k", ["n", "m", "k"]),
    ("n(n+1)/2", "n^2/2 + n/2", ["n"]),
    ("P*b/B", "b P / (2 B)", ["P", "b", "B"]),
    ("log2(n) + sqrt(n^2)", "log(n)/log(2) + n", ["n"]),
    ("exp(2 log n)", "n^3", ["n"]),
    ("(n+1)!/n!", "n+1", {"n": "integer"}),
    ("|x| + sin(x)^2 + cos(x)^2", "|x| + 1", {"x": "real"}),
    ("0.5 s (m k + k n)", "s*(m k + n k)/2", ["m", "n", "k", "s"]),
    ("2^n", "n^2", ["n"]),
    ("1/2n", "n/2", ["n"]),
)

# What the fork server imports before it forks any worker: the graders, and a module whose
# import warms sympy once, so that every worker starts from warm caches.
PRELOAD = ("quizzes.grading.formula", "quizzes.grading.warming", "quizzes.grading.forkserver_warm")


def warm_up() -> None:
    """Grade `WARM_UP` (and a few numbers with units) in this process; results are discarded."""
    from .formula.grade import grade_symbolic_inline
    from .numeric import grade_numeric

    for response, expected, variables in WARM_UP:
        try:
            grade_symbolic_inline(response, expected, variables=variables)
        except Exception:  # noqa: BLE001, S112 - warming is best effort; grading reports its own
            continue
    for response, unit in (("3.35 TB/s", "B/s"), ("80 GiB", "B"), ("2^10", None)):
        try:
            grade_numeric(response, 1.0, unit=unit)
        except Exception:  # noqa: BLE001, S112
            continue

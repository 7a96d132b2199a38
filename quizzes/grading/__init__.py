"""Pure-Python grading of responses (Contract 2): numbers with units, and formulas.

Dependencies point one way: this package imports `content.physics.units` (the one unit
registry), sympy and mpmath, never Django or the apps.  Modules: `numbers` (reading numbers
exactly), `quantities` (units), `numeric` (grade_numeric), `diagnosis` (generic slips),
`formula` (parser and equivalence behind grade_symbolic), `pool` (a pure executor with hard
time and memory limits: it runs what it is given), `warming` (what the pool preloads and warms
with), `timebox` (soft limits inside a worker).  `GRADERS` names the graders for the answer
kinds (``quizzes.engine.kinds``), which say which one runs and whether in the pool.
"""

from . import pool, warming
from .formula import FormulaPreview, grade_symbolic, parse_formula, preview_formula
from .formula.grade import grade_symbolic_inline
from .numbers import parse_number
from .numeric import grade_numeric
from .pool import run_bounded, shutdown_pool, start_pool
from .quantities import ParsedQuantity, ParsedUnit, parse_quantity, parse_unit
from .results import CommonError, Grade, ResponseError

# The graders by the name an answer kind gives (`AnswerKind.grader`).
GRADERS = {"numeric": grade_numeric, "symbolic": grade_symbolic_inline}

pool.configure(preload=warming.PRELOAD, warm_up=warming.warm_up)


def grade_in_pool(name: str, /, *, timeout: float | None = None, **kwargs) -> Grade:
    """Grade with the grader called `name` in a worker process, under the pool's limits."""
    if name not in GRADERS:
        raise ValueError(f"grader must be one of {', '.join(GRADERS)}, not {name!r}")
    return run_bounded(GRADERS[name], timeout, inline_first=True, **kwargs)


__all__ = [
    "GRADERS",
    "CommonError",
    "FormulaPreview",
    "Grade",
    "ParsedQuantity",
    "ParsedUnit",
    "ResponseError",
    "grade_in_pool",
    "grade_numeric",
    "grade_symbolic",
    "parse_formula",
    "parse_number",
    "parse_quantity",
    "parse_unit",
    "preview_formula",
    "run_bounded",
    "shutdown_pool",
    "start_pool",
]

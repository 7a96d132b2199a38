"""Pure-Python grading of responses (Contract 2): numbers with units, and formulas.

Dependencies point one way: this package imports `content.physics.units` (the one unit
registry), sympy and mpmath, never Django or the apps.  Modules: `numbers` (reading numbers
exactly), `quantities` (units), `numeric` (grade_numeric), `diagnosis` (generic slips),
`formula` (parser and equivalence behind grade_symbolic), `pool` (hard time and memory
limits), `timebox` (soft limits inside a worker).
"""

from .formula import FormulaPreview, grade_symbolic, parse_formula, preview_formula
from .numbers import parse_number
from .numeric import grade_numeric
from .pool import grade_in_pool, shutdown_pool, start_pool
from .quantities import ParsedQuantity, ParsedUnit, parse_quantity, parse_unit
from .results import CommonError, Grade, ResponseError

__all__ = [
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
    "shutdown_pool",
    "start_pool",
]

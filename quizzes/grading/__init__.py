"""Pure-Python grading of responses (Contract 2): numbers with units, and formulas.

Dependencies point one way: this package imports `content.physics.units` (the one unit
registry) and sympy/mpmath, never Django or the apps.  Modules: `numbers` (reading numbers
exactly), `quantities` (units), `numeric` (grade_numeric), `diagnosis` (generic slips),
`formula` (parser and equivalence for grade_symbolic), `pool` (hard time and memory limits).
"""

from .numbers import parse_number
from .numeric import grade_numeric
from .quantities import ParsedQuantity, parse_quantity
from .results import CommonError, Grade, ResponseError

__all__ = [
    "CommonError",
    "Grade",
    "ParsedQuantity",
    "ResponseError",
    "grade_numeric",
    "parse_number",
    "parse_quantity",
]

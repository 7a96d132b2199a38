"""Formula answers: our own tokenizer and parser, sympy construction, equivalence in layers.

`lexer` (tokens and vocabulary) -> `parser` (syntax tree and size limits) -> `build` (sympy
objects, renderings) -> `equivalence` (algebra, numbers, tie-breaker) -> `grade`.
No student text ever reaches eval, sympify or parse_expr.
"""

from .grade import (
    FormulaPreview,
    ParsedFormula,
    grade_symbolic,
    grade_symbolic_inline,
    parse_formula,
    preview_formula,
)

__all__ = [
    "FormulaPreview",
    "ParsedFormula",
    "grade_symbolic",
    "grade_symbolic_inline",
    "parse_formula",
    "preview_formula",
]

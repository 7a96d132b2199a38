"""Grading formula answers (Contract 2, formulas) and previewing how a formula was read.

`grade_symbolic` is the public entry: unless the pool says to run inline (inside a worker, or
``GRADING_INLINE=1`` for tests: `pool.runs_inline`) it sends the call to the worker pool, which
enforces the hard 2-second and memory limits; `grade_symbolic_inline` does the work.
`preview_formula` only parses (fast, bounded by the parser's limits) and never decides
equivalence, so it runs in the calling process.

Order of checks: read the response (invalid on any refusal), equivalence with the expected
formula (correct), the template's common errors (incorrect with their code), a constant factor
between response and answer (incorrect, diagnosis ``constant-factor``), else incorrect.  An
answer that no layer of `equivalence` can decide is "invalid" and asks for another form, so a
student is never marked wrong because the checker gave up, nor right because sampling could
not reach where the formulas part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy

from .. import pool
from ..results import CommonError, Grade, ResponseError, correct, incorrect, invalid
from ..text import normalise
from .build import domains_of, make_symbols, render_latex, render_plain, to_sympy
from .counterexample import counterexample
from .equivalence import ONE_SIDED, constant_ratio, equivalent
from .growth import check_growth, reach
from .lexer import tokenize
from .parser import Node, Parser
from .serial import Busy, sympy_turn

MAX_FORMULA_LENGTH = 500


@dataclass(frozen=True)
class FormulaPreview:
    """How a formula was read: `ok`, a plain and a LaTeX rendering, or the `error` message."""

    ok: bool
    interpreted: str | None = None
    latex: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class ParsedFormula:
    node: Node
    expr: sympy.Expr
    plain: str
    latex: str


def parse_formula(text: object, variables: Sequence[str] | Mapping[str, str]) -> ParsedFormula:
    """Read a formula in the listed variables; raise ResponseError with a student message."""
    domains = domains_of(variables)
    cleaned = normalise(text, limit=MAX_FORMULA_LENGTH, what="formula")
    node = Parser(tokenize(cleaned, frozenset(domains))).parse()
    check_growth(node, domains)
    try:
        with sympy_turn():
            expr = to_sympy(node, make_symbols(domains))
            infinite = expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)
    except Busy:
        raise ResponseError(pool.BUSY) from None
    if infinite:
        raise ResponseError("This formula divides by zero somewhere; check the denominators.")
    return ParsedFormula(node, expr, render_plain(node), render_latex(node))


def preview_formula(response: str, variables: Sequence[str] | Mapping[str, str]) -> FormulaPreview:
    try:
        parsed = parse_formula(response, variables)
    except ResponseError as error:
        return FormulaPreview(False, error=error.message)
    return FormulaPreview(True, parsed.plain, parsed.latex)


def _factor_feedback(ratio) -> str:
    if ratio == -1:
        return "Your formula has the opposite sign of the expected one."
    if ratio.denominator == 1:
        return f"Your formula is {ratio.numerator}× the expected one: check a constant factor."
    if ratio.numerator == 1:
        return (
            f"Your formula is 1/{ratio.denominator} of the expected one: a constant factor of "
            f"{ratio.denominator} is missing."
        )
    return f"Your formula is {ratio} times the expected one: check the constant factors."


def question_fault(what: str) -> str:
    """Feedback for a fault of the question (its expected formula or variables), not the answer."""
    return (
        f"This part cannot be graded: {what}. The fault is in the question, not in your answer; "
        "please report it."
    )


def check_expected(expected: object, variables: Sequence[str] | Mapping[str, str]) -> str | None:
    """Why an author's expected formula cannot be graded against, or None when it can.

    The message is for the author (the template's validation shows it); students only ever see
    it wrapped in `question_fault`.
    """
    try:
        parse_formula(expected, variables)
    except ResponseError as error:
        return f"the expected formula {str(expected)[:80]!r} cannot be read ({error.message})"
    except (ValueError, TypeError) as error:
        return f"its variables cannot be used ({error})"
    return None


def grade_symbolic_inline(
    response: str,
    expected: str,
    *,
    variables: Sequence[str] | Mapping[str, str],
    common_errors: Sequence[CommonError] = (),
) -> Grade:
    """Grade in this process; never raises (see the module docstring for the order of checks).

    A fault of the question (an expected formula the grammar cannot read, bad variables) is an
    "invalid" grade whose feedback names the fault; anything else that escapes a layer (a sympy
    internal error on a strange input) is "invalid" asking for a simpler form, never a crash.
    """
    try:
        return _grade(response, expected, variables, common_errors)
    except Exception:  # noqa: BLE001 - a student must get a grade, never a stack trace
        return invalid(UNCHECKABLE)


UNCHECKABLE = "This formula could not be checked; write it in a simpler form."
UNDECIDED = "This formula could not be checked in the time allowed; write it in a simpler form."
ONE_SIDED_FEEDBACK = (
    "This formula could not be checked: the points the checker can try never reach every case "
    "of a min or max. Write it in another form."
)


def _grade(response, expected, variables, common_errors) -> Grade:
    if check_expected(expected, variables) is not None:
        # The author's detail (check_expected) names the expected formula: never shown here.
        return invalid(question_fault("its expected formula or its variables cannot be read"))
    answer = parse_formula(expected, variables)
    try:
        parsed = parse_formula(response, variables)
    except ResponseError as error:
        return invalid(error.message)
    shown = {"interpreted": parsed.plain}
    domains = domains_of(variables)
    seed = f"{expected}|{sorted(domains.items())}"
    verdict = equivalent(parsed.expr, answer.expr, seed, reach([parsed.node, answer.node], domains))
    if verdict.equal is True:
        return correct(**shown)
    for error in common_errors:
        if not isinstance(error.value, str):
            continue
        try:
            model = parse_formula(error.value, variables)
        except ResponseError:
            continue  # a common error the grammar cannot read is reported by validation
        near = reach([parsed.node, model.node], domains)
        if equivalent(parsed.expr, model.expr, seed, near).equal is True:
            return incorrect(error.feedback, error.code, **shown)
    if verdict.equal is None:
        return invalid(ONE_SIDED_FEEDBACK if verdict.reason == ONE_SIDED else UNDECIDED, **shown)
    ratio = constant_ratio(parsed.expr, answer.expr, seed)
    shown["counterexample"] = counterexample(
        parsed.expr, answer.expr, domains, ratio, fallback=verdict.point
    )
    if ratio is not None and ratio != 1:
        return incorrect(_factor_feedback(ratio), "constant-factor", **shown)
    return incorrect("This formula is not equivalent to the expected one.", **shown)


def grade_symbolic(
    response: str,
    expected: str,
    *,
    variables: Sequence[str] | Mapping[str, str],
    common_errors: Sequence[CommonError] = (),
) -> Grade:
    """Grade a formula; runs in the worker pool unless `pool.runs_inline()`."""
    if pool.runs_inline():
        return grade_symbolic_inline(
            response, expected, variables=variables, common_errors=common_errors
        )
    return pool.run_bounded(
        grade_symbolic_inline,
        inline_first=True,
        response=response,
        expected=expected,
        variables=variables,
        common_errors=tuple(common_errors),
    )

"""An answer formula in its simplest form for the answer key: "b/2", never "2·b/4".

Formula answers are written with live values put in ("2 * b / {{ dtype(dt).bytes }}"), so the
key would show the constants uncombined.  The formula is read by the grader's own parser (no
eval), factored by sympy within a small time box, and printed as LaTeX; a formula that cannot
be simplified in time is shown as written.
"""

from __future__ import annotations

SIMPLIFY_SECONDS = 0.3


def simplified_latex(formula: str, variables: tuple[str, ...]) -> str | None:
    """LaTeX of `formula` in its simplest form, or None (unreadable, or out of time)."""
    import sympy

    from quizzes.grading import ResponseError, parse_formula
    from quizzes.grading.timebox import TimeBoxExpired, time_box

    try:
        parsed = parse_formula(formula, list(variables))
    except (ResponseError, ValueError, TypeError):
        return None
    try:
        with time_box(SIMPLIFY_SECONDS):
            simple = sympy.factor(sympy.cancel(parsed.expr))
            return sympy.latex(simple)
    except TimeBoxExpired:
        return None
    except Exception:  # noqa: BLE001 - sympy may give up on a form; the key shows it as written
        return None

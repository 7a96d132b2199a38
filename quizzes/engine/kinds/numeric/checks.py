"""Validation of a numeric part in one variant: its answer finite and plausible, graded correct
in each of its spellings, and its common errors apart from the answer and from each other."""

from __future__ import annotations

import math

from content.expressions import ExpressionError
from quizzes.engine.kinds.toolbox import finite_and_plausible
from quizzes.engine.namespace import names_for
from quizzes.engine.units import alternative_unit


def check_part(checks, part, variant, seed: int, numeric_kwargs) -> None:
    settings = part.settings
    answer = variant.answers[part.id]
    if not finite_and_plausible(checks, part.id, answer, settings.plausible, seed):
        return
    _check_own_answer(checks, seed, part, variant, numeric_kwargs)
    errors = variant.common_errors.get(part.id, {})
    for code, value in errors.items():
        if _coincides(settings, code, value, answer):
            checks.failures.add(
                "common-error",
                f"'{code}' gives {value:.4g}, which the grader cannot "
                f"tell from the answer {answer:.4g}",
                seed,
                part.id,
                fold=code,
            )
    _check_errors_apart(part, errors, seed, checks.failures)


def _check_errors_apart(part, errors: dict[str, float], seed, failures) -> None:
    """Two slips whose values coincide cannot both be diagnosed: the grader names the first."""
    codes = list(errors)
    for i, first in enumerate(codes):
        for second in codes[i + 1 :]:
            if _errors_coincide(part.settings, first, errors[first], second, errors[second]):
                failures.add(
                    "common-error",
                    f"'{first}' gives {errors[first]:.4g} and '{second}' gives "
                    f"{errors[second]:.4g}, which the grader cannot tell apart; make one of "
                    "them None in such variants",
                    seed,
                    part.id,
                    fold=f"{first}|{second}",
                )


def _error_rtol(settings, code: str) -> float:
    spec = next(s for s in settings.common_errors if s.code == code)
    return spec.rtol if spec.rtol is not None else settings.rtol


def _errors_coincide(settings, first: str, a: float, second: str, b: float) -> bool:
    rtol = max(_error_rtol(settings, first), _error_rtol(settings, second))
    return abs(a - b) <= max(rtol * max(abs(a), abs(b)), settings.atol)


def _check_own_answer(checks, seed, part, variant, numeric_kwargs) -> None:
    """The correct answer, in each of its spellings, must grade as correct."""
    answer = variant.answers[part.id]
    names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
    try:
        # The common errors' feedback is rendered once for all the spellings.
        kwargs = numeric_kwargs(
            checks.template, part, "", answer, names, variant.common_errors.get(part.id, {})
        )
    except ExpressionError:
        return  # the feedback that failed to render is reported with the rendering checks
    for text in spellings(part.settings, answer):
        grade = checks.grade(seed, part, "numeric", **{**kwargs, "response": text})
        if grade is not None and grade.status != "correct":
            checks.failures.add(
                "grading",
                f"its own answer written {text!r} grades {grade.status}: {grade.feedback}",
                seed,
                part.id,
                fold=f"own-answer {grade.status} {grade.diagnosis}",
            )


def spellings(settings, answer: float) -> list[str]:
    """The correct answer written canonically and, where possible, in another unit."""
    from content.physics.formatting import format_number, format_quantity

    unit = settings.unit
    if settings.decimals is not None:
        return [f"{answer:.{settings.decimals}f}" + (f" {unit}" if unit else "")]
    rtol = settings.rtol
    sig = settings.sigfigs or max(3, math.ceil(-math.log10(rtol)) + 1 if rtol > 0 else 12)
    sig = min(sig, 15)
    if not unit:
        return [format_number(answer, sig), f"{answer:.{sig - 1}e}"]
    if unit in ("USD", "$"):
        # Prices print in whole cents, which can be coarser than the tolerance: use figures.
        return [f"${format_number(answer, sig)}", f"{format_number(answer, sig)} USD"]
    canonical = format_quantity(answer, unit, sig=sig)
    found = [canonical]
    shown_unit = canonical.partition(" ")[2]
    alternative = alternative_unit(unit, answer, avoid=shown_unit)
    if alternative is not None:
        other, value = alternative
        found.append(f"{format_number(value, sig)} {other}")
    return found


def _coincides(settings, code: str, value: float, answer: float) -> bool:
    rtol = _error_rtol(settings, code)
    if abs(value - answer) <= max(rtol * abs(answer), settings.atol):
        return True
    factor = settings.factor
    if factor and value != 0 and answer != 0 and (value > 0) == (answer > 0):
        return max(value / answer, answer / value) <= factor
    return False

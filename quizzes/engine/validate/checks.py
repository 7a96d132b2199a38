"""The checks of one part of one variant that its kind asks for (``Checks``, handed to each
kind's ``validate``): an answer finite and plausible, graded correct in each of its spellings,
common errors apart from the answer and from each other, and a formula graded against itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from content.expressions import ExpressionError
from quizzes.engine import kinds
from quizzes.engine.kinds.numeric import numeric_kwargs
from quizzes.engine.model import Part, Template
from quizzes.engine.namespace import names_for
from quizzes.engine.units import alternative_unit
from quizzes.engine.validate.report import Collector
from quizzes.engine.variants import Variant


class FormulaChecks:
    """Each formula part's answer graded against itself, once per distinct answer text.

    The grade of a formula depends only on its text and variables, so variants that share an
    answer share one grading call.  A part whose answer the grader could not check (it raised,
    or ran out of time or memory in the pool) is not graded again on later seeds: a hostile
    formula costs one time limit, not one per seed.
    """

    def __init__(self, grade_fn, failures: Collector) -> None:
        self.grade_fn = grade_fn
        self.failures = failures
        self.graded: dict[tuple[str, str], bool] = {}
        self.unchecked: set[str] = set()

    def check(self, part: Part, answer: str, seed: int) -> None:
        if part.id in self.unchecked or (part.id, answer) in self.graded:
            return
        grade = _grade(
            self.grade_fn,
            self.failures,
            seed,
            part,
            kinds.kind_for(part).grader,
            response=answer,
            expected=answer,
            variables=dict(part.variables),
        )
        self.graded[part.id, answer] = grade is not None and grade.status == "correct"
        if grade is None or grade.status == "invalid":
            self.unchecked.add(part.id)
        if grade is not None and grade.status != "correct":
            from quizzes.grading.formula.grade import check_expected

            # the grader tells a student only that the question is at fault; the author
            # gets the reason
            detail = check_expected(answer, dict(part.variables)) or grade.feedback
            self.failures.add(
                "grading",
                f"the answer {answer!r} does not grade as correct: {detail}",
                seed,
                part.id,
            )


@dataclass
class Checks:
    """Validation's toolbox, handed to each kind's ``validate``: the failures collected so far,
    the grader runner, the formula checks shared across seeds and the checks of a number."""

    template: Template
    failures: Collector
    grade_fn: Callable[..., Any]
    formulas: FormulaChecks

    def finite_and_plausible(self, part: Part, answer: float, seed: int) -> bool:
        """Report an answer that is not finite or outside the part's ``plausible``; False
        when it is not finite (nothing else can be checked)."""
        return _finite_and_plausible(part, answer, seed, self.failures)

    def numeric_part(self, part: Part, variant: Variant, seed: int) -> None:
        _check_part(self.template, part, variant, seed, self.failures, self.grade_fn)


def _finite_and_plausible(part: Part, answer: float, seed: int, failures) -> bool:
    if not math.isfinite(answer):
        failures.add("answer", f"the answer is not finite ({answer})", seed, part.id)
        return False
    low, high = part.plausible or (-math.inf, math.inf)
    if not low <= answer <= high:
        failures.add(
            "plausible",
            f"answer {answer:.4g} is outside plausible [{low:.4g}, {high:.4g}]",
            seed,
            part.id,
            fold="plausible",
        )
    return True


def _check_part(template, part: Part, variant, seed, failures, grade_fn) -> None:
    answer = variant.answers[part.id]
    if not _finite_and_plausible(part, answer, seed, failures):
        return
    _check_own_answer(grade_fn, failures, seed, part, variant, template)
    errors = variant.common_errors.get(part.id, {})
    for code, value in errors.items():
        if _coincides(part, code, value, answer):
            failures.add(
                "common-error",
                f"'{code}' gives {value:.4g}, which the grader cannot "
                f"tell from the answer {answer:.4g}",
                seed,
                part.id,
                fold=code,
            )
    _check_errors_apart(part, errors, seed, failures)


def _check_errors_apart(part: Part, errors: dict[str, float], seed, failures) -> None:
    """Two slips whose values coincide cannot both be diagnosed: the grader names the first."""
    codes = list(errors)
    for i, first in enumerate(codes):
        for second in codes[i + 1 :]:
            if _errors_coincide(part, first, errors[first], second, errors[second]):
                failures.add(
                    "common-error",
                    f"'{first}' gives {errors[first]:.4g} and '{second}' gives "
                    f"{errors[second]:.4g}, which the grader cannot tell apart; make one of "
                    "them None in such variants",
                    seed,
                    part.id,
                    fold=f"{first}|{second}",
                )


def _error_rtol(part: Part, code: str) -> float:
    spec = next(s for s in part.common_errors if s.code == code)
    return spec.rtol if spec.rtol is not None else part.rtol


def _errors_coincide(part: Part, first: str, a: float, second: str, b: float) -> bool:
    rtol = max(_error_rtol(part, first), _error_rtol(part, second))
    return abs(a - b) <= max(rtol * max(abs(a), abs(b)), part.atol)


def _check_own_answer(grade_fn, failures, seed, part, variant, template) -> None:
    """The correct answer, in each of its spellings, must grade as correct."""
    answer = variant.answers[part.id]
    names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
    try:
        # The common errors' feedback is rendered once for all the spellings.
        kwargs = numeric_kwargs(
            template, part, "", answer, names, variant.common_errors.get(part.id, {})
        )
    except ExpressionError:
        return  # the feedback that failed to render is reported by _check_rendering
    for text in answer_spellings(part, answer):
        grader = kinds.kind_for(part).grader
        grade = _grade(grade_fn, failures, seed, part, grader, **{**kwargs, "response": text})
        if grade is not None and grade.status != "correct":
            failures.add(
                "grading",
                f"its own answer written {text!r} grades {grade.status}: {grade.feedback}",
                seed,
                part.id,
                fold=f"own-answer {grade.status} {grade.diagnosis}",
            )


def _grade(grade_fn, failures, seed, part, kind, **kwargs):
    try:
        return grade_fn(kind, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a grader crash is a validation failure to report
        failures.add("grading", f"the grader raised {type(exc).__name__}: {exc}", seed, part.id)
        return None


def answer_spellings(part: Part, answer: float) -> list[str]:
    """The correct answer written canonically and, where possible, in another unit."""
    from content.physics.formatting import format_number, format_quantity

    if part.decimals is not None:
        return [f"{answer:.{part.decimals}f}" + (f" {part.unit}" if part.unit else "")]
    sig = part.sigfigs or max(3, math.ceil(-math.log10(part.rtol)) + 1 if part.rtol > 0 else 12)
    sig = min(sig, 15)
    if not part.unit:
        return [format_number(answer, sig), f"{answer:.{sig - 1}e}"]
    if part.unit in ("USD", "$"):
        # Prices print in whole cents, which can be coarser than the tolerance: use figures.
        return [f"${format_number(answer, sig)}", f"{format_number(answer, sig)} USD"]
    canonical = format_quantity(answer, part.unit, sig=sig)
    spellings = [canonical]
    shown_unit = canonical.partition(" ")[2]
    alternative = alternative_unit(part.unit, answer, avoid=shown_unit)
    if alternative is not None:
        unit, value = alternative
        spellings.append(f"{format_number(value, sig)} {unit}")
    return spellings


def _coincides(part: Part, code: str, value: float, answer: float) -> bool:
    rtol = _error_rtol(part, code)
    if abs(value - answer) <= max(rtol * abs(answer), part.atol):
        return True
    if part.factor and value != 0 and answer != 0 and (value > 0) == (answer > 0):
        return max(value / answer, answer / value) <= part.factor
    return False

"""The numeric kind: a number with a unit, graded by ``quizzes.grading.grade_numeric``.

A part that ``uses`` an earlier one is graded again against the student's own earlier value
when it misses the correct answer (error carried forward).  A readable answer of the wrong
dimension is a format problem and costs no try (`free_of_charge`).  Its known slips
(``common_errors``) are computed per variant and named when a student makes one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from content.expressions import evaluate
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, NumberScale, Rendered
from quizzes.engine.kinds.numeric.checks import check_part
from quizzes.engine.kinds.numeric.readback import read_back
from quizzes.engine.kinds.toolbox import (
    demo_quantity,
    number_value,
    parse_number_fields,
    parse_plausible,
    quantity_text,
    unit_hint,
)
from quizzes.engine.model import CommonErrorSpec, Expr
from quizzes.engine.namespace import names_for
from quizzes.engine.render import render_text
from quizzes.grading.numbers import MAX_NUMBER_LENGTH

WRONG_DIMENSION = "wrong-dimension"


@dataclass(frozen=True)
class NumericSettings:
    answer: Expr | None
    unit: str | None = None
    rtol: float = 0.01
    atol: float = 0.0
    sigfigs: int | None = None
    decimals: int | None = None
    factor: float | None = None
    plausible: tuple[float, float] | None = None
    common_errors: tuple[CommonErrorSpec, ...] = ()


@register
class NumericKind(AnswerKind):
    name = "numeric"
    label = "Numeric answer with a unit"
    fields = tuple("answer unit rtol atol sigfigs decimals factor plausible common_errors".split())
    noun = "a number"
    max_length = MAX_NUMBER_LENGTH
    grader = "numeric"
    gives_value = True

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> NumericSettings:
        fields = parse_number_fields(
            rules, loc, answer_names, what="a numeric part", extra=("rtol", "atol", "factor")
        )
        for key in ("sigfigs", "decimals"):
            value = rules.number(loc.get(key), key, integer=True)
            if value is not None:
                fields[key] = value
        if "sigfigs" in fields and "decimals" in fields:
            rules.issue(loc.get("decimals"), "decimals", "give sigfigs or decimals, not both")
        fields.update(parse_plausible(rules, loc, "a numeric part"))
        fields["common_errors"] = rules.parse_common_errors(loc.get("common_errors"), answer_names)
        return NumericSettings(**fields)

    def answer(self, template, part, names) -> float:
        return number_value(template, part.settings.answer, names, "a numeric answer")

    def common_errors(self, part) -> tuple[CommonErrorSpec, ...]:
        return part.settings.common_errors

    def validate(self, checks, part, variant, seed) -> None:
        check_part(checks, part, variant, seed, numeric_kwargs)

    def number_scale(self, part) -> NumberScale:
        return NumberScale(part.settings.unit)

    def render(self, template, part, variant, names) -> Rendered:
        return Rendered({}, {"unit_hint": unit_hint(part.settings.unit)})

    def render_feedback(self, template, part, variant) -> None:
        names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
        for spec in part.settings.common_errors:
            render_text(template, spec.feedback, names)

    def rendered_texts(self, part):
        return tuple(spec.feedback for spec in part.settings.common_errors)

    # -- answering ----------------------------------------------------------------------------

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        text = response if isinstance(response, str) else " ".join(response)
        names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
        kwargs = numeric_kwargs(
            template,
            part,
            text,
            variant.answers[part.id],
            names,
            variant.common_errors.get(part.id, {}),
        )
        grade = grade_fn(self.grader, **kwargs)
        if grade.status != "incorrect":
            return grade
        if grade.diagnosis == WRONG_DIMENSION:
            return free_of_charge(grade)
        return self._carried_forward(template, variant, part, text, earlier, grade_fn) or grade

    def _carried_forward(self, template, variant, part, response, earlier, grade_fn):
        """A full-marks grade if `response` is right given the student's own earlier values."""
        used = {u: earlier[u] for u in part.uses if u in earlier and earlier[u] is not None}
        if not used or all(used[u] == variant.answers[u] for u in used):
            return None
        values = {u: used.get(u, variant.answers[u]) for u in part.uses}
        names = names_for(variant.params, values)
        try:
            expected = self.answer(template, part, names)
        except Exception:  # noqa: BLE001 - a student's value may make the answer undefined
            return None
        common = {
            spec.code: value
            for spec in part.settings.common_errors
            if (value := _safe_value(template, spec.value, names)) is not None
        }
        kwargs = numeric_kwargs(template, part, response, expected, names, common)
        grade = grade_fn(self.grader, **kwargs)
        if grade.status != "correct":
            return None
        which = ", ".join(f"({u})" for u in used)
        note = f"Correct, using your own answer to part {which} (error carried forward)."
        return dataclasses.replace(grade, feedback=note)

    def read_back(self, part, raw) -> tuple[bool, str]:
        return read_back(part.settings.unit, raw)

    # -- showing ------------------------------------------------------------------------------

    def answer_text(self, part, answer, *, sig=None) -> str:
        if not isinstance(answer, (int, float)) or isinstance(answer, bool):
            return super().answer_text(part, answer)
        return quantity_text(float(answer), part.settings.unit, sig=sig)

    def demo_answer(self, part, answer, common, right, rng):
        if not isinstance(answer, (int, float)):
            return super().demo_answer(part, answer, common, right, rng)
        diagnosis = ""
        value = float(answer)
        if not right:
            if common and rng.random() < 0.7:
                diagnosis = rng.choice(sorted(common))
                value = float(common[diagnosis])
            else:
                value = value * rng.choice([0.5, 0.7, 1.4, 2.0, 3.0])
        return demo_quantity(value, part.settings.unit), value, diagnosis


def free_of_charge(grade):
    """A wrong dimension (``12 GB`` where FLOP/B is asked) as a format problem: the grader's
    "incorrect" (Contract 2) becomes "invalid" here, which costs the student no try, keeping
    its message (it names the expected dimension) and its diagnosis (so the per-student budget
    of free answers counts it, and the misconception statistics, which read only incorrect
    answers, do not)."""
    return dataclasses.replace(grade, status="invalid", score=0.0)


def numeric_kwargs(template, part, response: str, expected: float, names, common_values):
    """The keyword arguments of ``grade_numeric`` for this part."""
    from quizzes.grading import CommonError

    settings = part.settings
    common = tuple(
        CommonError(
            spec.code,
            common_values[spec.code],
            render_text(template, spec.feedback, names),
            spec.rtol,
        )
        for spec in settings.common_errors
        if spec.code in common_values
    )
    return {
        "response": response,
        "expected": expected,
        "unit": settings.unit,
        "rtol": settings.rtol,
        "atol": settings.atol,
        "sigfigs": settings.sigfigs,
        "decimals": settings.decimals,
        "factor": settings.factor,
        "common_errors": common,
    }


def _safe_value(template, expr, names) -> float | None:
    try:
        value = evaluate(expr.text, names, source=template.source, line=expr.line)
    except Exception:  # noqa: BLE001 - a common error that is undefined is simply skipped
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


__all__ = ["WRONG_DIMENSION", "NumericSettings", "free_of_charge", "numeric_kwargs"]

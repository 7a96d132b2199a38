"""The numeric kind: a number with a unit, graded by ``quizzes.grading.grade_numeric``.

A part that ``uses`` an earlier one is graded again against the student's own earlier value
when it misses the correct answer (error carried forward).  A readable answer of the wrong
dimension is a format problem and costs no try (`free_of_charge`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from content.expressions import ExpressionError, evaluate
from quizzes.engine.errors import TemplateIssue
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind
from quizzes.engine.model import Expr, Part, Template
from quizzes.engine.namespace import names_for
from quizzes.engine.parse.base import _as_number
from quizzes.engine.render import render_text
from quizzes.engine.units import unit_problem
from quizzes.grading.numbers import MAX_NUMBER_LENGTH

WRONG_DIMENSION = "wrong-dimension"


@register
class NumericKind(AnswerKind):
    name = "numeric"
    fields = tuple("answer unit rtol atol sigfigs decimals factor plausible".split())
    noun = "a number"
    max_length = MAX_NUMBER_LENGTH
    template_name = "quizzes/kinds/numeric.html"
    starter = ("numeric.yaml", "Numeric answer with a unit")
    grader = "numeric"
    gives_value = True
    takes_common_errors = True
    shows_unit = True
    numeric_answer = True

    def parse(self, rules, loc, *, names, answer_names) -> dict[str, Any]:
        fields = parse_number_fields(rules, loc, answer_names, what="a numeric part")
        for key in ("sigfigs", "decimals"):
            value = rules.number(loc.get(key), key, integer=True)
            if value is not None:
                fields[key] = value
        if "sigfigs" in fields and "decimals" in fields:
            rules.issue(loc.get("decimals"), "decimals", "give sigfigs or decimals, not both")
        fields.update(parse_plausible(rules, loc, "a numeric part"))
        return fields

    def answer(self, template, part, names) -> float:
        return number_value(template, part.answer, names, "a numeric answer")

    def validate(self, checks, part, variant, seed) -> None:
        checks.numeric_part(part, variant, seed)

    def grader_function(self):
        from quizzes.grading.numeric import grade_numeric

        return grade_numeric

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
            for spec in part.common_errors
            if (value := _safe_value(template, spec.value, names)) is not None
        }
        kwargs = numeric_kwargs(template, part, response, expected, names, common)
        grade = grade_fn(self.grader, **kwargs)
        if grade.status != "correct":
            return None
        which = ", ".join(f"({u})" for u in used)
        note = f"Correct, using your own answer to part {which} (error carried forward)."
        return dataclasses.replace(grade, feedback=note)

    def answer_text(self, part, answer, *, sig=None) -> str:
        if not isinstance(answer, (int, float)) or isinstance(answer, bool):
            return super().answer_text(part, answer)
        return quantity_text(float(answer), part.unit, sig=sig)

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
        return demo_quantity(value, part.unit), value, diagnosis


# -- shared with other kinds that read a number and a unit ---------------------------------------


def parse_number_fields(rules, loc, names: frozenset[str], *, what: str) -> dict[str, Any]:
    """`answer` (required), `unit`, `rtol`, `atol` and `factor` of a part."""
    fields: dict[str, Any] = {"answer": rules.expr(loc.get("answer"), "answer", names)}
    if loc.get("answer") is None:
        rules.issues[-1] = TemplateIssue(loc.line, "answer", f"{what} needs an answer")
    unit = loc.get("unit")
    if unit is not None:
        problem = unit_problem(unit.value)
        if problem:
            rules.issue(unit, "unit", problem)
        fields["unit"] = str(unit.value)
    for key in ("rtol", "atol", "factor"):
        value = rules.number(loc.get(key), key)
        if value is not None:
            if value < 0 or (key == "factor" and value <= 1):
                rules.issue(
                    loc.get(key), key, "out of range" + (" (> 1)" if key == "factor" else "")
                )
            fields[key] = value
    return fields


def parse_plausible(rules, loc, what: str) -> dict[str, Any]:
    """`plausible: [low, high]`, which every part with a numeric answer needs."""
    plausible = loc.get("plausible")
    pair = (
        [_as_number(v) for v in plausible.value]
        if plausible is not None and isinstance(plausible.value, list)
        else []
    )
    if plausible is None:
        rules.issue(loc, "plausible", f"{what} needs plausible: [low, high]")
    elif len(pair) != 2 or None in pair or pair[0] > pair[1]:
        rules.issue(plausible, "plausible", "must be [low, high] with low <= high")
    else:
        return {"plausible": (pair[0], pair[1])}
    return {}


def number_value(template: Template, expr: Expr, names: Mapping[str, object], what: str) -> float:
    value = evaluate(expr.text, names, source=template.source, line=expr.line)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(
            template.source, expr.line, expr.text, f"{what} must be a number, not {value!r}"
        )
    return float(value)


def quantity_text(value: float, unit: str | None, *, sig: int | None = None) -> str:
    """ "1.23 ms" for an answer key; the number alone when there is no unit."""
    from content.physics import format_quantity

    options = {} if sig is None else {"sig": sig}
    try:
        if unit:
            return format_quantity(value, unit, **options)
    except (ValueError, KeyError):
        return f"{value:.6g} {unit}".strip()
    return f"{value:.6g}" if sig is None else f"{value:.{sig}g}"


def demo_quantity(value: float, unit: str | None) -> str:
    from content.physics import format_quantity

    if not math.isfinite(value):
        return "0"
    if unit:
        try:
            return format_quantity(value, unit)
        except (ValueError, KeyError):
            pass
    return f"{value:.4g}" + (f" {unit}" if unit else "")


def free_of_charge(grade):
    """A wrong dimension (``12 GB`` where FLOP/B is asked) as a format problem: the grader's
    "incorrect" (Contract 2) becomes "invalid" here, which costs the student no try, keeping
    its message (it names the expected dimension) and its diagnosis (so the per-student budget
    of free answers counts it, and the misconception statistics, which read only incorrect
    answers, do not)."""
    return dataclasses.replace(grade, status="invalid", score=0.0)


def numeric_kwargs(
    template: Template,
    part: Part,
    response: str,
    expected: float,
    names: Mapping[str, object],
    common_values: Mapping[str, float],
) -> dict[str, Any]:
    """The keyword arguments of ``grade_numeric`` for this part."""
    from quizzes.grading import CommonError

    common = tuple(
        CommonError(
            spec.code,
            common_values[spec.code],
            render_text(template, spec.feedback, names),
            spec.rtol,
        )
        for spec in part.common_errors
        if spec.code in common_values
    )
    return {
        "response": response,
        "expected": expected,
        "unit": part.unit,
        "rtol": part.rtol,
        "atol": part.atol,
        "sigfigs": part.sigfigs,
        "decimals": part.decimals,
        "factor": part.factor,
        "common_errors": common,
    }


def _safe_value(template: Template, expr, names) -> float | None:
    try:
        value = evaluate(expr.text, names, source=template.source, line=expr.line)
    except Exception:  # noqa: BLE001 - a common error that is undefined is simply skipped
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

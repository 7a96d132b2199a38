"""``grade_part``: one response to one part of a variant, graded with ``quizzes.grading``.

Numeric parts go through the grader in this process and formula parts through its worker pool
(hard time and memory limits), unless the caller passes its own ``grade_fn``; choice parts are
graded here.  A part that ``uses`` an earlier one is graded again against the student's own
earlier value when it misses the correct answer (error carried forward).  A readable answer of
the wrong dimension is a format problem and costs no try (`free_of_charge`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from quizzes.engine.model import Part, Template
from quizzes.engine.namespace import names_for
from quizzes.engine.render import render_text
from quizzes.engine.variants import Variant, part_answer

GradeFn = Callable[..., Any]


def bounded_grade(kind: str, **kwargs: Any) -> Any:
    """The default ``grade_fn``: numbers in this process, formulas always in the worker pool.

    Formula grading calls sympy, which a hostile formula can keep busy for minutes; the studio
    validates templates inside a web request, so the pool's hard time and memory limit applies
    whatever ``GRADING_INLINE`` says (that switch is for the grader's own tests).
    """
    import quizzes.grading as grading

    if kind == "symbolic":
        return grading.grade_in_pool("symbolic", **kwargs)
    if kind == "numeric":
        return grading.grade_numeric(**kwargs)
    raise ValueError(f"kind must be 'numeric' or 'symbolic', not {kind!r}")


def grade_part(
    template: Template,
    variant: Variant,
    part_id: str,
    response: str | list[str],
    *,
    earlier: Mapping[str, float] | None = None,
    grade_fn: GradeFn | None = None,
):
    """Grade ``response`` to part ``part_id`` of ``variant``; return a ``quizzes.grading.Grade``.

    ``earlier`` maps an earlier part's id to the student's value for it (``Grade.value``, SI
    base units); ``grade_fn(kind, **kwargs)`` with kind ``"numeric"`` or ``"symbolic"`` replaces
    the default ``bounded_grade`` (numbers inline, formulas in the worker pool).
    """
    part = template.part(part_id)
    grade_fn = grade_fn or bounded_grade
    if part.kind == "choice":
        return _grade_choice(template, variant, part, response)
    if part.kind == "formula":
        text = response if isinstance(response, str) else " ".join(response)
        return grade_fn(
            "symbolic",
            response=text,
            expected=variant.answers[part.id],
            variables=dict(part.variables),
        )
    text = response if isinstance(response, str) else " ".join(response)
    names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
    grade = grade_fn(
        "numeric",
        **numeric_kwargs(
            template,
            part,
            text,
            variant.answers[part.id],
            names,
            variant.common_errors.get(part.id, {}),
        ),
    )
    if grade.status != "incorrect":
        return grade
    if grade.diagnosis == WRONG_DIMENSION:
        return free_of_charge(grade)
    return _carried_forward(template, variant, part, text, earlier or {}, grade_fn) or grade


WRONG_DIMENSION = "wrong-dimension"


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


def _carried_forward(
    template: Template,
    variant: Variant,
    part: Part,
    response: str,
    earlier: Mapping[str, float],
    grade_fn: GradeFn,
):
    """A full-marks grade if ``response`` is right given the student's own earlier values."""
    used = {u: earlier[u] for u in part.uses if u in earlier and earlier[u] is not None}
    if not used or all(used[u] == variant.answers[u] for u in used):
        return None
    values = {u: used.get(u, variant.answers[u]) for u in part.uses}
    names = names_for(variant.params, values)
    try:
        expected = part_answer(template, part, names)
    except Exception:  # noqa: BLE001 - a student's value may make the answer undefined
        return None
    common = {
        spec.code: value
        for spec in part.common_errors
        if (value := _safe_value(template, spec.value, names)) is not None
    }
    kwargs = numeric_kwargs(template, part, response, expected, names, common)
    grade = grade_fn("numeric", **kwargs)
    if grade.status != "correct":
        return None
    which = ", ".join(f"({u})" for u in used)
    note = f"Correct, using your own answer to part {which} (error carried forward)."
    return dataclasses.replace(grade, feedback=note)


def _safe_value(template: Template, expr, names) -> float | None:
    from content.expressions import evaluate

    try:
        value = evaluate(expr.text, names, source=template.source, line=expr.line)
    except Exception:  # noqa: BLE001 - a common error that is undefined is simply skipped
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _grade_choice(template: Template, variant: Variant, part: Part, response: str | Sequence[str]):
    from quizzes.grading.results import Grade

    picked = [response] if isinstance(response, str) else list(response)
    picked = [str(p).strip() for p in picked if str(p).strip()]
    known = {option.id: option for option in part.options}
    if not picked:
        return Grade("invalid", 0.0, "Choose an option before submitting.")
    unknown = [p for p in picked if p not in known]
    if unknown:
        return Grade("invalid", 0.0, f"Unknown option {unknown[0]!r}: choose one of the options.")
    if not part.multiple and len(picked) > 1:
        return Grade("invalid", 0.0, "Choose exactly one option.")
    correct = set(variant.answers[part.id])
    chosen = set(picked)
    shown = ", ".join(sorted(chosen))
    names = names_for(variant.params)
    if chosen == correct:
        return Grade("correct", 1.0, "Correct.", interpreted=shown)
    wrong = [known[oid] for oid in picked if oid not in correct]
    feedback_option = next((o for o in wrong if o.feedback is not None), None)
    feedback = (
        render_text(template, feedback_option.feedback, names)
        if feedback_option
        else "Not quite."
        if part.multiple
        else "That is not the right option."
    )
    diagnosis = next((o.diagnosis for o in wrong if o.diagnosis), None)
    score = 0.0
    if part.multiple and correct:
        score = max(0.0, (len(chosen & correct) - len(chosen - correct)) / len(correct))
        score = min(score, 0.99)
    return Grade("incorrect", score, feedback, diagnosis, interpreted=shown)

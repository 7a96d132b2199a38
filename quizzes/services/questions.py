"""The bridge between stored rows and the pure question engine.

Everything that turns a `TemplateVersion` into a parsed template, a `Variant` row into the
engine's variant, or a raw answer into a grade goes through here, so the workflows never touch
engine internals. (What the browser sees is built in `quizzes.views.display`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from quizzes import engine, grading

# Longer answers are refused before they reach the grader (its own limits are lower still
# for numbers; this bounds what is stored and parsed at all).
MAX_ANSWER_LENGTH = 500


class QuestionUnavailable(Exception):
    """A stored template version no longer parses or renders (a bank error, not the student's)."""


# -- parsing and variants -------------------------------------------------------------------


@lru_cache(maxsize=512)
def _parsed(source: str, origin: str):
    return engine.parse_template(source, source=origin)


def template_for(version) -> Any:
    """The parsed engine template of a `TemplateVersion` (parsed once per process)."""
    try:
        return _parsed(version.source, f"{version.title} (v{version.number})")
    except Exception as error:  # noqa: BLE001 - a broken version must not crash a page
        raise QuestionUnavailable(str(error)) from error


def new_variant_fields(version, seed: bytes) -> dict[str, Any]:
    """Generate the variant for `seed` and return the `Variant` row fields that store it whole.

    `parameters` holds the drawn values (catalog entries by key); `answers` holds the rest of
    `engine.Variant.to_json()` (answers per part, common-error values, option order), so
    `engine_variant` rebuilds exactly the same variant without the template.
    """
    generated = engine.generate_variant(template_for(version), seed)
    data = generated.to_json()
    return {
        "seed": seed.hex(),
        "parameters": data.pop("params"),
        "answers": data,
        "outcome": data.get("outcome") or "",
    }


def engine_variant(row) -> Any:
    """The engine's variant for a stored `Variant` row, from its stored JSON alone."""
    return engine.Variant.from_json({**row.answers, "params": row.parameters})


def correct_answers(row) -> dict[str, Any]:
    """Correct answer per part id (float, formula text or option ids); server side only."""
    return dict(row.answers.get("answers", {}))


def common_error_values(row) -> dict[str, dict[str, float]]:
    return {k: dict(v) for k, v in row.answers.get("common_errors", {}).items()}


def part_kind(row, part_id: str) -> str | None:
    template = template_for(row.version)
    try:
        return template.part(part_id).kind
    except KeyError:
        return None


def part_points(row) -> dict[str, float]:
    return {part.id: float(part.points) for part in template_for(row.version).parts}


# -- grading ---------------------------------------------------------------------------------


def _grade_fn(kind: str, **kwargs):
    """Numbers are graded in this process; formulas under the pool's time and memory limits."""
    if kind == "numeric":
        return grading.grade_numeric(**kwargs)
    in_pool = getattr(grading, "grade_in_pool", None)
    if in_pool is not None:
        return in_pool(kind, **kwargs)
    return grading.grade_symbolic(**kwargs)


def grade(row, part_id: str, raw: str | list[str], *, earlier: Mapping[str, float]):
    """The engine's grade of `raw` for one part, with earlier part values for carry-forward."""
    template = template_for(row.version)
    return engine.grade_part(
        template, engine_variant(row), part_id, raw, earlier=dict(earlier), grade_fn=_grade_fn
    )


def preview(row, part_id: str, raw: str) -> tuple[str, bool, str]:
    """How a formula answer will be read: (plain text or why it cannot be read, ok, LaTeX)."""
    part = template_for(row.version).part(part_id)
    variables = {name: domain for name, domain in part.variables}
    preview_formula = getattr(grading, "preview_formula", None)
    if preview_formula is None:
        from quizzes.grading.formula.grade import preview_formula
    result = preview_formula(raw, variables)
    if not result.ok:
        return result.error or "This formula cannot be read.", False, ""
    return result.interpreted or "", True, result.latex or ""

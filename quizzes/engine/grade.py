"""``grade_part``: one response to one part of a variant, graded by the part's answer kind.

The kind (``quizzes.engine.kinds``) decides how: which grader it calls through ``grade_fn`` and
whether the default runner (`kinds.run_grader`) sends that grader to the worker pool's hard
time and memory limits, runs it in this process, or grades the answer itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from quizzes.engine import kinds
from quizzes.engine.model import Template
from quizzes.engine.variants import Variant

GradeFn = Callable[..., Any]

__all__ = ["GradeFn", "grade_part"]


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
    base units); ``grade_fn(grader, **kwargs)``, called with the grader name a kind declares
    (``AnswerKind.grader``), replaces the default ``kinds.run_grader``.  Feedback and
    carried-forward answers read the variant's own catalog snapshot.
    """
    part = template.part(part_id)
    with variant.replaying():
        return kinds.kind_for(part).grade(
            template,
            variant,
            part,
            response,
            earlier=earlier or {},
            grade_fn=grade_fn or kinds.run_grader,
        )

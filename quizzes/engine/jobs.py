"""The work the studio and the publication gate run on an author's template, as functions the
sandbox (``sandbox.run_limited``) can run in its own process: module-level, Django-free, with
picklable arguments and results.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from quizzes.engine import kinds
from quizzes.engine.grade import grade_part
from quizzes.engine.model import Template
from quizzes.engine.render import (
    render_figure,
    render_hints,
    render_parts,
    render_prompt,
    render_solution,
)
from quizzes.engine.variants import Variant, generate_variant


def _deadline(budget_s: float | None) -> float | None:
    # A budget, not a deadline, crosses the process boundary: the clock starts when the work
    # does, not while a sandbox process was starting.
    return None if budget_s is None else time.monotonic() + budget_s


def smoke_draws(*, template: Template, seeds: int, budget_s: float | None) -> None:
    """Draw and render seeds ``0 .. seeds-1`` (the bank reader's check that expressions run);
    raises the first draw's error with its seed in ``seed_of_error``."""
    deadline = _deadline(budget_s)
    for seed in range(seeds):
        try:
            variant = generate_variant(template, seed, deadline=deadline)
            render_prompt(template, variant)
            render_solution(template, variant)
        except Exception as exc:
            exc.seed_of_error = seed
            raise


@dataclass(frozen=True)
class Refusal:
    """A tried answer the kind's cleaning refused (as it refuses a student's: no try used)."""

    message: str


@dataclass
class DrawnPreview:
    """One variant of a draft, rendered (Markdown), and the grade of each tried response
    (a Grade, a Refusal by the kind's cleaning, or the text of the grader's failure)."""

    variant: Variant
    prompt: str
    parts: list
    hints: list
    solution: str
    tried: dict[str, Any] = field(default_factory=dict)
    figure: Any = None  # the figure's numbers (`figures.DrawnFigure`), or None


def draw_preview(
    *, template: Template, seed: int, responses: dict, budget_s: float | None
) -> DrawnPreview:
    variant = generate_variant(template, seed, deadline=_deadline(budget_s))
    drawn = DrawnPreview(
        variant=variant,
        prompt=render_prompt(template, variant),
        parts=render_parts(template, variant),
        hints=render_hints(template, variant, max((h.after for h in template.hints), default=0)),
        solution=render_solution(template, variant),
        figure=render_figure(template, variant),
    )
    for part_id, response in (responses or {}).items():
        if response in (None, "", []):
            continue
        # As a student's answer: the kind's cleaning with its part first, then its grader.
        try:
            part = template.part(part_id)
            response = kinds.kind_for(part).clean(response, part)
        except kinds.AnswerRefused as refused:
            drawn.tried[part_id] = Refusal(str(refused))
            continue
        except Exception as exc:  # noqa: BLE001 - reported to the author, as below
            drawn.tried[part_id] = str(exc)
            continue
        try:
            drawn.tried[part_id] = grade_part(template, variant, part_id, response)
        except Exception as exc:  # noqa: BLE001 - reported to the author as the grader's failure
            drawn.tried[part_id] = str(exc)
    return drawn

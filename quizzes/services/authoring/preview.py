"""A variant of a draft as a student would see it, for the editor's preview; nothing is saved.

Everything here returns Markdown and plain values: turning them into HTML is the page's job,
which draws each part with its kind's own input and answer-key templates, as the student page
does.  A tried answer goes through the kind's own cleaning with its part, then its grader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from quizzes import engine
from quizzes.engine import jobs, kinds, sandbox
from quizzes.engine.errors import OverBudget
from quizzes.models import ResponseStatus
from quizzes.services.authoring.budgets import deadline_after, preview_budget
from quizzes.services.bank import read_one

MAX_SEED = 2**31 - 1


@dataclass
class TryResult:
    response: str
    status: str
    feedback: str
    diagnosis: str | None = None
    interpreted: str | None = None
    picked: tuple[str, ...] = ()
    # where a formula differs from the answer: always shown to the author trying the draft
    counterexample: str | None = None

    @property
    def verdict(self) -> str:
        """What the student page says of this try (the quiz preview shows it as they see it)."""
        return {
            ResponseStatus.CORRECT: "Correct",
            ResponseStatus.INVALID: "Could not read this answer",
            ResponseStatus.PENDING: "Awaiting grading",
        }.get(self.status, "Not quite")


@dataclass
class PreviewPart:
    """One part of the previewed variant: what its kind shows (``rendered``), the engine part
    and its correct answer (for the answer key), and what the author tried."""

    id: str
    kind: str
    points: float
    rendered: engine.RenderedPart
    part: engine.Part
    # the correct answer as the variant stores it, as the kind writes it for a key, and the
    # stored value as text when it says more than that ("0.00660953" behind "6.61 ms")
    value: Any
    answer: str
    stored: str = ""
    response: Any = None
    tried: TryResult | None = None

    @property
    def prompt(self) -> str:
        return self.rendered.prompt


@dataclass
class Preview:
    """One variant of a draft: ``error`` says why there is none."""

    seed: int
    error: str = ""
    prompt: str = ""
    parts: list[PreviewPart] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    solution: str = ""
    parameters: list[tuple[str, str]] = field(default_factory=list)
    outcome: str | None = None
    figure: Any = None  # the figure's numbers (`engine.figures.DrawnFigure`), or None


def random_seed() -> int:
    return random.SystemRandom().randint(0, 99_999)


def build_preview(
    draft, seed: int, responses: dict[str, Any] | None = None, *, issues=()
) -> Preview:
    """The variant of ``draft`` for ``seed``, with each response in ``responses`` graded.

    ``draft`` is the draft's TemplateFile as the bank's reader returned it (None when the text
    does not parse: ``issues`` say why), or a text, which is read here.
    """
    preview = Preview(seed=seed)
    if isinstance(draft, str):
        draft, issues = read_one("draft", draft, deadline=deadline_after(preview_budget()))
    if draft is None and issues and all(i.field == "budget" for i in issues):
        preview.error = (
            f"This seed could not be shown within the preview's budget of {preview_budget():g} s: "
            + "; ".join(i.message for i in issues)
        )
        return preview
    if draft is None:
        preview.error = "The draft has errors: " + "; ".join(str(i) for i in issues)
        return preview
    template = draft.template
    try:
        drawn = sandbox.run_limited(
            jobs.draw_preview,
            seconds=preview_budget() + sandbox.GRACE_S,
            template=template,
            seed=seed,
            responses={k: v for k, v in (responses or {}).items() if v not in (None, "", [])},
            budget_s=preview_budget(),
        )
    except sandbox.Refused as refused:
        preview.error = (
            f"This seed could not be shown within the preview's limits "
            f"({preview_budget():g} s): {refused}"
        )
        return preview
    except engine.TemplateError as exc:
        preview.error = "The draft has errors: " + "; ".join(str(i) for i in exc.errors)
        return preview
    except OverBudget as exc:
        preview.error = (
            f"This seed could not be shown within the preview's budget of {preview_budget():g} s: "
            f"{exc.message}"
        )
        return preview
    except Exception as exc:  # noqa: BLE001 - a broken draft must show a message, not a 500
        preview.error = f"This seed cannot be shown: {getattr(exc, 'message', None) or exc}"
        return preview
    variant, rendered = drawn.variant, drawn.parts
    preview.prompt, preview.hints, preview.solution = drawn.prompt, drawn.hints, drawn.solution
    preview.figure = drawn.figure
    preview.parameters = [
        (name, _show(value)) for name, value in variant.to_json()["params"].items()
    ]
    preview.outcome = variant.outcome
    for shown in rendered:
        part = template.part(shown.id)
        value = variant.answers[part.id]
        view = PreviewPart(
            id=part.id,
            kind=part.kind,
            points=shown.points,
            rendered=shown,
            part=part,
            value=value,
            answer=_answer_text(part, value),
        )
        stored = _stored(value)
        view.stored = "" if stored == view.answer else stored
        response = (responses or {}).get(part.id)
        if part.id in drawn.tried:
            view.response = response
            view.tried = _tried(response, drawn.tried[part.id])
        preview.parts.append(view)
    return preview


def _tried(response, grade) -> TryResult:
    """What the author's try shows: the grade the sandbox returned, the kind's refusal (it
    costs a student nothing, so "invalid"), or the grader's failure."""
    picked = (response,) if isinstance(response, str) else tuple(response)
    shown = ", ".join(picked)
    if isinstance(grade, jobs.Refusal):
        return TryResult(shown, "invalid", grade.message, picked=picked)
    if isinstance(grade, str):
        return TryResult(shown, "invalid", f"The grader failed on this response: {grade}")
    return TryResult(
        shown,
        grade.status,
        grade.feedback,
        grade.diagnosis,
        getattr(grade, "interpreted", None),
        picked,
        getattr(grade, "counterexample", None),
    )


def _show(value: Any) -> str:
    if isinstance(value, dict) and "key" in value:
        return f"{value['key']} ({value.get('catalog', 'catalog')})"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _answer_text(part, answer: Any) -> str:
    """The correct answer as its kind writes it for a key."""
    try:
        return kinds.kind_for(part).answer_text(part, answer)
    except Exception:  # noqa: BLE001 - an answer the kind cannot write still shows as stored
        return _stored(answer)


def _stored(answer: Any) -> str:
    """The stored answer as the author checks it ("" when there is no one line to show)."""
    if isinstance(answer, float):
        return f"{answer:.6g}"
    if isinstance(answer, (tuple, list)):
        if any(isinstance(a, (tuple, list, dict)) for a in answer):
            # A structure (a rubric with its model answer): the kind's answer line says it.
            return ""
        return ", ".join(str(a) for a in answer)
    return str(answer)

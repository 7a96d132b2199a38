"""The data behind the student's quiz pages, loaded in a fixed number of queries.

`attempt_blocks` turns one attempt into what its page shows: per item the latest variant, its
rendered question, each part's state, last response, saved answer, hints and (when final) the
solution. The views only pick which of these to render.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from quizzes.models import QuizMode, Response, SavedAnswer, Variant
from quizzes.services import questions, scoring
from quizzes.services.attempts import stored_choice
from quizzes.services.release import AnswerGate, answer_gate
from quizzes.views.display import (
    PartView,
    QuestionView,
    correct_answer_html,
    hints_html,
    question_view,
    solution_html,
)


@dataclass
class PartBlock:
    view: PartView
    state: scoring.PartState
    saved: str = ""
    show_result: bool = True
    # The correct answer, only when the quiz's release policy shows it (else empty).
    answer_html: SafeString | str = ""
    # Whether that policy releases this part's answer now; what else tells of the answer (a
    # formula's counterexample) follows it too.
    answer_released: bool = False
    # "<variant pk>-<part id>": the suffix of the part's element ids, built once here because the
    # page repeats it a dozen times per part.
    dom: str = ""

    @property
    def last(self) -> Response | None:
        return self.state.last

    @property
    def picked(self) -> list[str]:
        """Option ids to pre-select: the saved answer (exam) or the last response."""
        if self.saved:
            return stored_choice(self.saved)
        return stored_choice(self.last.raw) if self.last is not None else []

    @property
    def picked_options(self) -> list:
        picked = set(self.picked)
        return [option for option in self.view.options if option.id in picked]

    @property
    def value(self) -> str:
        if self.saved:
            return self.saved
        return self.last.raw if self.last is not None else ""


@dataclass
class ItemBlock:
    number: int
    variant: Variant
    question: QuestionView | None
    parts: list[PartBlock] = field(default_factory=list)
    hints: list[SafeString] = field(default_factory=list)
    solution: SafeString | str = ""
    best_score: float = 0.0
    earlier_variants: int = 0
    error: str = ""

    @property
    def is_final(self) -> bool:
        return bool(self.parts) and all(p.state.is_final for p in self.parts)

    @property
    def can_ask_new_numbers(self) -> bool:
        return self.variant.attempt.quiz.mode == QuizMode.HOMEWORK and self.is_final

    @property
    def new_numbers_counts(self) -> bool:
        """New numbers still count toward the score (otherwise they are practice)."""
        return self.best_score < 1.0

    @property
    def earned(self) -> float:
        """Points earned on this item: its best counting score times its points."""
        return self.best_score * float(self.variant.item.points)

    @property
    def anchor(self) -> str:
        return f"q{self.number}"


def load_attempt_rows(attempt):
    """(variants, responses by variant id, saved answers by (variant, part)): 3 queries."""
    variants = list(
        Variant.objects.filter(attempt=attempt)
        .select_related("item", "version")
        .order_by("item__position", "index")
    )
    responses: dict[int, list[Response]] = {}
    for response in Response.objects.filter(variant__attempt=attempt).order_by("created_at", "pk"):
        responses.setdefault(response.variant_id, []).append(response)
    saved = {}
    if attempt.quiz.mode == QuizMode.EXAM:
        saved = {
            (s.variant_id, s.part_id): s.raw
            for s in SavedAnswer.objects.filter(variant__attempt=attempt)
        }
    return variants, responses, saved


def attempt_blocks(
    attempt, *, released: bool, render_solutions: bool = True, gate: AnswerGate | None = None
) -> list[ItemBlock]:
    """One block per item of the attempt (its latest variant), in the attempt's order."""
    quiz = attempt.quiz
    gate = gate or answer_gate(attempt)
    variants, responses, saved = load_attempt_rows(attempt)
    by_item: dict[int, list[Variant]] = {}
    for variant in variants:
        variant.attempt = attempt
        by_item.setdefault(variant.item_id, []).append(variant)
    submitted = attempt.status == "submitted"
    homework = quiz.mode == QuizMode.HOMEWORK
    blocks = []
    for number, item_id in enumerate(attempt.item_ids, start=1):
        siblings = by_item.get(item_id, [])
        if not siblings:
            continue
        latest = max(siblings, key=lambda v: v.index)
        blocks.append(
            item_block(
                number,
                latest,
                siblings,
                responses.get(latest.pk, []),
                saved,
                tries=quiz.tries_per_variant if homework else 1,
                submitted=submitted,
                show=homework or (submitted and released),
                render_solutions=render_solutions,
                gate=gate,
            )
        )
    return blocks


def item_block(
    number, variant, siblings, responses, saved, *, tries, submitted, show, render_solutions, gate
) -> ItemBlock:
    """The block of one variant (number `number` on the page) from its already loaded rows.

    `siblings` are every variant of the item (for the best score), `responses` this variant's in
    order; `show` decides whether results and hints are shown, and `gate` (the quiz's release
    policy) which parts' correct answers and whether the worked solution.
    """
    block = ItemBlock(
        number=number,
        variant=variant,
        question=None,
        best_score=scoring.item_score(siblings),
        earlier_variants=len(siblings) - 1,
    )
    try:
        block.question = question_view(variant)
        points = questions.part_points(variant)
    except questions.QuestionUnavailable:
        block.error = "This question cannot be shown right now; your instructor has been told."
        return block
    states = scoring.part_states(points, responses, tries_allowed=tries, submitted=submitted)
    for view in block.question.parts:
        state = states[view.id]
        released = show and gate.shows(state)
        block.parts.append(
            PartBlock(
                view=view,
                state=state,
                saved=saved.get((variant.pk, view.id), ""),
                show_result=show,
                answer_html=correct_answer_html(variant, view) if released else "",
                answer_released=released,
                dom=f"{variant.pk}-{view.id}",
            )
        )
    if show:
        wrong_tries = sum(1 for s in states.values() for r in s.graded if r.status != "correct")
        if not submitted:
            block.hints = hints_html(variant, wrong_tries)
        # The solution holds every part's answer: only when each of them may be shown.
        if render_solutions and block.is_final and gate.shows_all(states.values()):
            block.solution = solution_html(variant)
    return block


def part_block(variant, part_id: str, *, submitted: bool = False) -> tuple[ItemBlock, PartBlock]:
    """One part (and its item block) after a submission, for the htmx fragment."""
    attempt = variant.attempt
    quiz = attempt.quiz
    siblings = list(Variant.objects.filter(attempt=attempt, item=variant.item_id))
    responses = list(Response.objects.filter(variant=variant).order_by("created_at", "pk"))
    homework = quiz.mode == QuizMode.HOMEWORK
    saved = {}
    if not homework:
        saved = {
            (s.variant_id, s.part_id): s.raw for s in SavedAnswer.objects.filter(variant=variant)
        }
    number = (
        attempt.item_ids.index(variant.item_id) + 1 if variant.item_id in attempt.item_ids else 0
    )
    block = item_block(
        number,
        variant,
        siblings,
        responses,
        saved,
        tries=quiz.tries_per_variant if homework else 1,
        submitted=submitted,
        show=homework,
        render_solutions=True,
        gate=answer_gate(attempt),
    )
    part = next((p for p in block.parts if p.view.id == part_id), None)
    return block, part

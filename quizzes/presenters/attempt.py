"""The student's attempt page and its htmx fragments: one view-model per item and per part.

`attempt_blocks` turns one attempt's rows (`services.attempt_rows`) into what its page shows:
per item the latest variant, its rendered question, and per part one `StudentPart`
(`presenters.student_parts`: state, last response, saved answer, label, the correct answer when
the release policy shows it). The
results page (`presenters.results`) builds the same blocks. Nothing here runs a query of its
own beyond what the caller passes in, except the render cache in `presenters.display`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from quizzes.models import ResponseStatus, Variant
from quizzes.presenters.display import (
    QuestionView,
    correct_answer_html,
    question_view,
    scoped_hints_html,
    solution_html,
)
from quizzes.presenters.student_parts import PartLinks, ResultView, StudentPart, graded, saved_state
from quizzes.services import questions, scoring
from quizzes.services.attempt_rows import AttemptRows, attempt_rows, item_siblings, variant_rows
from quizzes.services.release import AnswerGate, answer_gate

# The part-level view-models live in `student_parts`; these names are imported from here too.
__all__ = [
    "ItemBlock",
    "PartLinks",
    "ResultView",
    "StudentPart",
    "attempt_blocks",
    "checked_block",
    "item_block",
]


@dataclass
class ItemBlock:
    number: int
    variant: Variant
    question: QuestionView | None
    parts: list[StudentPart] = field(default_factory=list)
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
        # A question with an answer graded by staff is asked once: new numbers would ask for
        # another essay to grade (the service refuses them too).
        return (
            self.variant.attempt.quiz.is_homework
            and self.is_final
            and not any(p.state.with_staff for p in self.parts)
        )

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

    @property
    def nav_state(self) -> str:
        """The question navigator's mark for this question (quiz.js keeps it current).

        "correct" only in homework, where every result is shown as it is graded, and only when
        each part was graded correct; an exam's navigator never tells correctness before
        release (its page shows no verdicts). Else "attention" (an exam answer that cannot be
        read), "answered" (every part graded at least once, or saved readable), "partial" (some
        parts, not all) or "" (not answered yet).
        """
        if not self.parts:
            return ""
        if self.variant.attempt.quiz.is_homework:
            if all(p.show_result and p.state.is_correct for p in self.parts):
                return "correct"
            done = [p.is_final or graded(p.last) for p in self.parts]
        else:
            if any(p.save_state == "unreadable" for p in self.parts):
                return "attention"
            done = [p.save_state == "saved" for p in self.parts]
        return "answered" if all(done) else "partial" if any(done) else ""

    @property
    def nav_label(self) -> str:
        words = {
            "correct": "correct",
            "answered": "answered",
            "partial": "partly answered",
            "attention": "an answer cannot be read",
        }
        return f"Question {self.number}, {words.get(self.nav_state, 'not answered yet')}"

    def part(self, part_id: str) -> StudentPart | None:
        return next((p for p in self.parts if p.view.id == part_id), None)


def attempt_blocks(
    attempt,
    *,
    released: bool,
    render_solutions: bool = True,
    gate: AnswerGate | None = None,
    rows: AttemptRows | None = None,
) -> list[ItemBlock]:
    """One block per item of the attempt (its latest variant), in the attempt's order."""
    quiz = attempt.quiz
    gate = gate or answer_gate(attempt)
    rows = rows or attempt_rows(attempt)
    by_item = rows.by_item()
    submitted = attempt.is_submitted
    links = PartLinks(attempt)
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
                rows.responses.get(latest.pk, []),
                rows.saved,
                submitted=submitted,
                sequences=rows.sequences,
                show=quiz.is_homework or (submitted and released),
                render_solutions=render_solutions,
                gate=gate,
                links=links,
            )
        )
    return blocks


def item_block(
    number,
    variant,
    siblings,
    responses,
    saved,
    *,
    submitted,
    show,
    render_solutions,
    gate,
    states=None,
    links: PartLinks | None = None,
    sequences=None,
) -> ItemBlock:
    """The block of one variant (number `number` on the page) from its already loaded rows.

    `siblings` are every variant of the item (for the best score), `responses` this variant's in
    order (or `states`, its parts' states as a submission left them); `show` decides whether
    results and hints are shown, and `gate` (the quiz's release policy) which parts' correct
    answers and whether the worked solution.
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
        if states is None:
            points = questions.part_points(variant)
    except questions.QuestionUnavailable:
        block.error = "This question cannot be shown right now; your instructor has been told."
        return block
    if states is None:
        states = scoring.part_states(
            points, responses, tries_allowed=variant.attempt.quiz.tries_allowed, submitted=submitted
        )
    links = links or PartLinks(variant.attempt)
    for number_in_item, view in enumerate(block.question.parts, start=1):
        state = states[view.id]
        released = show and gate.shows(state)
        block.parts.append(
            StudentPart(
                view=view,
                state=state,
                number=number_in_item,
                saved=saved.get((variant.pk, view.id), ""),
                save_sequence=(sequences or {}).get((variant.pk, view.id), 0),
                show_result=show,
                answer_html=correct_answer_html(variant, view) if released else "",
                answer_released=released,
                dom=f"{variant.pk}-{view.id}",
                check_url=links.url("submit_part", variant.pk, view.id),
                autosave_url=links.url("autosave", variant.pk, view.id),
                preview_url=links.url("preview_part", variant.pk, view.id),
            )
        )
    if variant.attempt.quiz.is_exam and not submitted:
        for part in block.parts:
            part.save_state, part.save_message = saved_state(variant, part.view.id, part.saved)
    if show:
        wrong = {
            part_id: sum(1 for r in s.graded if r.status != ResponseStatus.CORRECT)
            for part_id, s in states.items()
        }
        if not submitted:
            # A hint that names its part shows beside that part, after wrong tries at it alone.
            earned = scoped_hints_html(variant, wrong)
            block.hints = [hint for part_id, hint in earned if part_id is None]
            for part in block.parts:
                part.hints = [hint for part_id, hint in earned if part_id == part.view.id]
        # The solution holds every part's answer: only when each of them may be shown.
        if render_solutions and block.is_final and gate.shows_all(states.values()):
            block.solution = solution_html(variant)
    return block


def checked_block(variant, *, states=None, window=None) -> ItemBlock:
    """The item block of `variant` after a homework Check, for the htmx fragment.

    With `states` (what `services.attempts.check_answer` left) only the item's siblings are
    read (1 query); without (a replayed key, a refusal) the variant's rows are read again.
    """
    attempt = variant.attempt
    siblings = [v if v.pk != variant.pk else variant for v in item_siblings(variant)]
    rows = None if states is not None else variant_rows(variant)
    number = (
        attempt.item_ids.index(variant.item_id) + 1 if variant.item_id in attempt.item_ids else 0
    )
    return item_block(
        number,
        variant,
        siblings,
        rows.responses[variant.pk] if rows else [],
        rows.saved if rows else {},
        submitted=False,
        sequences=rows.sequences if rows else None,
        show=attempt.quiz.is_homework,
        render_solutions=True,
        gate=answer_gate(attempt, window=window),
        states=states,
    )

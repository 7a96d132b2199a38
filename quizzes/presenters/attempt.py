"""The student's attempt page and its htmx fragments: one view-model per item and per part.

`attempt_blocks` turns one attempt's rows (`services.attempt_rows`) into what its page shows:
per item the latest variant, its rendered question, and per part one `StudentPart` (state, last
response, saved answer, label, the correct answer when the release policy shows it). The
results page (`presenters.results`) builds the same blocks. Nothing here runs a query of its
own beyond what the caller passes in, except the render cache in `presenters.display`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from quizzes.engine import kinds
from quizzes.models import Response, ResponseStatus, Variant
from quizzes.presenters.display import (
    PartView,
    QuestionView,
    correct_answer_html,
    question_view,
    scoped_hints_html,
    solution_html,
)
from quizzes.presenters.markup import render_feedback, render_inline
from quizzes.services import questions, scoring
from quizzes.services.attempt_rows import AttemptRows, attempt_rows, item_siblings, variant_rows
from quizzes.services.feedback_release import counterexample_visible
from quizzes.services.parts import stored_choice
from quizzes.services.release import AnswerGate, answer_gate


def _graded(response) -> bool:
    """A homework try that was read and graded (an unreadable one costs no try)."""
    return response is not None and response.status != ResponseStatus.INVALID


@dataclass
class ResultView:
    """One stored response as the student sees it: verdict, how it was read, feedback."""

    response: object
    kind: str
    variables: tuple[str, ...] = ()
    # whether this part's counterexample may be shown (feedback_release: final and released)
    reveal: bool = False

    @property
    def status(self) -> str:
        return self.response.status

    @property
    def try_number(self) -> int | None:
        return self.response.try_number

    @property
    def raw(self) -> str:
        return self.response.raw

    # Each is computed once per request (the templates ask twice: to test, then to show), and
    # the Markdown and MathML behind them once per process for the same text (see below).
    @cached_property
    def feedback_html(self) -> SafeString | str:
        feedback = self.response.feedback or ""
        if not feedback or feedback == "Correct.":
            return ""
        return _feedback_html(feedback)

    @cached_property
    def counterexample_html(self) -> SafeString | str:
        """Where a formula differs from the expected one; only once the part is final."""
        text = getattr(self.response, "counterexample", "") or ""
        if not text or not self.reveal:
            return ""
        return _feedback_html(text)

    @cached_property
    def read_as_html(self) -> SafeString | str:
        """The grader's reading of the answer: a formula as math, a quantity as text."""
        interpreted = self.response.interpreted
        kind = kinds.kind_named(self.kind)
        if not interpreted or kind.has_options:
            return ""
        if kind.math_answers:
            math = _formula_html(self.response.raw, tuple(self.variables))
            if math:
                return math
        return format_html("<code>{}</code>", interpreted)


# A stored response never changes its text, so what it renders to depends on the text alone:
# kept per process, the page re-renders no feedback Markdown or formula MathML it showed before.
@lru_cache(maxsize=4096)
def _feedback_html(text: str) -> SafeString:
    return render_feedback(text)


@lru_cache(maxsize=4096)
def _formula_html(raw: str, variables: tuple[str, ...]) -> SafeString | str:
    latex = questions.formula_latex(raw, variables)
    return render_inline(f"${latex}$") if latex else ""


# How an exam's saved text will be read depends on the text and the part's unit or variables
# (its template version) alone: the page re-reads none it read before. Bounded, per process.
_SAVED_STATES: OrderedDict[tuple, tuple[str, str]] = OrderedDict()
_SAVED_LOCK = threading.Lock()


def _saved_state(variant, part_id: str, raw: str) -> tuple[str, str]:
    version = variant.version
    key = (version.pk, version.content_hash, part_id, raw)
    with _SAVED_LOCK:
        if key in _SAVED_STATES:
            _SAVED_STATES.move_to_end(key)
            return _SAVED_STATES[key]
    state = questions.saved_state(variant, part_id, raw)
    with _SAVED_LOCK:
        _SAVED_STATES[key] = state
        while len(_SAVED_STATES) > 4096:
            _SAVED_STATES.popitem(last=False)
    return state


class PartLinks:
    """The URLs of a part's forms, reversed once per page: a page of 20 parts would otherwise
    reverse 40 URLs, each as costly as a template node."""

    _VARIANT, _PART = 987654321, "part-id-placeholder"

    def __init__(self, attempt_pk: int):
        args = [attempt_pk, self._VARIANT, self._PART]
        self._patterns = {
            name: reverse(f"quizzes:{name}", args=args)
            for name in ("submit_part", "autosave", "preview_part")
        }

    def url(self, name: str, variant_pk: int, part_id: str) -> str:
        pattern = self._patterns[name]
        return pattern.replace(f"/{self._VARIANT}/", f"/{variant_pk}/", 1).replace(
            f"/{self._PART}/", f"/{part_id}/", 1
        )


@dataclass
class StudentPart:
    """One part of one variant as the student's pages show it (built once per request)."""

    view: PartView
    state: scoring.PartState
    number: int = 1
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
    # The hints earned for this part alone (a question's other hints are on its block).
    hints: list = field(default_factory=list)
    # An open exam's saved answer as it will be read: "saved", "empty" or "unreadable", and
    # what the student is told ("Read as 3.25 GB", why it cannot be read).
    save_state: str = ""
    save_message: str = ""
    # The stored save's sequence: the page's next autosave must send a larger one.
    save_sequence: int = 0
    # The part's form URLs (`PartLinks`): Check, exam autosave, formula preview.
    check_url: str = ""
    autosave_url: str = ""
    preview_url: str = ""

    # The page reads each of these several times per part: they are worked out once.
    @cached_property
    def label(self) -> str:
        return f"Part {self.number}"

    @cached_property
    def max_length(self) -> int:
        return questions.max_answer_length(self.view.kind)

    @cached_property
    def is_final(self) -> bool:
        return self.state.is_final

    @property
    def last(self) -> Response | None:
        return self.state.last

    @cached_property
    def picked(self) -> list[str]:
        """Option ids to pre-select: the saved answer (exam) or the last response."""
        if self.saved:
            return stored_choice(self.saved)
        return stored_choice(self.last.raw) if self.last is not None else []

    @cached_property
    def picked_options(self) -> list:
        picked = set(self.picked)
        return [option for option in self.view.options if option.id in picked]

    @cached_property
    def value(self) -> str:
        if self.saved:
            return self.saved
        return self.last.raw if self.last is not None else ""

    def _view(self, response) -> ResultView | None:
        if response is None:
            return None
        reveal = counterexample_visible(self.state, released=self.answer_released)
        return ResultView(response, self.view.kind, tuple(self.view.variables), reveal)

    @cached_property
    def result(self) -> ResultView | None:
        """The latest graded try (else the latest unreadable answer)."""
        return self._view(self.state.shown)

    @cached_property
    def newer_invalid(self) -> ResultView | None:
        """An unreadable answer sent after that graded try, mentioned beside it."""
        return self._view(self.state.newer_invalid)

    @cached_property
    def final_result(self) -> ResultView | None:
        """On the results page: the try that earned the part's score."""
        return self._view(self.state.best_graded or self.state.last)

    @cached_property
    def final_raw(self) -> str:
        response = self.state.best_graded or self.state.last
        return response.raw if response is not None else ""

    @cached_property
    def final_options(self) -> list:
        response = self.state.best_graded or self.state.last
        if response is None:
            return []
        picked = set(stored_choice(response.raw))
        return [option for option in self.view.options if option.id in picked]


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
        return self.variant.attempt.quiz.is_homework and self.is_final

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
            done = [p.is_final or _graded(p.last) for p in self.parts]
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
    links = PartLinks(attempt.pk)
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
    links = links or PartLinks(variant.attempt_id)
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
            part.save_state, part.save_message = _saved_state(variant, part.view.id, part.saved)
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

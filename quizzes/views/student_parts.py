"""How the student's pages present a part beyond the data in `pages`: its label ("Part 1"), the
try whose result it reports, feedback rendered as Markdown with math, and its length limit.

`present(blocks)` swaps each block's `PartBlock`s for `StudentPart`s in place; the attempt page,
its htmx fragments and the results page all call it, so they label and report parts alike.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from django.utils.html import format_html
from django.utils.safestring import SafeString

from quizzes.engine import kinds
from quizzes.services import questions
from quizzes.services.attempts import stored_choice
from quizzes.services.feedback_release import counterexample_visible
from quizzes.views.markup import render_feedback, render_inline
from quizzes.views.pages import PartBlock


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

    @property
    def feedback_html(self) -> SafeString | str:
        feedback = self.response.feedback or ""
        if not feedback or feedback == "Correct.":
            return ""
        return render_feedback(feedback)

    @property
    def counterexample_html(self) -> SafeString | str:
        """Where a formula differs from the expected one; only once the part is final."""
        text = getattr(self.response, "counterexample", "") or ""
        if not text or not self.reveal:
            return ""
        return render_feedback(text)

    @property
    def read_as_html(self) -> SafeString | str:
        """The grader's reading of the answer: a formula as math, a quantity as text."""
        interpreted = self.response.interpreted
        kind = kinds.kind_named(self.kind)
        if not interpreted or kind.has_options:
            return ""
        if kind.math_answers:
            latex = questions.formula_latex(self.response.raw, self.variables)
            if latex:
                return render_inline(f"${latex}$")
        return format_html("<code>{}</code>", interpreted)


@dataclass
class StudentPart(PartBlock):
    number: int = 1

    @property
    def label(self) -> str:
        return f"Part {self.number}"

    @property
    def max_length(self) -> int:
        return questions.max_answer_length(self.view.kind)

    def _view(self, response) -> ResultView | None:
        if response is None:
            return None
        reveal = counterexample_visible(self.state, released=self.answer_released)
        return ResultView(response, self.view.kind, tuple(self.view.variables), reveal)

    @property
    def result(self) -> ResultView | None:
        """The latest graded try (else the latest unreadable answer)."""
        return self._view(self.state.shown)

    @property
    def newer_invalid(self) -> ResultView | None:
        """An unreadable answer sent after that graded try, mentioned beside it."""
        return self._view(self.state.newer_invalid)

    @property
    def final_result(self) -> ResultView | None:
        """On the results page: the try that earned the part's score."""
        return self._view(self.state.best_graded or self.state.last)

    @property
    def final_raw(self) -> str:
        response = self.state.best_graded or self.state.last
        return response.raw if response is not None else ""

    @property
    def final_options(self) -> list:
        response = self.state.best_graded or self.state.last
        if response is None:
            return []
        picked = set(stored_choice(response.raw))
        return [option for option in self.view.options if option.id in picked]


def _student_part(part: PartBlock, number: int) -> StudentPart:
    if isinstance(part, StudentPart):
        return part
    values = {f.name: getattr(part, f.name) for f in fields(PartBlock)}
    return StudentPart(**values, number=number)


def present(blocks) -> list:
    """Number each block's parts and give them the student's presentation; returns `blocks`."""
    for block in blocks:
        block.parts = [_student_part(p, n) for n, p in enumerate(block.parts, start=1)]
    return blocks

"""One part of a student's attempt as its pages show it: `StudentPart`, its results, its links.

`StudentPart` is what the attempt, results and Check fragment templates read per part (state,
saved answer, the correct answer when the release policy shows it, the form URLs); `ResultView`
one stored response as the student sees it. What a kind's input shows, how it reads a graded
answer and its answer key come from the part's kind and are drawn by the kind's own templates.
Feedback Markdown and exam read-backs are kept per process for the same text (a stored text
never changes). `presenters.attempt` builds them into item blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from django.urls import reverse
from django.utils.safestring import SafeString

from courseware import caching
from quizzes.models import Response, ResponseStatus
from quizzes.presenters.display import PartView
from quizzes.presenters.elements import render_kind
from quizzes.presenters.markup import render_feedback
from quizzes.services import questions, scoring
from quizzes.services.feedback_release import counterexample_visible, shown_feedback


def graded(response) -> bool:
    """A homework try that was read and graded (an unreadable one costs no try)."""
    return response is not None and response.status != ResponseStatus.INVALID


@dataclass
class ResultView:
    """One stored response as the student sees it: verdict, how it was read, feedback."""

    response: object
    view: PartView
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

    @cached_property
    def reading(self):
        """How the part's kind read this answer (what its ``submitted.html`` draws)."""
        return self.view.answer_kind.reading(
            self.view.facts, self.response.raw, self.response.interpreted
        )

    # Each is computed once per request (the templates ask twice: to test, then to show), and
    # the Markdown and MathML behind them once per process for the same text (see below).
    @cached_property
    def feedback_html(self) -> SafeString | str:
        feedback = shown_feedback(
            self.response.feedback or "", self.response.diagnosis, reveal=self.reveal
        )
        if not feedback or feedback == "Correct.":
            return ""
        return _feedback_html(feedback, self.response.raw or "")

    @cached_property
    def counterexample_html(self) -> SafeString | str:
        """Where a formula differs from the expected one; only once the part is final."""
        text = getattr(self.response, "counterexample", "") or ""
        if not text or not self.reveal:
            return ""
        return _feedback_html(text, self.response.raw or "")

    @cached_property
    def read_as_html(self) -> SafeString | str:
        """The grader's reading of the answer ("Read as ..."), drawn by the part's kind."""
        return self._drawn("reading")

    @cached_property
    def answer_html(self) -> SafeString | str:
        """The answer as the student gave it ("Your answer: ..."), drawn by the part's kind."""
        return self._drawn("answer")

    def _drawn(self, show: str) -> SafeString | str:
        template = self.view.answer_kind.submitted_template
        return render_kind(template, r=self, view=self.view, show=show)


# A stored response never changes its text, so what it renders to depends on the text alone:
# kept per process, the page re-renders no feedback Markdown or formula MathML it showed before.
@caching.memoize(
    "feedback HTML (student_parts)",
    max_bytes=8 * 1024 * 1024,
    why="a result's feedback Markdown and MathML drawn once per text, not per page",
)
def _feedback_html(text: str, raw: str) -> SafeString:
    return render_feedback(text, quoting=raw)


# How an exam's saved text will be read depends on the text and the part's unit or variables
# (its template version) alone: the page re-reads none it read before. Bounded, per process.
_saved_states = caching.local_cache(
    "exam read-backs (student_parts)",
    max_bytes=4 * 1024 * 1024,
    why="an exam page's saved answers read back (units parsed) once per text, not per page",
)


def saved_state(variant, part_id: str, raw: str) -> tuple[str, str]:
    version = variant.version
    key = (version.pk, version.content_hash, part_id, raw)
    return _saved_states.get_or_build(key, lambda: questions.saved_state(variant, part_id, raw))


class PartLinks:
    """The URLs of a part's forms, reversed once per page: a page of 20 parts would otherwise
    reverse 40 URLs, each as costly as a template node."""

    _VARIANT, _PART = 987654321, "part-id-placeholder"

    def __init__(self, attempt):
        """`attempt` with its quiz and the quiz's offering loaded (every view sets them)."""
        args = [attempt.quiz.offering.slug, attempt.pk, self._VARIANT, self._PART]
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
    # The part's form URLs (`PartLinks`): Check, exam autosave, live preview (a kind with one).
    check_url: str = ""
    autosave_url: str = ""
    preview_url: str = ""
    # The name the kind's input posts its answer under.
    input_name: str = "answer"

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

    @cached_property
    def next_sequence(self) -> int:
        """What the page's next autosave of this part sends: above the stored save's."""
        return self.save_sequence + 1

    @property
    def last(self) -> Response | None:
        return self.state.last

    @cached_property
    def value(self) -> str:
        """The stored text the input starts from: the saved answer (exam) or the last one."""
        if self.saved:
            return self.saved
        return self.last.raw if self.last is not None else ""

    @cached_property
    def current(self):
        """What the kind's input shows for that text (the text, the options picked ...)."""
        return self.view.answer_kind.input_state(self.view.facts, self.value)

    def _view(self, response) -> ResultView | None:
        if response is None:
            return None
        reveal = counterexample_visible(self.state, released=self.answer_released)
        return ResultView(response, self.view, reveal)

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

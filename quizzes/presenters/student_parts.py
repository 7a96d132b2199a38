"""One part of a student's attempt as its pages show it: `StudentPart`, its results, its links.

`StudentPart` is what the attempt, results and Check fragment templates read per part (state,
saved answer, the correct answer when the release policy shows it, the form URLs); `ResultView`
one stored response as the student sees it. Their Markdown, MathML and exam read-backs are
kept per process for the same text (a stored text never changes). `presenters.attempt` builds
them into item blocks.
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
from quizzes.models import Response, ResponseStatus
from quizzes.presenters.display import PartView
from quizzes.presenters.markup import render_feedback, render_inline
from quizzes.services import questions, scoring
from quizzes.services.feedback_release import counterexample_visible, shown_feedback
from quizzes.services.parts import stored_choice


def graded(response) -> bool:
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
def _feedback_html(text: str, raw: str) -> SafeString:
    return render_feedback(text, quoting=raw)


@lru_cache(maxsize=4096)
def _formula_html(raw: str, variables: tuple[str, ...]) -> SafeString | str:
    latex = questions.formula_latex(raw, variables)
    return render_inline(f"${latex}$") if latex else ""


# How an exam's saved text will be read depends on the text and the part's unit or variables
# (its template version) alone: the page re-reads none it read before. Bounded, per process.
_SAVED_STATES: OrderedDict[tuple, tuple[str, str]] = OrderedDict()
_SAVED_LOCK = threading.Lock()


def saved_state(variant, part_id: str, raw: str) -> tuple[str, str]:
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

"""The written-explanation kind: the student writes a few sentences, staff grade them with a
rubric.

The author gives a ``rubric`` (1 to 12 items, each with its points and a description, live
text), optionally a ``model_answer`` (live text, shown with the answer key once the release
policy shows answers) and a ``max_length`` (characters, 100 to 10,000; default 2,000).  The
student writes plain text in a text area; it is stored as text and always shown escaped.

Nothing is graded automatically: `grade` returns a *pending* grade (status ``pending``, score
0), which the attempt services store as "awaiting grading" and count as provisional.  Staff
tick the rubric items an answer meets on the offering's grading page
(`quizzes.services.manual_grading`); the part then scores the ticked points' share of the
rubric's total.  The kind says it is graded by people through `graded_by_staff`; no service
compares its name.

A variant's "answer" is the rubric and the model answer rendered with its numbers, so the
grading page, the answer key and a regrade all read the snapshot the student was given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, AnswerRefused, Rendered, as_text
from quizzes.engine.kinds.toolbox import Item, parse_items
from quizzes.engine.model import Text
from quizzes.engine.render import render_text

FEWEST_ITEMS, MOST_ITEMS = 1, 12
SHORTEST, LONGEST, DEFAULT_LENGTH = 100, 10_000, 2_000
MOST_POINTS = 100
PENDING_FEEDBACK = ""  # the pages say "Awaiting grading"; nothing to render beside it


@dataclass(frozen=True)
class ExplainSettings:
    rubric: tuple[Item, ...]
    model_answer: Text | None = None
    max_length: int = DEFAULT_LENGTH

    @property
    def total(self) -> float:
        return sum(float(item.get("points")) for item in self.rubric)


def _points(rules, loc, names) -> float | None:
    value = rules.number(loc, "points")
    if value is not None and not 0 < value <= MOST_POINTS:
        rules.issue(loc, "points", f"must be more than 0 and at most {MOST_POINTS}")
        return None
    return value


@register
class ExplainKind(AnswerKind):
    name = "explain"
    label = "Written explanation (graded by staff)"
    fields = ("rubric", "model_answer", "max_length")
    noun = "an explanation"
    max_length = LONGEST
    graded_by_staff = True

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> ExplainSettings:
        rubric = parse_items(
            rules,
            loc,
            "rubric",
            names,
            least=FEWEST_ITEMS,
            most=MOST_ITEMS,
            extra={"points": _points},
        )
        for item in rubric:
            if item.get("points") is None:
                rules.issue(item.line, "points", f"rubric item '{item.id}' needs points")
        rubric = tuple(item for item in rubric if item.get("points") is not None)
        model = rules.live(loc.get("model_answer"), "model_answer", names)
        length_loc = loc.get("max_length")
        length = rules.number(length_loc, "max_length", integer=True)
        if length is not None and not SHORTEST <= length <= LONGEST:
            rules.issue(
                length_loc, "max_length", f"must be from {SHORTEST} to {LONGEST:,} characters"
            )
            length = None
        return ExplainSettings(rubric, model, DEFAULT_LENGTH if length is None else int(length))

    def answer(self, template, part, names) -> list:
        """The model answer and the rubric with the variant's numbers, stored as a list
        (``[model, [id, text, points], ...]``): what graders grade against."""
        settings = part.settings
        rubric = [
            [item.id, render_text(template, item.text, names), float(item.get("points"))]
            for item in settings.rubric
        ]
        return [render_text(template, settings.model_answer, names), *rubric]

    def validate(self, checks, part, variant, seed) -> None:
        if not rubric_of(variant.answers[part.id]):
            checks.failures.add("rubric", "the rubric has no items", seed, part.id)

    def render(self, template, part, variant, names) -> Rendered:
        # Never the rubric or the model answer: they are the answer key.
        return Rendered({}, {"max_length": part.settings.max_length})

    def render_feedback(self, template, part, variant) -> None:
        from quizzes.engine.namespace import names_for

        names = names_for(variant.params)
        for item in part.settings.rubric:
            render_text(template, item.text, names)
        render_text(template, part.settings.model_answer, names)

    def rendered_texts(self, part):
        return (*(item.text for item in part.settings.rubric), part.settings.model_answer)

    # -- answering ----------------------------------------------------------------------------

    def too_long(self, text: str) -> str | None:
        if len(text) <= self.max_length:
            return None
        return (
            f"That explanation is {len(text):,} characters long; the limit is "
            f"{self.max_length:,}. Shorten it."
        )

    def clean(self, raw, part) -> str:
        text = _plain(as_text(raw))
        limit = part.settings.max_length
        if len(text) > limit:
            raise AnswerRefused(
                f"That explanation is {len(text):,} characters long; the limit for this "
                f"question is {limit:,}. Shorten it."
            )
        if not text.strip():
            raise AnswerRefused("Write your explanation before submitting it.")
        return text

    def draft(self, raw) -> str:
        return _plain(as_text(raw))

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        from quizzes.grading.results import pending

        return pending(PENDING_FEEDBACK)

    def read_back(self, part, raw) -> tuple[bool, str]:
        words = len(raw.split())
        if not raw.strip():
            return False, "Nothing written yet."
        limit = part.settings.max_length
        if len(raw) > limit:
            return False, f"{len(raw):,} characters: the limit is {limit:,}; shorten it."
        return True, f"{words} word{'s' if words != 1 else ''} saved; staff will grade it."

    # -- showing ------------------------------------------------------------------------------

    def reading(self, facts, raw, interpreted):
        """The staff's grade once given: the rubric items with whether each was met, the
        points and the comment (`manual_grading` stores it as JSON in ``interpreted``)."""
        return graded_reading(interpreted)

    def rubric(self, answer) -> tuple[tuple[str, str, float], ...]:
        return tuple(rubric_of(answer))

    def answer_key(self, part, answer) -> dict:
        return {"model": model_of(answer), "rubric": rubric_of(answer)}

    def answer_text(self, part, answer, *, sig=None) -> str:
        return f"graded by staff with a rubric of {len(rubric_of(answer))} items"

    def demo_answer(self, part, answer, common, right, rng):
        text = (
            "The step reads every weight once and does about two FLOP per weight, so it waits "
            "on memory bandwidth."
            if right
            else "It is slow because the GPU is busy."
        )
        return text, None, ""


def rubric_of(answer) -> list[tuple[str, str, float]]:
    """A stored answer's rubric: (id, text, points) per item."""
    if not isinstance(answer, (list, tuple)):
        return []
    return [
        (str(row[0]), str(row[1]), float(row[2]))
        for row in answer[1:]
        if isinstance(row, (list, tuple)) and len(row) == 3
    ]


def model_of(answer) -> str:
    """A stored answer's model answer ("" when the author gave none)."""
    return str(answer[0]) if isinstance(answer, (list, tuple)) and answer else ""


def graded_reading(interpreted: str | None) -> dict | None:
    """The stored staff grade as a mapping, or None while it awaits grading."""
    if not interpreted:
        return None
    try:
        value = json.loads(interpreted)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _plain(text: str) -> str:
    """A textarea's text as stored: line ends made one kind, NUL removed (PostgreSQL refuses it
    in text); nothing else changes, and it is always shown escaped."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")

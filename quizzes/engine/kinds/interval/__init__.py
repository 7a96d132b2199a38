"""The numeric-interval kind: the student gives a range, "2 TB/s to 5 TB/s", for an estimate.

It is graded by containment and width: correct when the range contains the true value and is
no wider than the author's ``max_ratio`` (high ÷ low, default 10: an order of magnitude), both
bounds inclusive and compared exactly, by `quizzes.grading.interval` (size-checked and fast, so
it needs no worker pool).  An unreadable range or one in the wrong units costs no try
("invalid", saying what to fix); a range that is too wide or misses the value is "incorrect",
with the diagnosis ``interval-too-wide`` or ``interval-misses``.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, NumberScale, Rendered
from quizzes.engine.kinds.toolbox import (
    demo_quantity,
    finite_and_plausible,
    number_value,
    parse_number_fields,
    parse_plausible,
    quantity_text,
    unit_hint,
)
from quizzes.engine.model import Expr
from quizzes.grading.interval import MISSES, grade_interval
from quizzes.grading.numbers import MAX_NUMBER_LENGTH

DEFAULT_MAX_RATIO = 10.0


@dataclass(frozen=True)
class IntervalSettings:
    answer: Expr | None
    unit: str | None = None
    max_ratio: float = DEFAULT_MAX_RATIO
    plausible: tuple[float, float] | None = None


@register
class IntervalKind(AnswerKind):
    name = "interval"
    label = "Range estimate (numeric interval)"
    fields = ("answer", "unit", "max_ratio", "plausible")
    noun = "a range"
    max_length = MAX_NUMBER_LENGTH

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> IntervalSettings:
        fields = parse_number_fields(rules, loc, answer_names, what="an interval part", extra=())
        ratio = rules.number(loc.get("max_ratio"), "max_ratio")
        if ratio is not None and ratio <= 1:
            rules.issue(loc.get("max_ratio"), "max_ratio", "must be more than 1 (high ÷ low)")
        fields.update(parse_plausible(rules, loc, "an interval part"))
        return IntervalSettings(**fields, max_ratio=float(ratio or DEFAULT_MAX_RATIO))

    def answer(self, template, part, names) -> float:
        return number_value(template, part.settings.answer, names, "an interval's true value")

    def number_scale(self, part) -> NumberScale:
        return NumberScale(part.settings.unit)

    def render(self, template, part, variant, names) -> Rendered:
        return Rendered({}, {"unit_hint": unit_hint(part.settings.unit)})

    def rendered_texts(self, part):
        return ()

    def validate(self, checks, part, variant, seed) -> None:
        answer = variant.answers[part.id]
        if not finite_and_plausible(checks, part.id, answer, part.settings.plausible, seed):
            return
        if answer <= 0:
            message = f"the true value {answer:.4g} must be positive: a range is a ratio apart"
            checks.failures.add("answer", message, seed, part.id)
            return
        own = self.natural_range(part, answer)
        grade = self._grade(part, own, answer)
        if grade.status != "correct":
            message = f"the range {own!r} around its own answer grades {grade.status}"
            checks.failures.add("grading", f"{message}: {grade.feedback}", seed, part.id)

    def natural_range(self, part, answer: float) -> str:
        """A range an expert would give: the true value within a factor well under the limit."""
        spread = _max_ratio(part) ** 0.25
        low = quantity_text(answer / spread, part.settings.unit, sig=4)
        high = quantity_text(answer * spread, part.settings.unit, sig=4)
        return f"{low} to {high}"

    # -- answering ----------------------------------------------------------------------------

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        text = response if isinstance(response, str) else " ".join(response)
        return self._grade(part, text, variant.answers[part.id])

    def _grade(self, part, text: str, true_value: float):
        return grade_interval(text, true_value, unit=part.settings.unit, max_ratio=_max_ratio(part))

    # -- showing ------------------------------------------------------------------------------

    def answer_text(self, part, answer, *, sig=None) -> str:
        if not isinstance(answer, (int, float)) or isinstance(answer, bool):
            return super().answer_text(part, answer)
        value = quantity_text(float(answer), part.settings.unit, sig=sig)
        return f"{value} (any range that contains it, at most {_max_ratio(part):g}× wide)"

    def demo_answer(self, part, answer, common, right, rng):
        if not isinstance(answer, (int, float)) or answer <= 0:
            return super().demo_answer(part, answer, common, right, rng)
        spread = _max_ratio(part) ** rng.uniform(0.1, 0.45)
        centre = answer * (1 if right else rng.choice([0.1, 8.0]) * spread)
        low = demo_quantity(centre / spread, part.settings.unit)
        high = demo_quantity(centre * spread, part.settings.unit)
        return f"{low} to {high}", None, "" if right else MISSES


def _max_ratio(part) -> float:
    return float(part.settings.max_ratio)

"""What every answer kind provides, and the defaults shared by the kinds typed into a text box.

A kind is one object (a subclass of `AnswerKind`, registered in `quizzes.engine.kinds`) that
owns everything a part of that kind needs, from its YAML fields to the text of its answer key,
so that no caller compares kind names.  Kinds are pure Python like the rest of the engine: the
web layer reads `template_name` and `max_length`, the services call `clean`, `stored` and
`from_stored`, the engine calls `parse`, `answer`, `option_order`, `grade` and `validate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from quizzes.engine.model import Part, Template
    from quizzes.engine.variants import Variant
    from quizzes.engine.yamlnodes import Loc

# Longer answers are refused before they reach a grader, whatever the kind.
MAX_ANSWER_LENGTH = 500


class AnswerRefused(ValueError):
    """An answer that cannot be taken at all (blank, too long, not an option): nothing is
    stored and no try is used.  The message is for the student."""


class AnswerKind:
    """One answer kind.  Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    # The YAML fields a part of this kind may have besides id, kind, prompt, points, uses and
    # common_errors.
    fields: ClassVar[tuple[str, ...]] = ()
    noun: ClassVar[str] = "an answer"  # "the limit for {noun} is ..."
    max_length: ClassVar[int] = MAX_ANSWER_LENGTH
    # The partial that draws the student's input, given `p` (the part on the page).
    template_name: ClassVar[str]
    # (file under quizzes/starters/, label shown to authors) or None for no starter.
    starter: ClassVar[tuple[str, str] | None] = None
    # The name a `grade_fn(name, **kwargs)` is called with, and whether the registry's default
    # runner sends it to the worker pool (hard time and memory limits); None: graded here.
    grader: ClassVar[str | None] = None
    bounded: ClassVar[bool] = False
    gives_value: ClassVar[bool] = False  # a later part may `uses:` its value
    takes_common_errors: ClassVar[bool] = False
    has_options: ClassVar[bool] = False  # the student picks among options (a list of ids)
    math_answers: ClassVar[bool] = False  # answers are formulas: shown as math, previewed
    shows_unit: ClassVar[bool] = False  # the input shows a hint about the part's unit
    numeric_answer: ClassVar[bool] = False  # the correct answer is a number (validation stats)

    # -- authoring ----------------------------------------------------------------------------

    def parse(
        self, rules, loc: Loc, *, names: frozenset[str], answer_names: frozenset[str]
    ) -> dict[str, Any]:
        """The `Part` fields of this kind read from `loc`; issues go to `rules.issue`."""
        raise NotImplementedError

    def answer(self, template: Template, part: Part, names: Mapping[str, object]) -> Any:
        """The correct answer of `part` with `names` (holding ``part_<id>`` for its uses)."""
        raise NotImplementedError

    def option_order(self, part: Part, rng) -> tuple[str, ...] | None:
        """The order a variant shows this part's options in (None: it has none); `rng` is the
        variant's generator, so only kinds with options may draw from it."""
        return None

    def validate(self, checks, part: Part, variant: Variant, seed: int) -> None:
        """This kind's checks of one variant (`checks` is validation's toolbox)."""

    # -- answering ----------------------------------------------------------------------------

    def too_long(self, text: str) -> str | None:
        """Why `text` is too long for this kind, or None when it fits."""
        limit = min(self.max_length, MAX_ANSWER_LENGTH)
        if len(text) <= limit:
            return None
        return (
            f"That answer is {len(text):,} characters long; the limit for {self.noun} is "
            f"{limit}. Write it more compactly."
        )

    def clean(self, raw: str | Sequence[str] | None) -> str | list[str]:
        """The answer as its grader takes it; raises AnswerRefused (nothing stored)."""
        text = _text(raw)
        message = self.too_long(text)
        if message:
            raise AnswerRefused(message)
        if not text.strip():
            raise AnswerRefused("Type an answer before checking.")
        return text

    def draft(self, raw: str | Sequence[str] | None) -> str:
        """What an exam's autosave keeps of a half-typed answer (the length is checked after)."""
        return _text(raw)

    def stored(self, clean: str | list[str]) -> str:
        """The text a Response row keeps for a cleaned answer."""
        return clean if isinstance(clean, str) else " ".join(clean)

    def from_stored(self, raw: str) -> str | list[str]:
        """A stored answer (Response or SavedAnswer) as its grader takes it."""
        return raw

    def grade(
        self,
        template: Template,
        variant: Variant,
        part: Part,
        response: str | Sequence[str],
        *,
        earlier: Mapping[str, float],
        grade_fn,
    ):
        """A `quizzes.grading.Grade` for `response`; never raises for a student's text."""
        raise NotImplementedError

    def grader_function(self):
        """The function `run_grader` calls for this kind's `grader` name (module-level, so
        the worker pool can send it to a worker)."""
        raise NotImplementedError(f"the {self.name} kind grades in this process")

    # -- showing ------------------------------------------------------------------------------

    def answer_text(self, part: Part, answer: Any, *, sig: int | None = None) -> str:
        """The correct answer as plain text for an answer key (server side only)."""
        if isinstance(answer, (list, tuple)):
            return ", ".join(str(a) for a in answer)
        return str(answer)

    def demo_answer(self, part: Part, answer: Any, common: Mapping[str, float], right: bool, rng):
        """(raw, value, diagnosis) of a right or typically wrong answer, for demo data."""
        text = str(answer or "")
        return (text if right else f"({text})*2" if text else "n"), None, ""


def _text(raw: str | Sequence[str] | None) -> str:
    return raw if isinstance(raw, str) else " ".join(raw or [])

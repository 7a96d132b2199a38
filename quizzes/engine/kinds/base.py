"""The element interface every answer kind implements, and the defaults of text-box kinds.

A kind is one folder of ``quizzes/engine/kinds`` (one package): a subclass of `AnswerKind`
registered in ``kinds/__init__.py``, its own settings dataclass, its three templates
(``input.html``, ``submitted.html``, ``answer.html``), its ``starter.yaml`` and its tests.  It
owns everything a part of that kind needs, from its YAML fields to its answer key, so that no
caller outside the folder compares kind names or asks what shape a kind's input has.

Pure Python like the rest of the engine.  What each side calls:

- the parser: ``fields``, ``parse`` (the kind's settings, issues with their lines);
- variants: ``answer``, ``option_order``, ``common_errors``;
- validation: ``validate`` (with the shared ``Checks`` toolbox), ``number_scale``;
- rendering: ``render`` (what the student may see of the part, as named lists of Markdown
  items and plain facts), ``render_feedback`` (every feedback text, for the catalog snapshot
  and for validation), ``rendered_texts`` (those texts, when rendering them is all the two do:
  a new variant reads the catalog entries they look up off their expressions);
- answering: ``clean`` (with the part), ``draft``, ``stored``, ``from_stored``, ``too_long``,
  ``grade``, ``read_back`` (an exam's "Read as"), ``live_preview``;
- showing: ``input_state`` (what the input shows for a stored answer), ``reading`` (how a
  graded answer was read), ``answer_key`` and ``answer_text``, ``demo_answer``, and the three
  template names, which Django finds through the template directory that holds this package
  (``settings.TEMPLATES``), never through an import.

A staff-graded kind (a written explanation) sets ``graded_by_staff``: its ``grade`` returns a
pending grade (status "pending"), which the services store as awaiting grading; the offering's
manual-grading page grades it with the rubric its ``answer`` holds, and a regrade keeps the
staff's grade.  Nothing outside its folder compares its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from quizzes.engine.model import CommonErrorSpec, Part, Template, Text
    from quizzes.engine.variants import Variant
    from quizzes.engine.yamlnodes import Loc

# Longer answers are refused before they reach a grader, for every kind but those that say
# they take prose (``max_length`` above it, never above ANSWER_CEILING).
MAX_ANSWER_LENGTH = 500
ANSWER_CEILING = 10_000


class AnswerRefused(ValueError):
    """An answer that cannot be taken at all (blank, too long, not an option): nothing is
    stored and no try is used.  The message is for the student."""


@dataclass(frozen=True)
class Rendered:
    """What a student may see of one part besides its prompt: named lists of (id, Markdown)
    items (a choice's options, an ordering's items) that the page renders as inline HTML, and
    plain facts (a unit hint, the variables of a formula, a chart's numbers).  Never an
    answer."""

    lists: Mapping[str, tuple[tuple[str, str], ...]]
    facts: Mapping[str, Any]


@dataclass(frozen=True)
class NumberScale:
    """A kind whose correct answers are numbers: validation reports their spread in ``unit``."""

    unit: str | None


class AnswerKind:
    """One answer kind.  Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    # The label of its starter in the studio's "new template" list.
    label: ClassVar[str]
    # The YAML fields a part of this kind may have besides id, kind, prompt, points and uses.
    fields: ClassVar[tuple[str, ...]] = ()
    noun: ClassVar[str] = "an answer"  # "the limit for {noun} is ..."
    max_length: ClassVar[int] = MAX_ANSWER_LENGTH
    # The grader a `grade_fn(name, **kwargs)` is called with (a name in
    # `quizzes.grading.GRADERS`), and whether that grader runs under the worker pool's hard
    # time and memory limits (it may be slow: the attempt service grades it before taking the
    # variant's lock); None: the kind grades in this process, in well under a millisecond.
    grader: ClassVar[str | None] = None
    bounded: ClassVar[bool] = False
    gives_value: ClassVar[bool] = False  # a later part may `uses:` its value
    # Graded by people, not by `grade` (which returns a pending grade): the grading page lists
    # its answers, and a regrade of the other parts keeps the staff's grade.
    graded_by_staff: ClassVar[bool] = False

    # -- the folder ---------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """This kind's folder (its package), where its templates and starter live."""
        import sys

        return Path(sys.modules[type(self).__module__].__file__).resolve().parent

    @property
    def input_template(self) -> str:
        """Draws the input, given ``p`` (a part on a page: ``view``, ``dom``, ``input_name``,
        ``current``, ``max_length``, ``preview_url``) and ``disabled``; the student's page and
        the studio's preview both use it."""
        return f"kinds/{self.name}/input.html"

    @property
    def submitted_template(self) -> str:
        """Draws a graded answer, given ``r`` (its ``raw`` text and ``reading``), ``view`` and
        ``show``: "answer" for the results page's "Your answer", "reading" for its read-back
        in the verdict box."""
        return f"kinds/{self.name}/submitted.html"

    @property
    def answer_template(self) -> str:
        """Draws the answer key, given ``key`` (``answer_key``'s data) and ``view``."""
        return f"kinds/{self.name}/answer.html"

    @property
    def starter(self) -> Path:
        """The studio's starter: a complete template with one part of this kind."""
        return self.folder / "starter.yaml"

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc: Loc, *, names: frozenset[str], answer_names: frozenset[str]):
        """This kind's settings (its own frozen dataclass) read from `loc`; each problem goes
        to ``rules.issue`` with its line (the parser's toolbox: ``rules.expr``, ``live``,
        ``number``, ``text_field``, ``parse_common_errors`` ...)."""
        raise NotImplementedError

    def answer(self, template: Template, part: Part, names: Mapping[str, object]) -> Any:
        """The correct answer of `part` with `names` (holding ``part_<id>`` for its uses)."""
        raise NotImplementedError

    def option_order(self, part: Part, rng) -> tuple[str, ...] | None:
        """The order a variant shows this part's items in (None: it has none); `rng` is the
        variant's generator, so only kinds with items may draw from it (None: keep the
        template's order)."""
        return None

    def common_errors(self, part: Part) -> tuple[CommonErrorSpec, ...]:
        """Known wrong answers whose values each variant computes and stores."""
        return ()

    def validate(self, checks, part: Part, variant: Variant, seed: int) -> None:
        """This kind's checks of one variant (`checks` is validation's toolbox)."""

    def number_scale(self, part: Part) -> NumberScale | None:
        """Whether validation reports the spread of this part's (numeric) answers."""
        return None

    # -- rendering ----------------------------------------------------------------------------

    def render(self, template: Template, part: Part, variant: Variant, names) -> Rendered:
        """What the student may see of this part besides its prompt (inside the variant's
        catalog snapshot; `names` are the variant's parameters)."""
        return Rendered({}, {})

    def render_feedback(self, template: Template, part: Part, variant: Variant) -> None:
        """Render every feedback text of this part once (raising ExpressionError for one that
        fails), so generation records its catalog look-ups and validation finds its errors."""

    def rendered_texts(self, part: Part) -> tuple[Text | None, ...] | None:
        """Every live text `render` and `render_feedback` render with `render_text`, when that
        is all they do (no expression of their own): a new variant then learns the catalog
        entries they look up from their expressions (`engine/lookups.py`). None (the default)
        has every text of a new variant rendered to learn them, which is always right."""
        return None

    # -- answering ----------------------------------------------------------------------------

    def too_long(self, text: str) -> str | None:
        """Why `text` is too long for this kind, or None when it fits."""
        limit = answer_limit(self)
        if len(text) <= limit:
            return None
        return (
            f"That answer is {len(text):,} characters long; the limit for {self.noun} is "
            f"{limit}. Write it more compactly."
        )

    def clean(self, raw: str | Sequence[str] | None, part: Part) -> Any:
        """The answer as its grader takes it, checked against the part; raises AnswerRefused
        (nothing stored, no try used) with a message for the student."""
        text = as_text(raw)
        message = self.too_long(text)
        if message:
            raise AnswerRefused(message)
        if not text.strip():
            raise AnswerRefused("Type an answer before checking.")
        return text

    def draft(self, raw: str | Sequence[str] | None) -> str:
        """What an exam's autosave keeps of a half-given answer (the length is checked after)."""
        return as_text(raw)

    def stored(self, clean: Any) -> str:
        """The text a Response row keeps for a cleaned answer."""
        return clean if isinstance(clean, str) else " ".join(clean)

    def from_stored(self, raw: str) -> Any:
        """A stored answer (Response or SavedAnswer) as its grader takes it."""
        return raw

    def grade(
        self,
        template: Template,
        variant: Variant,
        part: Part,
        response: Any,
        *,
        earlier: Mapping[str, float],
        grade_fn,
    ):
        """A `quizzes.grading.Grade` for `response`; never raises for a student's answer."""
        raise NotImplementedError

    def read_back(self, part: Part, raw: str) -> tuple[bool, str]:
        """How an exam's saved answer will be read when it is graded, without grading it:
        (readable, what the student is told).  Never depends on the correct answer."""
        return True, ""

    def live_preview(self, part: Part, raw: str) -> tuple[str, bool, str] | None:
        """(reading or why it cannot be read, readable, LaTeX) while the student types, or
        None when this kind has no live preview."""
        return None

    # -- showing ------------------------------------------------------------------------------

    def input_state(self, facts: Mapping[str, Any], raw: str) -> Any:
        """What the input shows for a stored or saved answer (the text, the picked ids)."""
        return raw

    def reading(self, facts: Mapping[str, Any], raw: str, interpreted: str | None) -> Any:
        """How a graded answer was read, for ``submitted.html`` (None: nothing to add)."""
        return interpreted or None

    def answer_key(self, part: Part, answer: Any) -> Any:
        """The data ``answer.html`` draws the answer key from (server side only)."""
        return self.answer_text(part, answer, sig=4)

    def answer_text(self, part: Part, answer: Any, *, sig: int | None = None) -> str:
        """The correct answer as plain text (regrade listings, the studio's answer line)."""
        if isinstance(answer, (list, tuple)):
            return ", ".join(str(a) for a in answer)
        return str(answer)

    def rubric(self, answer: Any) -> tuple[tuple[str, str, float], ...]:
        """A staff-graded kind: the rubric its stored `answer` holds, as (id, Markdown text,
        points) per item, which the grading page ticks (empty for every other kind)."""
        return ()

    def demo_answer(self, part: Part, answer: Any, common: Mapping[str, float], right: bool, rng):
        """(raw, value, diagnosis) of a right or typically wrong answer, for demo data."""
        text = str(answer or "")
        return (text if right else f"({text})*2" if text else "n"), None, ""


def as_text(raw: str | Sequence[str] | None) -> str:
    """A posted answer as one text (a form may post a list)."""
    return raw if isinstance(raw, str) else " ".join(raw or [])


def as_list(raw: str | Iterable[str] | None) -> list[str]:
    """A posted answer as a list of its non-blank values, stripped."""
    values = [raw] if isinstance(raw, str) else list(raw or [])
    return [str(v).strip() for v in values if v is not None and str(v).strip()]


def answer_limit(kind: AnswerKind) -> int:
    """The longest answer `kind` accepts: its own `max_length`, within the ceiling."""
    return min(kind.max_length, ANSWER_CEILING)

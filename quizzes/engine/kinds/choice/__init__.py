"""The choice kind: one option (radio) or several (``multiple: true``, checkboxes), graded
here; several picks earn partial credit, never full marks unless the set is exact."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from content.expressions import ExpressionError, evaluate
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, AnswerRefused, Rendered, as_list
from quizzes.engine.model import Expr, Option
from quizzes.engine.namespace import names_for
from quizzes.engine.parse.base import OPTION_ID, option_letter
from quizzes.engine.render import render_text

MAX_PICKS = 26  # the most options a part may have
MAX_OPTION_ID = 50


@dataclass(frozen=True)
class ChoiceSettings:
    options: tuple[Option, ...]
    multiple: bool = False
    shuffle: bool = True


@register
class ChoiceKind(AnswerKind):
    name = "choice"
    label = "Multiple choice"
    fields = ("options", "multiple", "shuffle")

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> ChoiceSettings:
        options_loc = loc.get("options")
        options: list[Option] = []
        if options_loc is None or len(options_loc.items()) < 2:
            rules.issue(options_loc or loc, "options", "a choice part needs at least 2 options")
        for index, item in enumerate(options_loc.items() if options_loc else ()):
            option = _parse_option(rules, item, index, names)
            if option is not None:
                if any(o.id == option.id for o in options):
                    rules.issue(item, "id", f"option id '{option.id}' is used twice")
                options.append(option)
        fields: dict[str, object] = {"options": tuple(options)}
        for key in ("multiple", "shuffle"):
            value = loc.get(key)
            if value is not None:
                if not isinstance(value.value, bool):
                    rules.issue(value, key, "must be true or false")
                else:
                    fields[key] = value.value
        return ChoiceSettings(**fields)

    def answer(self, template, part, names) -> tuple[str, ...]:
        correct = []
        for option in part.settings.options:
            value = option.correct
            if isinstance(value, Expr):
                value = evaluate(value.text, names, source=template.source, line=value.line)
            if not isinstance(value, bool):
                raise ExpressionError(
                    template.source,
                    option.correct.line,
                    option.correct.text,
                    f"correct must be true or false, not {value!r}",
                )
            if value:
                correct.append(option.id)
        return tuple(correct)

    def option_order(self, part, rng) -> tuple[str, ...]:
        ids = [option.id for option in part.settings.options]
        if rng is not None and part.settings.shuffle:
            rng.shuffle(ids)
        return tuple(ids)

    def validate(self, checks, part, variant, seed) -> None:
        checks.count_key(part, variant.answers[part.id])
        names = names_for(variant.params)
        for option in part.settings.options:
            if option.diagnosis_when is None:
                continue
            when = option.diagnosis_when
            try:
                value = evaluate(when.text, names, source=checks.template.source, line=when.line)
            except ExpressionError as exc:
                checks.failures.add("choice", str(exc), seed, part.id)
                continue
            if not isinstance(value, bool):
                checks.failures.add(
                    "choice",
                    f"option {option.id}: diagnosis_when must be true or false, not {value!r}",
                    seed,
                    part.id,
                )
        count = len(variant.answers[part.id])
        if count == 0:
            checks.failures.add("choice", "no option is correct", seed, part.id)
        elif count > 1 and not part.settings.multiple:
            checks.failures.add(
                "choice", f"{count} options are correct but multiple is false", seed, part.id
            )

    def render(self, template, part, variant, names) -> Rendered:
        by_id = {option.id: option for option in part.settings.options}
        order = variant.option_order.get(part.id) or tuple(by_id)
        options = tuple((oid, render_text(template, by_id[oid].text, names)) for oid in order)
        return Rendered({"options": options}, {"multiple": part.settings.multiple})

    def render_feedback(self, template, part, variant) -> None:
        names = names_for(variant.params)
        for option in part.settings.options:
            render_text(template, option.feedback, names)

    def rendered_texts(self, part):
        options = part.settings.options
        return tuple(o.text for o in options) + tuple(o.feedback for o in options)

    # -- answering ----------------------------------------------------------------------------

    def clean(self, raw, part) -> list[str]:
        picks = as_list(raw)
        if not picks:
            raise AnswerRefused("Choose an option before checking.")
        if any(len(p) > MAX_OPTION_ID for p in picks) or len(picks) > MAX_PICKS:
            raise AnswerRefused("That choice is not one of the options.")
        return picks

    def draft(self, raw) -> str:
        picks = [raw] if isinstance(raw, str) else list(raw or [])
        return self.stored([p for p in picks if p][:MAX_PICKS]) if any(picks) else ""

    def stored(self, clean) -> str:
        return json.dumps(clean) if len(clean) != 1 else clean[0]

    def from_stored(self, raw: str) -> list[str]:
        """The option ids of a stored choice response (one id, or a JSON list of ids)."""
        if raw.startswith("["):
            try:
                return [str(x) for x in json.loads(raw)]
            except ValueError:
                return []
        return [raw] if raw else []

    def grade(self, template, variant, part, response: str | Sequence[str], *, earlier, grade_fn):
        from quizzes.grading.results import Grade

        picked = [response] if isinstance(response, str) else list(response)
        picked = [str(p).strip() for p in picked if str(p).strip()]
        known = {option.id: option for option in part.settings.options}
        if not picked:
            return Grade("invalid", 0.0, "Choose an option before submitting.")
        unknown = [p for p in picked if p not in known]
        if unknown:
            return Grade(
                "invalid", 0.0, f"Unknown option {unknown[0]!r}: choose one of the options."
            )
        if not part.settings.multiple and len(picked) > 1:
            return Grade("invalid", 0.0, "Choose exactly one option.")
        correct = set(variant.answers[part.id])
        chosen = set(picked)
        shown = ", ".join(sorted(chosen))
        names = names_for(variant.params)
        if chosen == correct:
            return Grade("correct", 1.0, "Correct.", interpreted=shown)
        wrong = [known[oid] for oid in picked if oid not in correct]
        feedback_option = next((o for o in wrong if o.feedback is not None), None)
        feedback = (
            render_text(template, feedback_option.feedback, names)
            if feedback_option
            else "Not quite."
            if part.settings.multiple
            else "That is not the right option."
        )
        diagnosis = next(
            (o.diagnosis for o in wrong if o.diagnosis and _diagnosed(template, o, names)), None
        )
        score = 0.0
        if part.settings.multiple and correct:
            score = max(0.0, (len(chosen & correct) - len(chosen - correct)) / len(correct))
            score = min(score, 0.99)
        return Grade("incorrect", score, feedback, diagnosis, interpreted=shown)

    # -- showing ------------------------------------------------------------------------------

    def input_state(self, facts, raw) -> list[str]:
        return self.from_stored(raw)

    def reading(self, facts, raw, interpreted) -> list[str]:
        return self.from_stored(raw)

    def answer_key(self, part, answer) -> list[str]:
        return list(answer) if isinstance(answer, (list, tuple)) else [str(answer)]

    def answer_text(self, part, answer, *, sig=None) -> str:
        """The right options as "id: text" (their text as the author wrote it)."""
        texts = {option.id: option.text.text for option in part.settings.options}
        ids = answer if isinstance(answer, (list, tuple)) else [answer]
        return "; ".join(f"{oid}: {texts.get(oid, '')}" for oid in ids)

    def demo_answer(self, part, answer, common, right, rng):
        options = [o.id for o in part.settings.options]
        correct = list(answer or [])
        if right:
            picked, diagnosis = correct, ""
        else:
            wrong = [o for o in part.settings.options if o.id not in correct] or list(
                part.settings.options
            )
            option = rng.choice(wrong)
            # a code that holds only in some variants is left out: the demo knows no variant
            picked = [option.id]
            diagnosis = option.diagnosis or "" if option.diagnosis_when is None else ""
        picked = picked or options[:1]
        return self.stored(picked), None, diagnosis


def _parse_option(rules, loc, index: int, names) -> Option | None:
    if not isinstance(loc.children, dict):
        rules.issue(loc, "options", "each option is a mapping with text and correct")
        return None
    rules.unknown_keys(
        loc, ["id", "text", "correct", "feedback", "diagnosis", "diagnosis_when"], "an option"
    )
    option_id = loc.get("id")
    ident = str(option_id.value) if option_id is not None else option_letter(index)
    if isinstance(option_id and option_id.value, bool):
        rules.issue(option_id, "id", "YAML reads yes/no/on/off as true/false: quote the id")
    elif not OPTION_ID.fullmatch(ident):
        rules.issue(option_id, "id", "option ids use [a-z0-9_-], at most 50 characters")
    text = rules.live(rules.text_field(loc, "text"), "text", names)
    correct_loc = loc.get("correct")
    correct: bool | Expr | None
    if correct_loc is None:
        rules.issue(loc, "correct", "each option needs correct: true, false or an expression")
        correct = None
    elif isinstance(correct_loc.value, bool):
        correct = correct_loc.value
    else:
        correct = rules.expr(correct_loc, "correct", names)
    diagnosis = rules.parse_code(loc.get("diagnosis"), "diagnosis")
    when_loc = loc.get("diagnosis_when")
    when = None
    if when_loc is not None:
        if diagnosis is None:
            rules.issue(when_loc, "diagnosis_when", "says when to record a diagnosis: give one")
        when = rules.expr(when_loc, "diagnosis_when", names)
    feedback = rules.live(loc.get("feedback"), "feedback", names)
    if text is None or correct is None:
        return None
    return Option(ident, text, correct, feedback, diagnosis, when)


def _diagnosed(template, option, names) -> bool:
    """Whether a wrong pick of ``option`` records its code in this variant: always, or where
    its ``diagnosis_when`` holds (the slip the feedback describes can depend on the variant)."""
    if option.diagnosis_when is None:
        return True
    when = option.diagnosis_when
    return bool(evaluate(when.text, names, source=template.source, line=when.line))

"""The formula kind: a symbolic answer in named variables, graded by the formula grader
under the worker pool's hard time and memory limits (it calls sympy).  While the student types,
the answer is previewed as math; the answer key shows the formula simplified ("b/2", never
"2·b/4")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from content.expressions import (
    ExpressionError,
    did_you_mean,
    evaluate,
    format_value,
    parse_options,
    scan_live,
)
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, Rendered
from quizzes.engine.kinds.formula.checks import FormulaChecks
from quizzes.engine.model import DOMAINS, Template, Text
from quizzes.engine.parse.base import IDENTIFIER
from quizzes.grading.formula.grade import MAX_FORMULA_LENGTH

# A live value stands in as this variable while the answer's grammar is checked.
_LIVE_PLACEHOLDER = "livevalue{}"


@dataclass(frozen=True)
class FormulaSettings:
    # (name, domain) of each variable a student may use
    variables: tuple[tuple[str, str], ...]
    formula: Text | None


@register
class FormulaKind(AnswerKind):
    name = "formula"
    label = "Formula (symbolic answer)"
    fields = ("variables", "answer")
    noun = "a formula"
    max_length = MAX_FORMULA_LENGTH
    grader = "symbolic"
    bounded = True

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> FormulaSettings:
        variables_loc = loc.get("variables")
        variables: list[tuple[str, str]] = []
        if variables_loc is None:
            rules.issue(loc, "variables", "a formula part needs variables")
        elif isinstance(variables_loc.value, list):
            variables = [(str(v), "positive") for v in variables_loc.value]
        elif isinstance(variables_loc.value, dict):
            variables = [(str(k), str(v)) for k, v in variables_loc.value.items()]
        else:
            rules.issue(variables_loc, "variables", "must be a list or a mapping name: domain")
        for name, domain in variables:
            if not IDENTIFIER.fullmatch(name):
                rules.issue(variables_loc, "variables", f"'{name}' is not a valid symbol")
            if domain not in DOMAINS:
                hint = did_you_mean(domain, DOMAINS)
                rules.issue(
                    variables_loc,
                    "variables",
                    f"{name}: domain must be one of {', '.join(DOMAINS)}{hint}",
                )
        answer = rules.text_field(loc, "answer")
        formula = rules.live(answer, "answer", answer_names) if answer is not None else None
        if formula is not None and not [i for i in rules.issues if i.field == "variables"]:
            problem = formula_problem(formula.text, dict(variables))
            if problem:
                part_id = loc.get("id").value
                rules.issue(answer, "answer", f"part '{part_id}': {problem}")
        return FormulaSettings(tuple(variables), formula)

    def answer(self, template, part, names) -> str:
        return exact_formula(template, part.settings.formula, names)

    def validate(self, checks, part, variant, seed) -> None:
        # Shared across seeds: variants that share an answer text share one grading call.
        formulas = checks.memo(self.name, lambda: FormulaChecks(checks, self.grader))
        formulas.check(part, variant.answers[part.id], seed)

    def render(self, template, part, variant, names) -> Rendered:
        return Rendered({}, {"variables": tuple(name for name, _ in part.settings.variables)})

    def rendered_texts(self, part):
        return ()  # its formula is evaluated with the answer, never rendered

    # -- answering ----------------------------------------------------------------------------

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        text = response if isinstance(response, str) else " ".join(response)
        return grade_fn(
            self.grader,
            response=text,
            expected=variant.answers[part.id],
            variables=dict(part.settings.variables),
        )

    def live_preview(self, part, raw) -> tuple[str, bool, str]:
        from quizzes import grading

        if not raw.strip():
            return "", True, ""
        result = grading.preview_formula(raw, dict(part.settings.variables))
        if not result.ok:
            return result.error or "This formula cannot be read.", False, ""
        return result.interpreted or "", True, result.latex or ""

    def read_back(self, part, raw) -> tuple[bool, str]:
        reading, ok, _ = self.live_preview(part, raw.strip())
        return ok, (f"Read as {reading}" if ok and reading else reading or "Saved.")

    # -- showing ------------------------------------------------------------------------------

    def reading(self, facts, raw, interpreted) -> dict | None:
        if not interpreted:
            return None
        return {"latex": formula_latex(raw, tuple(facts.get("variables", ()))), "text": interpreted}

    def answer_key(self, part, answer) -> dict:
        variables = tuple(name for name, _ in part.settings.variables)
        return {"latex": simplified_latex(str(answer), variables), "text": str(answer)}


@lru_cache(maxsize=4096)
def formula_latex(raw: str, variables: tuple[str, ...]) -> str:
    """LaTeX of a readable formula as written (for showing it as math), or "" when it is not
    (kept per process: a stored answer never changes its text)."""
    from quizzes import grading
    from quizzes.engine.kinds.base import MAX_ANSWER_LENGTH

    if not raw or len(raw) > MAX_ANSWER_LENGTH:
        return ""
    try:
        result = grading.preview_formula(raw, list(variables))
    except Exception:  # noqa: BLE001 - a display nicety; the graded text is shown instead
        return ""
    return (result.latex or "") if result.ok else ""


@lru_cache(maxsize=4096)
def simplified_latex(formula: str, variables: tuple[str, ...]) -> str:
    """LaTeX of an answer formula in its simplest form ("b/2" for "2*b/4"), or of the formula
    as written when it cannot be simplified in time (kept per process)."""
    from quizzes.engine.kinds.formula.simplify import simplified_latex as simplest

    return simplest(formula, variables) or formula_latex(formula, variables)


def exact_formula(template: Template, text: Text, names) -> str:
    """A formula answer with its live values substituted exactly (no rounding)."""
    pieces, position = [], 0
    for span in scan_live(text.text, source=template.source, first_line=text.line or 1):
        pieces.append(text.text[position : span.start])
        value = evaluate(span.expr, names, source=template.source, line=span.line)
        if span.options:
            # No thousands separators: the answer is read back by the formula parser.
            pieces.append(
                format_value(value, parse_options(span.options), names=names, group=False)
            )
        elif isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            pieces.append(str(int(value)))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            pieces.append(f"({value!r})" if value < 0 else repr(value))
        else:
            pieces.append(str(value))
        position = span.end
    pieces.append(text.text[position:])
    return "".join(pieces).strip()


def formula_problem(text: str, variables: dict[str, str]) -> str | None:
    """Why the formula answer `text` cannot be graded against, or None.

    Each live value ``{{ ... }}`` stands in as a fresh real variable, so what is checked is the
    formula's grammar (names, functions, brackets, sizes of literal numbers), whatever numbers a
    variant will put there; without this the grader would only find an unknown function when
    a student answers.
    """
    from quizzes.grading import ResponseError
    from quizzes.grading.formula.grade import parse_formula

    try:
        spans = list(scan_live(text))
    except ExpressionError:
        return None  # reported by the live-text check already
    pieces, position, names = [], 0, dict(variables)
    for index, span in enumerate(spans):
        name = _LIVE_PLACEHOLDER.format(index)
        names[name] = "real"
        pieces += [text[position : span.start], f"({name})"]
        position = span.end
    pieces.append(text[position:])
    try:
        parse_formula("".join(pieces), names)
    except ResponseError as error:
        message = re.sub(r"livevalue\d+, |, livevalue\d+|livevalue\d+", "", error.message)
        message = message.replace("()", "(none)")
        return f"the answer formula {text.strip()!r} cannot be graded: {message}"
    except (ValueError, TypeError) as error:
        return f"the answer formula cannot be graded: {error}"
    return None

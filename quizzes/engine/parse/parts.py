"""Parsing ``parts``: numeric, formula and choice parts, options and common errors."""

from __future__ import annotations

import re
from typing import Any

from content.expressions import ExpressionError, did_you_mean, scan_live
from quizzes.engine.codes import DIAGNOSIS_CODES
from quizzes.engine.errors import TemplateIssue
from quizzes.engine.model import DOMAINS, PART_KINDS, CommonErrorSpec, Expr, Option, Part
from quizzes.engine.parse.base import (
    COMMON_PART_FIELDS,
    IDENTIFIER,
    OPTION_ID,
    PART_FIELDS,
    PART_ID,
    ParserBase,
    _as_number,
    _letter,
)
from quizzes.engine.units import unit_problem
from quizzes.engine.yamlnodes import Loc

# A live value stands in as this variable while the answer's grammar is checked.
_LIVE_PLACEHOLDER = "livevalue{}"


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


class PartRules(ParserBase):
    # -- parts ---------------------------------------------------------------------------------

    def parse_parts(self, root: Loc, names: frozenset[str]) -> tuple[Part, ...]:
        loc = root.get("parts")
        if loc is None or not isinstance(loc.children, list) or not loc.children:
            self.issue(loc or root, "parts", "list at least one part")
            return ()
        parts: list[Part] = []
        seen: dict[str, str] = {}
        for item in loc.items():
            part = self.parse_part(item, names, seen)
            if part is not None:
                parts.append(part)
                seen[part.id] = part.kind
        return tuple(parts)

    def parse_part(self, loc: Loc, names: frozenset[str], seen: dict[str, str]) -> Part | None:
        if not isinstance(loc.children, dict):
            self.issue(loc, "parts", "each part must be a mapping with id and kind")
            return None
        part_id = self.text_field(loc, "id")
        kind = self.text_field(loc, "kind")
        if part_id is None or kind is None:
            return None
        if not PART_ID.fullmatch(part_id.value):
            self.issue(
                part_id,
                "id",
                "use a lowercase identifier: a letter, then [a-z0-9_], at most 50 in all",
            )
            return None
        if part_id.value in seen:
            self.issue(part_id, "id", f"part '{part_id.value}' is defined twice")
            return None
        if kind.value not in PART_KINDS:
            hint = did_you_mean(kind.value, PART_KINDS)
            self.issue(kind, "kind", f"must be one of {', '.join(PART_KINDS)}{hint}")
            return None
        self.unknown_keys(loc, COMMON_PART_FIELDS + PART_FIELDS[kind.value], f"a {kind.value} part")
        uses = self.parse_uses(loc.get("uses"), seen)
        answer_names = names | {f"part_{u}" for u in uses}
        points = self.number(loc.get("points"), "points")
        if points is not None and points < 0:
            self.issue(loc.get("points"), "points", "must not be negative")
        common = dict(
            id=part_id.value,
            kind=kind.value,
            line=loc.line,
            prompt=self.live(loc.get("prompt"), "prompt", names),
            points=1.0 if points is None else points,
            uses=uses,
            common_errors=self.parse_common_errors(loc.get("common_errors"), answer_names),
        )
        if common["common_errors"] and kind.value != "numeric":
            self.issue(loc.get("common_errors"), "common_errors", "only numeric parts list them")
        if kind.value == "numeric":
            return Part(**common, **self.parse_numeric(loc, answer_names))
        if kind.value == "formula":
            return Part(**common, **self.parse_formula(loc, answer_names))
        return Part(**common, **self.parse_choice_part(loc, names))

    def parse_uses(self, loc: Loc | None, seen: dict[str, str]) -> tuple[str, ...]:
        uses = self.str_list(loc, "uses")
        for used in uses:
            if seen.get(used) != "numeric":
                reason = "is not a numeric part" if used in seen else "is not an earlier part"
                self.issue(loc, "uses", f"'{used}' {reason}{did_you_mean(used, seen)}")
        return uses

    def parse_numeric(self, loc: Loc, names: frozenset[str]) -> dict[str, Any]:
        fields: dict[str, Any] = {"answer": self.expr(loc.get("answer"), "answer", names)}
        if loc.get("answer") is None:
            self.issues[-1] = TemplateIssue(loc.line, "answer", "a numeric part needs an answer")
        unit = loc.get("unit")
        if unit is not None:
            problem = unit_problem(unit.value)
            if problem:
                self.issue(unit, "unit", problem)
            fields["unit"] = str(unit.value)
        for key in ("rtol", "atol", "factor"):
            value = self.number(loc.get(key), key)
            if value is not None:
                if value < 0 or (key == "factor" and value <= 1):
                    self.issue(
                        loc.get(key), key, "out of range" + (" (> 1)" if key == "factor" else "")
                    )
                fields[key] = value
        for key in ("sigfigs", "decimals"):
            value = self.number(loc.get(key), key, integer=True)
            if value is not None:
                fields[key] = value
        if "sigfigs" in fields and "decimals" in fields:
            self.issue(loc.get("decimals"), "decimals", "give sigfigs or decimals, not both")
        plausible = loc.get("plausible")
        pair = (
            [_as_number(v) for v in plausible.value]
            if plausible is not None and isinstance(plausible.value, list)
            else []
        )
        if plausible is None:
            self.issue(loc, "plausible", "a numeric part needs plausible: [low, high]")
        elif len(pair) != 2 or None in pair or pair[0] > pair[1]:
            self.issue(plausible, "plausible", "must be [low, high] with low <= high")
        else:
            fields["plausible"] = (pair[0], pair[1])
        return fields

    def parse_formula(self, loc: Loc, names: frozenset[str]) -> dict[str, Any]:
        variables_loc = loc.get("variables")
        variables: list[tuple[str, str]] = []
        if variables_loc is None:
            self.issue(loc, "variables", "a formula part needs variables")
        elif isinstance(variables_loc.value, list):
            variables = [(str(v), "positive") for v in variables_loc.value]
        elif isinstance(variables_loc.value, dict):
            variables = [(str(k), str(v)) for k, v in variables_loc.value.items()]
        else:
            self.issue(variables_loc, "variables", "must be a list or a mapping name: domain")
        for name, domain in variables:
            if not IDENTIFIER.fullmatch(name):
                self.issue(variables_loc, "variables", f"'{name}' is not a valid symbol")
            if domain not in DOMAINS:
                hint = did_you_mean(domain, DOMAINS)
                self.issue(
                    variables_loc,
                    "variables",
                    f"{name}: domain must be one of {', '.join(DOMAINS)}{hint}",
                )
        answer = self.text_field(loc, "answer")
        formula = self.live(answer, "answer", names) if answer is not None else None
        if formula is not None and not [i for i in self.issues if i.field == "variables"]:
            problem = formula_problem(formula.text, dict(variables))
            if problem:
                part_id = loc.get("id").value
                self.issue(answer, "answer", f"part '{part_id}': {problem}")
        return {"variables": tuple(variables), "formula": formula}

    def parse_choice_part(self, loc: Loc, names: frozenset[str]) -> dict[str, Any]:
        options_loc = loc.get("options")
        options: list[Option] = []
        if options_loc is None or len(options_loc.items()) < 2:
            self.issue(options_loc or loc, "options", "a choice part needs at least 2 options")
        for index, item in enumerate(options_loc.items() if options_loc else ()):
            option = self.parse_option(item, index, names)
            if option is not None:
                if any(o.id == option.id for o in options):
                    self.issue(item, "id", f"option id '{option.id}' is used twice")
                options.append(option)
        fields: dict[str, Any] = {"options": tuple(options)}
        for key in ("multiple", "shuffle"):
            value = loc.get(key)
            if value is not None:
                if not isinstance(value.value, bool):
                    self.issue(value, key, "must be true or false")
                else:
                    fields[key] = value.value
        return fields

    def parse_option(self, loc: Loc, index: int, names: frozenset[str]) -> Option | None:
        if not isinstance(loc.children, dict):
            self.issue(loc, "options", "each option is a mapping with text and correct")
            return None
        self.unknown_keys(loc, ["id", "text", "correct", "feedback", "diagnosis"], "an option")
        option_id = loc.get("id")
        ident = str(option_id.value) if option_id is not None else _letter(index)
        if isinstance(option_id and option_id.value, bool):
            self.issue(option_id, "id", "YAML reads yes/no/on/off as true/false: quote the id")
        elif not OPTION_ID.fullmatch(ident):
            self.issue(option_id, "id", "option ids use [a-z0-9_-], at most 50 characters")
        text = self.live(self.text_field(loc, "text"), "text", names)
        correct_loc = loc.get("correct")
        correct: bool | Expr | None
        if correct_loc is None:
            self.issue(loc, "correct", "each option needs correct: true, false or an expression")
            correct = None
        elif isinstance(correct_loc.value, bool):
            correct = correct_loc.value
        else:
            correct = self.expr(correct_loc, "correct", names)
        diagnosis = self.parse_code(loc.get("diagnosis"), "diagnosis")
        feedback = self.live(loc.get("feedback"), "feedback", names)
        if text is None or correct is None:
            return None
        return Option(ident, text, correct, feedback, diagnosis)

    def parse_code(self, loc: Loc | None, field: str) -> str | None:
        if loc is None:
            return None
        code = str(loc.value)
        if code not in DIAGNOSIS_CODES:
            hint = did_you_mean(code, DIAGNOSIS_CODES)
            self.issue(loc, field, f"unknown diagnosis code '{code}'{hint} (see the docs' list)")
        return code

    def parse_common_errors(self, loc: Loc | None, names: frozenset[str]):
        if loc is None:
            return ()
        if not isinstance(loc.children, list):
            self.issue(loc, "common_errors", "must be a list of {code, value, feedback}")
            return ()
        errors = []
        for item in loc.items():
            if not isinstance(item.children, dict):
                self.issue(item, "common_errors", "each entry is {code, value, feedback}")
                continue
            self.unknown_keys(item, ["code", "value", "feedback", "rtol"], "a common error")
            code = self.parse_code(item.get("code"), "code")
            if code is None:
                self.issue(item, "code", "is required")
            value = self.expr(item.get("value"), "value", names)
            feedback = self.live(self.text_field(item, "feedback"), "feedback", names)
            rtol = self.number(item.get("rtol"), "rtol")
            if code and value and feedback:
                errors.append(CommonErrorSpec(code, value, feedback, rtol))
        return tuple(errors)

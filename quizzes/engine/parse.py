"""``parse_template``: YAML text to a checked ``Template``, every problem reported with its line.

The parser never stops at the first problem: an author (or the studio) gets the whole list.
Expressions and live text are checked statically here (syntax, unknown names with "did you
mean", options and units); values are checked when variants are generated.
"""

from __future__ import annotations

import keyword
import math
import re
from typing import Any

import yaml

from content.expressions import check_expression, check_live, did_you_mean
from quizzes.engine.codes import DIAGNOSIS_CODES
from quizzes.engine.errors import TemplateError, TemplateIssue
from quizzes.engine.model import (
    CATALOGS,
    CHAPTERS,
    DOMAINS,
    PART_KINDS,
    CommonErrorSpec,
    Expr,
    Hint,
    Option,
    Outcomes,
    Parameter,
    Part,
    Template,
    Text,
)
from quizzes.engine.namespace import base_names
from quizzes.engine.units import unit_problem
from quizzes.engine.yamlnodes import Loc, compose

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
PART_ID = re.compile(r"[a-z][a-z0-9_]*")
OPTION_ID = re.compile(r"[a-z0-9_-]+")
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

TOP_FIELDS = (
    "slug title chapter objectives tags difficulty min_variants parameters constraints "
    "max_tries prompt parts hints solution outcomes"
).split()
PART_FIELDS = {
    "numeric": "answer unit rtol atol sigfigs decimals factor plausible".split(),
    "formula": "variables answer".split(),
    "choice": "options multiple shuffle".split(),
}
COMMON_PART_FIELDS = "id kind prompt points uses common_errors".split()
PARAMETER_KINDS = ("choice", "range", "loguniform", "value")


def parse_template(text: str, *, source: str) -> Template:
    """Parse a YAML template; raise ``TemplateError`` listing every problem with its line."""
    parser = _Parser(source)
    template = parser.parse(text)
    if parser.issues or template is None:
        raise TemplateError(parser.issues, source)
    return template


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.issues: list[TemplateIssue] = []
        self.functions = frozenset(base_names())

    # -- reporting -----------------------------------------------------------------------------

    def issue(self, loc: Loc | int | None, field: str, message: str) -> None:
        line = loc.line if isinstance(loc, Loc) else loc
        self.issues.append(TemplateIssue(line, field, message))

    def unknown_keys(self, loc: Loc, allowed: list[str], where: str) -> None:
        for key in loc.keys():
            if key not in allowed:
                hint = did_you_mean(key, allowed)
                self.issue(loc.get(key), key, f"unknown field in {where}{hint}")
        for key, line in loc.duplicates:
            self.issue(line, key, "appears twice; keep one")

    # -- typed getters -------------------------------------------------------------------------

    def text_field(self, loc: Loc, key: str, *, required: bool = True) -> Loc | None:
        child = loc.get(key)
        if child is None:
            if required:
                self.issue(loc, key, "is required")
            return None
        if not isinstance(child.value, str) or not child.value.strip():
            self.issue(child, key, "must be non-empty text")
            return None
        return child

    def number(self, loc: Loc | None, field: str, *, integer: bool = False) -> float | None:
        if loc is None:
            return None
        value = _as_number(loc.value)
        if value is None or (integer and value != int(value)):
            kind = "an integer" if integer else "a number"
            self.issue(loc, field, f"must be {kind}, not {loc.value!r}")
            return None
        return int(value) if integer else value

    def str_list(self, loc: Loc | None, field: str) -> tuple[str, ...]:
        if loc is None:
            return ()
        if not isinstance(loc.value, list) or not all(isinstance(v, str) for v in loc.value):
            self.issue(loc, field, "must be a list of text items")
            return ()
        return tuple(loc.value)

    def expr(self, loc: Loc | None, field: str, names: frozenset[str]) -> Expr | None:
        if loc is None:
            self.issue(None, field, "is required")
            return None
        value = loc.value
        if isinstance(value, bool) or isinstance(value, (int, float)):
            value = repr(value)
        if not isinstance(value, str) or not value.strip():
            self.issue(loc, field, "must be an expression written as text")
            return None
        try:
            check_expression(value, names, source=self.source, line=loc.line)
        except Exception as exc:  # noqa: BLE001 - ExpressionError, reported with its message
            self.issue(loc, field, getattr(exc, "message", str(exc)))
            return None
        return Expr(value, loc.line)

    def live(self, loc: Loc | None, field: str, names: frozenset[str]) -> Text | None:
        if loc is None:
            return None
        if not isinstance(loc.value, str):
            self.issue(loc, field, "must be text")
            return None
        for error in check_live(loc.value, names, self.source, first_line=loc.text_line):
            self.issue(error.line, field, f"{error.expr}: {error.message}")
        return Text(loc.value, loc.text_line)

    # -- the template --------------------------------------------------------------------------

    def parse(self, text: str) -> Template | None:
        try:
            root = compose(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            self.issue(line, "yaml", f"not valid YAML: {problem}")
            return None
        if root is None or not isinstance(root.children, dict):
            self.issue(1, "template", "must be a YAML mapping of fields (slug: ..., title: ...)")
            return None
        self.unknown_keys(root, TOP_FIELDS, "the template")
        head = self.parse_head(root)
        parameters, names = self.parse_parameters(root.get("parameters"))
        constraints = self.parse_constraints(root.get("constraints"), names)
        prompt = self.live(self.text_field(root, "prompt"), "prompt", names)
        parts = self.parse_parts(root, names)
        part_names = frozenset(f"part_{p.id}" for p in parts)
        hints = self.parse_hints(root.get("hints"), names | part_names)
        solution = self.live(self.text_field(root, "solution"), "solution", names | part_names)
        outcomes = self.parse_outcomes(root.get("outcomes"), names | part_names)
        if self.issues or prompt is None or solution is None or head is None:
            return None
        return Template(
            **head,
            prompt=prompt,
            parts=parts,
            solution=solution,
            source=self.source,
            parameters=parameters,
            constraints=constraints,
            hints=hints,
            outcomes=outcomes,
            text=text,
        )

    def parse_head(self, root: Loc) -> dict[str, Any] | None:
        slug = self.text_field(root, "slug")
        if slug is not None and not SLUG.fullmatch(slug.value):
            self.issue(slug, "slug", "use lowercase letters, digits and single hyphens only")
        title = self.text_field(root, "title")
        chapter = self.text_field(root, "chapter")
        if chapter is not None and chapter.value not in CHAPTERS:
            hint = did_you_mean(chapter.value, CHAPTERS)
            self.issue(chapter, "chapter", f"must be one of {', '.join(CHAPTERS)}{hint}")
        objectives = self.str_list(root.get("objectives"), "objectives")
        if not objectives:
            self.issue(root.get("objectives") or root, "objectives", "list at least one objective")
        difficulty = self.number(root.get("difficulty"), "difficulty", integer=True)
        if root.get("difficulty") is None:
            self.issue(root, "difficulty", "is required (1 to 5)")
        elif difficulty is not None and not 1 <= difficulty <= 5:
            self.issue(root.get("difficulty"), "difficulty", "must be from 1 to 5")
        min_variants = self.number(root.get("min_variants"), "min_variants", integer=True)
        max_tries = self.number(root.get("max_tries"), "max_tries", integer=True)
        for key, value in (("min_variants", min_variants), ("max_tries", max_tries)):
            if value is not None and value < 1:
                self.issue(root.get(key), key, "must be at least 1")
        if None in (slug, title, chapter, difficulty):
            return None
        return {
            "slug": slug.value,
            "title": title.value.strip(),
            "chapter": chapter.value,
            "objectives": objectives,
            "difficulty": difficulty,
            "tags": self.str_list(root.get("tags"), "tags"),
            "min_variants": min_variants or 1,
            "max_tries": max_tries or 1000,
        }

    # -- parameters ----------------------------------------------------------------------------

    def parse_parameters(self, loc: Loc | None) -> tuple[tuple[Parameter, ...], frozenset[str]]:
        names = set(self.functions)
        parameters: list[Parameter] = []
        if loc is None:
            return (), frozenset(names)
        if not isinstance(loc.children, dict):
            self.issue(loc, "parameters", "must be a mapping of name: {choice|range|...}")
            return (), frozenset(names)
        for key, line in loc.duplicates:
            self.issue(line, key, "parameter defined twice")
        for name, spec in loc.children.items():
            if self.check_parameter_name(name, spec):
                parameter = self.parse_parameter(name, spec, frozenset(names))
                if parameter is not None:
                    parameters.append(parameter)
            names.add(name)
        return tuple(parameters), frozenset(names)

    def check_parameter_name(self, name: str, spec: Loc) -> bool:
        if not IDENTIFIER.fullmatch(name) or keyword.iskeyword(name):
            self.issue(spec, name, "a parameter name must be an identifier (letters, digits, _)")
        elif name.startswith("part_"):
            self.issue(spec, name, "names starting with 'part_' are reserved for part answers")
        elif name in self.functions or name in ("True", "False", "None"):
            self.issue(spec, name, f"'{name}' is already a function or constant; rename it")
        else:
            return True
        return False

    def parse_parameter(self, name: str, spec: Loc, names: frozenset[str]) -> Parameter | None:
        if not isinstance(spec.children, dict):
            self.issue(spec, name, "must be a mapping such as {choice: [...]} or {value: '...'}")
            return None
        kinds = [k for k in spec.keys() if k in PARAMETER_KINDS]
        if len(kinds) != 1:
            self.issue(spec, name, "give exactly one of choice, range, loguniform, value")
            return None
        kind = kinds[0]
        allowed = {"choice": ["catalog"], "range": ["step"], "loguniform": ["sig"], "value": []}
        self.unknown_keys(spec, [kind, *allowed[kind]], f"parameter '{name}'")
        body = spec.get(kind)
        if kind == "value":
            expr = self.expr(body, name, names)
            return Parameter(name, kind, spec.line, expr=expr) if expr else None
        if kind == "choice":
            return self.parse_choice(name, spec, body)
        bounds = body.value if isinstance(body.value, list) else None
        pair = [_as_number(v) for v in bounds] if bounds else []
        if len(pair) != 2 or None in pair or pair[0] > pair[1]:
            self.issue(body, name, f"{kind} needs [low, high] with low <= high")
            return None
        low, high = pair
        if kind == "range":
            step = self.number(spec.get("step"), "step") if spec.get("step") else 1
            if step is None or step <= 0:
                self.issue(spec.get("step") or spec, "step", "must be a positive number")
                return None
            if (high - low) / step > 1e6:
                self.issue(spec, name, "range has more than a million steps")
            return Parameter(name, kind, spec.line, low=low, high=high, step=step)
        sig = self.number(spec.get("sig"), "sig", integer=True) if spec.get("sig") else 2
        if low <= 0:
            self.issue(body, name, "loguniform needs a positive low bound")
            return None
        if sig is None or not 1 <= sig <= 12:
            self.issue(spec.get("sig"), "sig", "must be from 1 to 12")
            return None
        return Parameter(name, kind, spec.line, low=low, high=high, sig=sig)

    def parse_choice(self, name: str, spec: Loc, body: Loc) -> Parameter | None:
        values = body.value
        if not isinstance(values, list) or not values:
            self.issue(body, name, "choice needs a non-empty list")
            return None
        if not all(isinstance(v, (str, int, float)) for v in values):
            self.issue(body, name, "choice values must be text or numbers")
            return None
        catalog_loc = spec.get("catalog")
        catalog = None
        if catalog_loc is not None:
            catalog = catalog_loc.value
            if catalog not in CATALOGS:
                hint = did_you_mean(str(catalog), CATALOGS)
                self.issue(catalog_loc, "catalog", f"must be one of {', '.join(CATALOGS)}{hint}")
                return None
            lookup = base_names().get(catalog)
            for value in values:
                try:
                    lookup(str(value))
                except Exception as exc:  # noqa: BLE001 - KeyError naming close entries
                    message = exc.args[0] if exc.args else str(exc)
                    self.issue(body, name, f"{catalog} {value!r}: {message}")
            values = [str(v) for v in values]
        return Parameter(name, "choice", spec.line, values=tuple(values), catalog=catalog)

    def parse_constraints(self, loc: Loc | None, names: frozenset[str]) -> tuple[Expr, ...]:
        if loc is None:
            return ()
        if not isinstance(loc.children, list):
            self.issue(loc, "constraints", "must be a list of expressions")
            return ()
        exprs = [self.expr(item, "constraints", names) for item in loc.items()]
        return tuple(e for e in exprs if e is not None)

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
            self.issue(part_id, "id", "use a lowercase identifier: a letter, then [a-z0-9_]")
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
            self.issue(option_id, "id", "option ids use [a-z0-9_-]")
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

    # -- hints and outcomes --------------------------------------------------------------------

    def parse_hints(self, loc: Loc | None, names: frozenset[str]) -> tuple[Hint, ...]:
        if loc is None:
            return ()
        if not isinstance(loc.children, list):
            self.issue(loc, "hints", "must be a list of {after: N, text: ...}")
            return ()
        hints = []
        for item in loc.items():
            if not isinstance(item.children, dict):
                self.issue(item, "hints", "each hint is {after: N, text: ...}")
                continue
            self.unknown_keys(item, ["after", "text"], "a hint")
            after = self.number(item.get("after"), "after", integer=True)
            if item.get("after") is None:
                self.issue(item, "after", "is required (tries before the hint shows)")
            elif after is not None and after < 0:
                self.issue(item.get("after"), "after", "must not be negative")
            text = self.live(self.text_field(item, "text"), "text", names)
            if after is not None and text is not None:
                hints.append(Hint(after, text))
        return tuple(hints)

    def parse_outcomes(self, loc: Loc | None, names: frozenset[str]) -> Outcomes | None:
        if loc is None:
            return None
        if not isinstance(loc.children, dict):
            self.issue(loc, "outcomes", "must be a mapping with category")
            return None
        self.unknown_keys(loc, ["category", "expect", "min_share"], "outcomes")
        category = self.expr(loc.get("category"), "category", names)
        expect = self.str_list(loc.get("expect"), "expect")
        share = self.number(loc.get("min_share"), "min_share")
        if share is not None and not 0 <= share < 1:
            self.issue(loc.get("min_share"), "min_share", "must be from 0 to 1")
        if category is None:
            return None
        return Outcomes(category, expect, 0.15 if share is None else share)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return (
            int(number)
            if number.is_integer() and "." not in value and "e" not in value.lower()
            else number
        )
    return None


def _letter(index: int) -> str:
    return chr(ord("a") + index) if index < 26 else f"o{index}"

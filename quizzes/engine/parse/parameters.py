"""Parsing ``parameters`` and ``constraints``."""

from __future__ import annotations

import keyword

from content.expressions import did_you_mean
from quizzes.engine.model import CATALOGS, Expr, Parameter
from quizzes.engine.namespace import base_names
from quizzes.engine.parse.base import IDENTIFIER, PARAMETER_KINDS, ParserBase, as_number
from quizzes.engine.yamlnodes import Loc


class ParameterRules(ParserBase):
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
        pair = [as_number(v) for v in bounds] if bounds else []
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

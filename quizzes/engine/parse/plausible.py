"""Parsing ``plausible``: the plausibility checks a template declares (see ``engine.plausible``)."""

from __future__ import annotations

from content.expressions import did_you_mean
from quizzes.engine.model import PlausibleCheck
from quizzes.engine.parse.base import ParserBase
from quizzes.engine.plausible import CHECKS
from quizzes.engine.yamlnodes import Loc


class PlausibleRules(ParserBase):
    def parse_plausible(self, loc: Loc | None, names: frozenset[str]) -> tuple[PlausibleCheck, ...]:
        if loc is None:
            return ()
        if not isinstance(loc.children, list):
            self.issue(loc, "plausible", "must be a list of {check: name, argument: expression}")
            return ()
        checks = []
        for item in loc.items():
            check = self.parse_check(item, names)
            if check is not None:
                checks.append(check)
        return tuple(checks)

    def parse_check(self, item: Loc, names: frozenset[str]) -> PlausibleCheck | None:
        if not isinstance(item.children, dict):
            self.issue(item, "plausible", "each entry is {check: name, argument: expression}")
            return None
        name_loc = item.get("check")
        if name_loc is None or not isinstance(name_loc.value, str):
            self.issue(item, "check", f"is required: one of {', '.join(CHECKS)}")
            return None
        kind = CHECKS.get(name_loc.value)
        if kind is None:
            hint = did_you_mean(name_loc.value, list(CHECKS))
            known = ", ".join(CHECKS)
            message = f"unknown check '{name_loc.value}'{hint} (known: {known})"
            self.issue(name_loc, "check", message)
            return None
        arguments = []
        ok = True
        for key in item.keys():
            if key == "check":
                continue
            if key not in kind.arguments:
                hint = did_you_mean(key, list(kind.arguments))
                self.issue(
                    item.get(key),
                    key,
                    f"unknown argument of check '{kind.name}'{hint} "
                    f"(it takes {', '.join(kind.arguments)})",
                )
                ok = False
                continue
            expr = self.expr(item.get(key), key, names)
            if expr is None:
                ok = False
            else:
                arguments.append((key, expr))
        for key, line in item.duplicates:
            self.issue(line, key, "appears twice; keep one")
            ok = False
        for key in kind.required:
            if item.get(key) is None:
                self.issue(item, key, f"check '{kind.name}' needs the argument '{key}'")
                ok = False
        return PlausibleCheck(kind.name, tuple(arguments), name_loc.line) if ok else None

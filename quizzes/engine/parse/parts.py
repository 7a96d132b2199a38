"""Parsing ``parts``: the fields every part has; each kind's own fields (its settings) are
parsed by its folder in ``quizzes.engine.kinds``, with the tools here (``parse_common_errors``,
``parse_code``) and in ``ParserBase``."""

from __future__ import annotations

from content.expressions import did_you_mean
from quizzes.engine import kinds
from quizzes.engine.codes import DIAGNOSIS_CODES
from quizzes.engine.model import CommonErrorSpec, Part
from quizzes.engine.parse.base import COMMON_PART_FIELDS, PART_ID, ParserBase
from quizzes.engine.yamlnodes import Loc


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
        try:
            answer_kind = kinds.kind_named(kind.value)
        except kinds.UnknownKind as unknown:
            self.issue(kind, "kind", unknown.message)
            return None
        fields = COMMON_PART_FIELDS + list(answer_kind.fields)
        self.unknown_keys(loc, fields, f"a {kind.value} part")
        uses = self.parse_uses(loc.get("uses"), seen)
        answer_names = names | {f"part_{u}" for u in uses}
        points = self.number(loc.get("points"), "points")
        if points is not None and points < 0:
            self.issue(loc.get("points"), "points", "must not be negative")
        prompt = self.live(loc.get("prompt"), "prompt", names)
        settings = answer_kind.parse(self, loc, names=names, answer_names=answer_names)
        return Part(
            id=part_id.value,
            kind=kind.value,
            line=loc.line,
            prompt=prompt,
            points=1.0 if points is None else points,
            uses=uses,
            settings=settings,
        )

    def parse_uses(self, loc: Loc | None, seen: dict[str, str]) -> tuple[str, ...]:
        uses = self.str_list(loc, "uses")
        for used in uses:
            if used not in seen or not kinds.kind_named(seen[used]).gives_value:
                reason = (
                    "is not a part that gives a value" if used in seen else "is not an earlier part"
                )
                self.issue(loc, "uses", f"'{used}' {reason}{did_you_mean(used, seen)}")
        return uses

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
            if code and code in {e.code for e in errors}:
                # A variant keeps one value per code: the second would silently replace the first.
                self.issue(item.get("code"), "code", f"'{code}' is listed twice in this part")
            elif code and value and feedback:
                errors.append(CommonErrorSpec(code, value, feedback, rtol))
        return tuple(errors)

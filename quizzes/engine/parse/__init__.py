"""``parse_template``: YAML text to a checked ``Template``, every problem reported with its line.

The parser never stops at the first problem: an author (or the studio) gets the whole list.
Expressions and live text are checked statically here (syntax, unknown names with "did you
mean", options and units); values are checked when variants are generated.
"""

from __future__ import annotations

from typing import Any

from content.expressions import did_you_mean
from quizzes.engine.errors import TemplateError
from quizzes.engine.figures.parse import FigureRules
from quizzes.engine.model import CHAPTERS, WHOLE_QUESTION, Hint, Outcomes, Template
from quizzes.engine.parse.base import (
    COUNT_LIMITS,
    MAX_CHOICE_VALUES,
    MAX_MIN_VARIANTS,
    MAX_SLUG,
    MAX_TITLE,
    MAX_TRIES,
    PART_COUNT_LIMITS,
    SLUG,
    TOP_FIELDS,
)
from quizzes.engine.parse.parameters import ParameterRules
from quizzes.engine.parse.parts import PartRules
from quizzes.engine.parse.plausible import PlausibleRules
from quizzes.engine.yamlnodes import Loc


def parse_template(text: str, *, source: str, root: Loc | None = None) -> Template:
    """Parse a YAML template; raise ``TemplateError`` listing every problem with its line.

    ``root``: the text already composed (``yamlnodes.compose``) by a caller that had to look
    inside it first, so that it is not composed twice."""
    parser = _Parser(source)
    template = parser.parse(text, root)
    if parser.issues or template is None:
        raise TemplateError(parser.issues, source)
    return template


class _Parser(ParameterRules, PartRules, PlausibleRules, FigureRules):
    # -- the template --------------------------------------------------------------------------

    def parse(self, text: str, root: Loc | None = None) -> Template | None:
        root = self.compose_root(text, "the template", root)
        if root is None:
            return None
        self.unknown_keys(root, TOP_FIELDS, "the template")
        if not self.within_counts(root):
            return None
        head = self.parse_head(root)
        parameters, names = self.parse_parameters(root.get("parameters"))
        constraints = self.parse_constraints(root.get("constraints"), names)
        plausible = self.parse_plausible(root.get("plausible"), names)
        prompt = self.live(self.text_field(root, "prompt"), "prompt", names)
        # Parameters only: a figure is shown before any answer, so it never sees `part_<id>`.
        figure = self.parse_figure(root.get("figure"), names)
        parts = self.parse_parts(root, names)
        part_names = frozenset(f"part_{p.id}" for p in parts)
        hints = self.parse_hints(
            root.get("hints"), names | part_names, frozenset(p.id for p in parts)
        )
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
            plausible=plausible,
            figure=figure,
            text=text,
        )

    def parse_head(self, root: Loc) -> dict[str, Any] | None:
        slug = self.text_field(root, "slug")
        if slug is not None and not SLUG.fullmatch(slug.value):
            self.issue(slug, "slug", "use lowercase letters, digits and single hyphens only")
        elif slug is not None and len(slug.value) > MAX_SLUG:
            self.issue(slug, "slug", f"at most {MAX_SLUG} characters")
        title = self.text_field(root, "title")
        if title is not None and len(title.value.strip()) > MAX_TITLE:
            self.issue(title, "title", f"at most {MAX_TITLE} characters")
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
        for key, value, most in (
            ("min_variants", min_variants, MAX_MIN_VARIANTS),
            ("max_tries", max_tries, MAX_TRIES),
        ):
            if value is not None and value < 1:
                self.issue(root.get(key), key, "must be at least 1")
            elif value is not None and value > most:
                self.issue(root.get(key), key, f"must be at most {most:,}")
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

    def within_counts(self, root: Loc) -> bool:
        """Report every list longer than its bound; False when there is one (nothing is built)."""
        before = len(self.issues)

        def bound(loc: Loc | None, name: str, most: int) -> None:
            if loc is not None and isinstance(loc.children, (list, dict)):
                if len(loc.children) > most:
                    self.issue(loc, name, f"has {len(loc.children)} entries; at most {most}")

        for name, most in COUNT_LIMITS.items():
            bound(root.get(name), name, most)
        parts = root.get("parts")
        for part in parts.items() if parts is not None else ():
            for name, most in PART_COUNT_LIMITS.items():
                bound(part.get(name), name, most)
        parameters = root.get("parameters")
        if parameters is not None and isinstance(parameters.children, dict):
            for name, spec in parameters.children.items():
                bound(spec.get("choice"), name, MAX_CHOICE_VALUES)
        return len(self.issues) == before

    # -- hints and outcomes --------------------------------------------------------------------

    def parse_hints(
        self, loc: Loc | None, names: frozenset[str], part_ids: frozenset[str] = frozenset()
    ) -> tuple[Hint, ...]:
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
            self.unknown_keys(item, ["after", "text", "part"], "a hint")
            part = item.get("part")
            part_id = str(part.value) if part is not None else None
            if part_id == WHOLE_QUESTION and part_id not in part_ids:
                part_id = None
            elif part_id is not None and part_id not in part_ids:
                known = ", ".join(sorted(part_ids)) or "none"
                self.issue(
                    part,
                    "part",
                    f"names no part of this question (parts: {known}; "
                    f"`{WHOLE_QUESTION}` for the whole question)",
                )
                continue
            after = self.number(item.get("after"), "after", integer=True)
            if item.get("after") is None:
                self.issue(item, "after", "is required (tries before the hint shows)")
            elif after is not None and after < 0:
                self.issue(item.get("after"), "after", "must not be negative")
            text = self.live(self.text_field(item, "text"), "text", names)
            if after is not None and text is not None:
                hints.append(Hint(after, text, part_id, part_named=part is not None))
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


__all__ = ["parse_template"]

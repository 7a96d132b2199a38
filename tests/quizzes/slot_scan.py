"""The scan of `test_skeleton_slot_scan.py`: what the fresh section's templates do with each
value the section skeleton (`quizzes.presenters.skeletons`) slots, and every value they read."""

from __future__ import annotations

import re

from django.template import engines
from django.template.base import FilterExpression, TextNode, VariableNode
from django.template.defaulttags import (
    CommentNode,
    CsrfTokenNode,
    FirstOfNode,
    ForNode,
    IfNode,
    LoadNode,
    WithNode,
)
from django.template.loader_tags import BlockNode, IncludeNode

from quizzes.templatetags.attempt_sections import SectionCacheNode

SAFE_FILTERS = {"default", "default_if_none"}
# The values `skeletons._block_in`, `_view_in` and `_part_in` put in slots (a kind's string
# facts and a text kind's `p.current` are added per kind below). `[]` is an element of a list.
SLOTS = {
    "block.number",
    "block.variant.pk",
    "block.question.prompt_html",
    "block.question.figure_html",
    "p.dom",
    "p.check_url",
    "p.autosave_url",
    "p.preview_url",
    "p.save_message",
    "p.next_sequence",
    "p.view.prompt_html",
    "p.view.idempotency_key",
}
# A kind whose input is drawn from its slotted values by a tag: its sections are never filled
# from a skeleton (the chart's ids hash its title and names, so the check always refuses them;
# `test_a_roofline_section_is_never_filled_from_a_skeleton` holds that).
DRAWN_WHOLE = {"roofline_point"}
# What `skeletons.fresh` refuses a skeleton for (and the htmx fragments' own context values,
# with which no section is slotted: `fragments.plain_tokens`): a branch that needs one of them
# is never in a skeleton.
FALSE_IN_FRESH = {
    "block.error",
    "block.hints",
    "block.solution",
    "block.can_ask_new_numbers",
    "p.answer_html",
    "p.hints",
    "error",
    "oob",
}
SECTION_TEMPLATES = (
    "quizzes/attempt_detail.html",
    "quizzes/_answer_input.html",
    "quizzes/_part_name.html",
    "quizzes/_question_figure.html",
)


def engine():
    return engines["django"].engine


class Scan:
    """The slotted values of one kind (None: any kind) and what a template does with them."""

    def __init__(self, string_facts: set[str] | None, other_facts: set[str], text_current: bool):
        self.string_facts = string_facts
        self.other_facts = other_facts
        self.text_current = text_current
        self.found: list[str] = []
        self.used: set[str] = set()  # the slotted values written (not vacuous)
        self.reads: set[str] = set()  # every path the templates read, aliases resolved

    # -- what a path holds ------------------------------------------------------------------

    def role(self, path: str | None) -> str | None:
        """The role of `path`: a slot, an object or mapping holding one ("holds"), or None."""
        if path is None:
            return None
        if path == "SLOT" or path in SLOTS or (path == "p.current" and self.text_current):
            return "slot"
        parts = path.split(".")
        if any(self.role(".".join(parts[:n])) == "slot" for n in range(1, len(parts))):
            return "slot"  # read through a slotted value: never the value as written
        if path.startswith("p.view.lists.") and parts[4:] == ["[]", "token"]:
            return "slot"
        if path.startswith("p.view.facts.") and len(parts) == 4:
            name = parts[3]
            if name in self.other_facts and (
                self.string_facts is None or name not in self.string_facts
            ):
                return None
            return "slot"  # a string fact, or one no draw showed: taken as a string
        holders = {"p", "p.view", "p.view.facts", "p.view.lists", "block", "block.question"}
        holders.add("block.variant")
        if path in holders or (path.startswith("p.view.lists.") and len(parts) <= 5):
            return "holds"
        return None

    @staticmethod
    def path(fe, aliases: dict[str, str]) -> str | None:
        """The path a filter expression's variable reads, its first name an alias resolved."""
        if fe is None:
            return None
        var = fe.var if isinstance(fe, FilterExpression) else fe
        lookups = getattr(var, "lookups", None)
        if not lookups:
            return None
        head, *rest = lookups
        base = aliases.get(head, head)
        return ".".join([base, *rest])

    # -- uses -------------------------------------------------------------------------------

    def flag(self, where: str, what: str, fe) -> None:
        self.found.append(f"{where}: {what}: {fe.token if hasattr(fe, 'token') else fe}")

    def arguments(self, fe: FilterExpression, aliases, where) -> None:
        self.reads.add(self.path(fe, aliases))
        for _func, args in fe.filters:
            for is_lookup, arg in args:
                self.reads.add(self.path(arg, aliases) if is_lookup else None)
                if is_lookup and self.role(self.path(arg, aliases)):
                    self.flag(where, "a slotted value given to a filter", fe)

    def output(self, fe: FilterExpression, aliases, where) -> None:
        self.arguments(fe, aliases, where)
        role = self.role(self.path(fe, aliases))
        names = [func.__name__ for func, _ in fe.filters]
        if role == "slot":
            self.used.add(self.path(fe, aliases))
        if role == "slot" and (
            any(name not in SAFE_FILTERS for name in names) or self._through_slot(fe, aliases)
        ):
            self.flag(where, "a slotted value filtered or read through", fe)
        if role == "holds" and not names:
            self.flag(where, "an object holding slots written whole", fe)

    def _through_slot(self, fe, aliases) -> bool:
        path = self.path(fe, aliases)
        parts = path.split(".") if path else []
        return any(self.role(".".join(parts[:n])) == "slot" for n in range(1, len(parts)))

    def never(self, node, aliases) -> bool:
        """Whether a condition is false in every fresh section (it needs what one never shows)."""
        value = getattr(node, "value", None)
        if isinstance(value, FilterExpression):
            return not value.filters and self.path(value, aliases) in FALSE_IN_FRESH
        if getattr(node, "id", None) == "and":
            if self.never(node.first, aliases) or self.never(node.second, aliases):
                return True
            sides = {
                self.path(getattr(side, "value", None), aliases)
                for side in (node.first, node.second)
            }
            return sides == {"p.show_result", "p.result"}  # a result shown, never fresh
        return False

    def condition(self, node, aliases, where, operator=None) -> None:
        value = getattr(node, "value", None)
        if isinstance(value, FilterExpression):
            self.arguments(value, aliases, where)
            role = self.role(self.path(value, aliases))
            if role == "slot" and (value.filters or operator not in (None, "and", "or", "not")):
                self.flag(where, "a slotted value compared or filtered in a condition", value)
            if role == "holds" and operator not in (None, "and", "or", "not"):
                self.flag(where, "an object holding slots compared", value)
            return
        for child in (getattr(node, "first", None), getattr(node, "second", None)):
            if child is not None:
                self.condition(child, aliases, where, getattr(node, "id", None))

    def alias(self, fe: FilterExpression, aliases, where) -> str | None:
        """What a name bound to `fe` by `with` or `include ... with` holds."""
        self.arguments(fe, aliases, where)
        path = self.path(fe, aliases)
        names = [func.__name__ for func, _ in fe.filters]
        if self.role(path) == "slot":
            if any(name not in SAFE_FILTERS for name in names):
                self.flag(where, "a slotted value filtered", fe)
            return "SLOT"
        return path if not names else None

    def tag_arguments(self, node, aliases, where) -> None:
        for value in vars(node).values():
            found = value if isinstance(value, (list, tuple)) else [value]
            if isinstance(value, dict):
                found = list(value.values())
            for fe in found:
                if isinstance(fe, FilterExpression):
                    self.arguments(fe, aliases, where)
                    if self.role(self.path(fe, aliases)):
                        self.flag(where, f"a slotted value given to {type(node).__name__}", fe)

    # -- the walk ---------------------------------------------------------------------------

    def walk(self, nodelist, aliases: dict[str, str], where: str) -> None:
        for node in nodelist:
            self.node(node, aliases, where)

    def node(self, node, aliases, where) -> None:  # noqa: C901, PLR0912 - one case per tag
        if isinstance(node, (TextNode, CommentNode, LoadNode, CsrfTokenNode)):
            return
        if isinstance(node, VariableNode):
            self.output(node.filter_expression, aliases, where)
        elif isinstance(node, FirstOfNode):
            for fe in node.vars:
                self.output(fe, aliases, where)
        elif isinstance(node, IfNode):
            for condition, nodelist in node.conditions_nodelists:
                if condition is not None:
                    if self.never(condition, aliases):
                        continue  # a branch no fresh section takes (skeletons.fresh)
                    self.condition(condition, aliases, where)
                self.walk(nodelist, aliases, where)
        elif isinstance(node, ForNode):
            self.arguments(node.sequence, aliases, where)
            path = self.path(node.sequence, aliases)
            if self.role(path) == "slot":
                self.flag(where, "a slotted value iterated", node.sequence)
            inner = dict(aliases)
            for var in node.loopvars:
                inner[var] = "p" if path == "block.parts" else f"{path}.[]"
            self.walk(node.nodelist_loop, inner, where)
            self.walk(node.nodelist_empty, aliases, where)
        elif isinstance(node, WithNode):
            inner = dict(aliases)
            for name, fe in node.extra_context.items():
                inner[name] = self.alias(fe, aliases, where) or f"<{name}>"
            self.walk(node.nodelist, inner, where)
        elif isinstance(node, IncludeNode):
            self.include(node, aliases, where)
        elif isinstance(node, (BlockNode, SectionCacheNode)) or hasattr(node, "partial_name"):
            self.walk(node.nodelist, aliases, where)
        else:
            self.tag_arguments(node, aliases, where)
            for attr in getattr(node, "child_nodelists", ()):
                self.walk(getattr(node, attr, None) or [], aliases, where)

    def include(self, node: IncludeNode, aliases, where) -> None:
        inner = dict(aliases)
        for name, fe in node.extra_context.items():
            inner[name] = self.alias(fe, aliases, where) or f"<{name}>"
        name = node.template.var
        if not isinstance(name, str):  # `{% include p.view.input_template %}`: scanned as a kind's
            return
        self.walk(engine().get_template(name).nodelist, inner, f"{where} > {name}")


# What the skeleton's key (`skeletons._shape`, `_part_shape`, `_option_shape`) holds, as the
# paths the templates read it by; `*` is any one name. A path read but neither slotted nor here
# would be drawn from the first section of its key for every later student.
SHAPED = {
    "attempt.quiz.is_exam",
    "attempt.is_open",
    "block.anchor",
    "block.question",  # not None in a fresh section
    "block.question.title",
    "block.parts",  # their number: one shape per part
    "block.variant.index",
    "block.variant.is_practice",
    "block.variant.item.points",
    "p.view.kind",
    "p.view.input_template",  # the kind's
    "p.view.facts",
    "p.view.facts.*",
    "p.view.facts.*.[]",
    "p.view.lists.*",
    "p.view.lists.*.[].id",
    "p.view.lists.*.[].html",
    "p.number",
    "p.label",
    "p.is_final",
    "p.save_state",
    "p.state.tries_left",
    "p.show_result",
    "p.current",
    "p.input_name",
    "p.max_length",
    # The request's own (`fragments.plain_tokens`), a loop's, the include's literals, and the
    # htmx fragments' own values (a section drawn with one is never slotted).
    "csrf_token",
    "forloop.*",
    "disabled",
    "True",
    "False",
    "None",
    "save_status",
    "save_message",
}


def _pattern(shaped: str) -> str:
    return r"\.".join("[^.]+" if name == "*" else re.escape(name) for name in shaped.split("."))


def unkeyed(scan: Scan) -> set[str]:
    def covered(path: str) -> bool:
        if path.startswith("<") or scan.role(path) == "slot":
            return True
        return any(re.fullmatch(_pattern(shaped), path) for shaped in SHAPED)

    return {path for path in scan.reads if path and not covered(path)}


def section_nodes():
    template = engine().get_template(SECTION_TEMPLATES[0])
    found = template.nodelist.get_nodes_by_type(SectionCacheNode)
    assert len(found) == 1
    return found[0].nodelist

"""The two readings of a part's answer that perturbations work on, and how to evaluate them."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from content.expressions import evaluate
from quizzes.engine import kinds
from quizzes.engine.diagnoses import Case, is_number
from quizzes.engine.namespace import names_for

_TEXTS: dict[tuple, tuple[str, ...]] = {}


def trees(case: Case) -> list[ast.expr]:
    """The answer as written and, where they evaluate to the answer, written out one level
    deep and all the way."""
    params = case.variant.params
    numeric = frozenset(n for n, v in params.items() if is_number(v))
    key = (case.template.slug, case.template.text, case.part.id, numeric)
    if key not in _TEXTS:
        texts = [ast.unparse(ast.parse(case.part.settings.answer.text, mode="eval").body)]
        # one level written out (the quantities the prompt shows stay as shown), then all
        for depth in (1, 12):
            written_out = ast.unparse(_inline(case, depth))
            tree = ast.parse(written_out, mode="eval").body
            if written_out not in texts and case.matches_answer(evaluate_tree(case, tree)):
                texts.append(written_out)
        _TEXTS[key] = tuple(texts)
    return [ast.parse(text, mode="eval").body for text in _TEXTS[key]]


def _inline(case: Case, limit: int) -> ast.expr:
    template, params = case.template, case.variant.params
    derived = {
        p.name: p.expr.text
        for p in template.parameters
        if p.kind == "value" and p.expr is not None and is_number(params.get(p.name))
    }
    # the answers a later part may name as part_<id> (kinds whose answer is a value)
    answers = {
        p.id: p.settings.answer.text
        for p in template.parts
        if kinds.kind_for(p).gives_value and getattr(p.settings, "answer", None) is not None
    }

    class Inline(ast.NodeTransformer):
        def __init__(self, depth: int = 0) -> None:
            self.depth = depth

        def visit_Name(self, node: ast.Name) -> ast.AST:
            text = derived.get(node.id)
            if text is None and node.id.startswith("part_"):
                text = answers.get(node.id[5:])
            if text is None or self.depth >= limit:
                return node
            return Inline(self.depth + 1).visit(ast.parse(text, mode="eval").body)

    return Inline().visit(ast.parse(case.part.settings.answer.text, mode="eval").body)


def namespace(case: Case, overrides: Mapping[str, Any] = ()) -> dict[str, Any]:
    answers = case.variant.answers
    names = names_for(case.variant.params, {u: answers[u] for u in case.part.uses})
    names.update(overrides)
    return names


def evaluate_tree(case: Case, tree: ast.AST, overrides: Mapping[str, Any] = ()) -> Any:
    try:
        return evaluate(ast.unparse(tree), namespace(case, overrides))
    except Exception:  # noqa: BLE001 - a perturbation that breaks the expression explains nothing
        return None


def any_tree(case: Case, overrides: Mapping[str, Any] = ()) -> bool:
    """Whether either reading, evaluated with ``overrides``, gives the common error's value."""
    return any(case.matches(evaluate_tree(case, t, overrides)) for t in trees(case))


def preorder(node: ast.AST) -> Iterator[ast.expr]:
    """Expression nodes in the order ``_Swap`` meets them (depth first, fields in order)."""
    if isinstance(node, ast.expr):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from preorder(child)


class _Swap(ast.NodeTransformer):
    """Replaces the ``index``-th expression node (in ``preorder``'s order) by ``replacement``."""

    def __init__(self, index: int, replacement: ast.AST) -> None:
        self.index, self.replacement, self.seen = index, replacement, -1

    def generic_visit(self, node):
        if isinstance(node, ast.expr):
            self.seen += 1
            if self.seen == self.index:
                return self.replacement
        return super().generic_visit(node)


def rewrites(tree: ast.expr, rewrite: Callable[[ast.AST], list[ast.AST]]) -> Iterator[ast.expr]:
    """Every tree with exactly one node replaced by one of ``rewrite(node)``."""
    text = ast.unparse(tree)
    for index, node in enumerate(preorder(tree)):
        for replacement in rewrite(node) or ():
            yield _Swap(index, replacement).visit(ast.parse(text, mode="eval").body)


def any_rewrite(case: Case, rewrite, overrides: Mapping[str, Any] = ()) -> bool:
    """Whether one node of either reading, rewritten, gives the common error's value."""
    return any(
        case.matches(evaluate_tree(case, changed, overrides))
        for tree in trees(case)
        for changed in rewrites(tree, rewrite)
    )


__all__ = ["any_rewrite", "any_tree", "evaluate_tree", "namespace", "preorder", "rewrites", "trees"]

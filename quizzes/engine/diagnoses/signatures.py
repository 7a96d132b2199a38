"""The vocabulary of wrong models: one function per signature kind, each True when some
perturbation of its kind turns the part's answer into the common error's value."""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

from content import physics
from quizzes.engine.diagnoses import Case, is_number
from quizzes.engine.diagnoses.overrides import LEGS, NAMED, driver_level, leg, rounded, zero_kv
from quizzes.engine.diagnoses.trees import any_rewrite, any_tree, evaluate_tree, preorder, trees

# A "scale" factor may be a word: "count" is every whole-number quantity of the variant beyond 1
# (a batch, a GPU count, a layer count) and its square (multiplied where it should divide);
# "ring" is each count's ring all-reduce factors, 2(n-1)/n, (n-1)/n and 2(n-1).
# "batch" is the batch size alone (a parameter named b or batch) and its square, so a per-step
# figure taken for a per-token one is not explained by any other count of the variant.
COUNT, RING, BATCH = "count", "ring", "batch"
DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
_LEAVES = (ast.Name, ast.Attribute)


def _counts(case: Case) -> list[float]:
    found = set()
    for value in case.variant.params.values():
        if is_number(value) and value > 1 and float(value).is_integer():
            found.add(float(value))
        elif dataclasses.is_dataclass(value):
            for f in dataclasses.fields(value):
                field = getattr(value, f.name)
                if isinstance(field, int) and not isinstance(field, bool) and 1 < field < 10**6:
                    found.add(float(field))
    return sorted(found)


def _factors(case: Case, argument) -> list[float]:
    factors: list[float] = []
    for item in argument if isinstance(argument, list) else [argument]:
        if item == COUNT:
            factors += [c * p for c in _counts(case) for p in (1, c)]
        elif item == BATCH:
            factors += [
                float(v) * p
                for name, v in case.variant.params.items()
                if name in ("b", "batch") and is_number(v) and v > 1
                for p in (1, v)
            ]
        elif item == RING:
            factors += [
                f for n in _counts(case) for f in (2 * (n - 1) / n, (n - 1) / n, 2 * (n - 1))
            ]
        else:
            factors.append(float(item))
    return [f for f in factors if f not in (0, 1)]


def _catalog_params(case: Case) -> Iterator[tuple[str, Any]]:
    for name, value in case.variant.params.items():
        if dataclasses.is_dataclass(value):
            yield name, value


def _field_scalings(case: Case, factors: list[float]) -> Iterator[dict[str, Any]]:
    """Namespaces with one numeric field (or rate table) of one catalog entry scaled."""
    for name, value in _catalog_params(case):
        for f in dataclasses.fields(value):
            field = getattr(value, f.name)
            numeric_table = (
                hasattr(field, "items") and field and all(is_number(v) for v in field.values())
            )
            for factor in factors:
                if is_number(field) and field:
                    changes = {f.name: field * factor}
                elif numeric_table:
                    changes = {f.name: {k: v * factor for k, v in field.items()}}
                else:
                    continue
                try:
                    yield {name: dataclasses.replace(value, **changes)}
                except Exception:  # noqa: BLE001 - an entry that refuses the value
                    continue


def scale(case: Case, argument) -> bool:
    """A factor on the answer, on one input of it, or on one field of a catalog entry."""
    factors = _factors(case, argument)
    both = factors + [1 / f for f in factors]
    if any(case.matches(case.answer * f) for f in both):
        return True

    def scaled(node):
        if isinstance(node, (*_LEAVES, ast.Subscript, ast.Call, ast.BinOp)) or (
            isinstance(node, ast.Constant) and is_number(node.value)
        ):
            return [ast.BinOp(node, ast.Mult(), ast.Constant(f)) for f in both]
        return []

    return any_rewrite(case, scaled) or any(any_tree(case, o) for o in _field_scalings(case, both))


def scale_answer(case: Case, argument) -> bool:
    """A factor on the whole answer only (a per-step figure for a per-token one): rewriting an
    input inside a rounding (a ceil of a scaled count is 1) would explain far too much."""
    factors = _factors(case, argument)
    return any(case.matches(case.answer * f) for f in factors + [1 / f for f in factors])


def invert(case: Case, argument) -> bool:
    """The answer inverted, one input inverted, a ratio read upside down, or two inputs
    exchanged."""
    if case.answer and case.matches(1 / case.answer):
        return True

    def flipped(node):
        found = []
        if isinstance(node, (*_LEAVES, ast.Call)):
            found.append(ast.BinOp(ast.Constant(1), ast.Div(), node))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            found += [ast.BinOp(node.right, ast.Div(), node.left)]
            found += [ast.BinOp(node.left, ast.Mult(), node.right)]
        return found

    return any_rewrite(case, flipped) or _swap_leaves(case)


def _replace_leaf_everywhere(case: Case, substitutes) -> bool:
    """Every occurrence of one leaf replaced by one of ``substitutes(leaf, leaves)`` (texts)."""
    for tree in trees(case):
        text = ast.unparse(tree)
        leaves = list(
            dict.fromkeys(ast.unparse(n) for n in preorder(tree) if isinstance(n, _LEAVES))
        )
        for leaf in leaves:
            for other in substitutes(leaf, leaves):
                changed = _Replace(leaf, other).visit(ast.parse(text, mode="eval"))
                if case.matches(evaluate_tree(case, changed.body)):
                    return True
    return False


class _Replace(ast.NodeTransformer):
    def __init__(self, leaf: str, other: str) -> None:
        self.leaf, self.other = leaf, other

    def visit(self, node):
        if isinstance(node, _LEAVES):
            if ast.unparse(node) == self.leaf:
                return ast.parse(self.other, mode="eval").body
            return node
        return super().visit(node)


def leaf_for_leaf(case: Case, argument) -> bool:
    """One input read everywhere in place of another (the typical value for the outlier)."""
    return _replace_leaf_everywhere(case, lambda leaf, leaves: [x for x in leaves if x != leaf])


def drop_and_scale(case: Case, argument) -> bool:
    """A term left out and the rest multiplied by a count (each worker's time summed)."""
    factors = _factors(case, argument)

    def drop(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return [node.left] if isinstance(node.op, ast.Sub) else [node.left, node.right]
        return []

    from quizzes.engine.diagnoses.trees import rewrites

    for tree in trees(case):
        for changed in rewrites(tree, drop):
            result = evaluate_tree(case, changed)
            if is_number(result) and any(case.matches(result * f) for f in factors):
                return True
    return False


def _swap_leaves(case: Case) -> bool:
    for tree in trees(case):
        leaves = list(
            dict.fromkeys(ast.unparse(n) for n in preorder(tree) if isinstance(n, _LEAVES))
        )
        for i, first in enumerate(leaves):
            for second in leaves[i + 1 :]:
                swapped = _Exchange(first, second).visit(ast.parse(ast.unparse(tree), mode="eval"))
                if case.matches(evaluate_tree(case, swapped.body)):
                    return True
    return False


class _Exchange(ast.NodeTransformer):
    def __init__(self, first: str, second: str) -> None:
        self.first, self.second = first, second

    def visit(self, node):
        if isinstance(node, _LEAVES):
            text = ast.unparse(node)
            if text in (self.first, self.second):
                other = self.second if text == self.first else self.first
                return ast.parse(other, mode="eval").body
            return node
        return super().visit(node)


def drop_term(case: Case, argument) -> bool:
    """One term of a sum left out (or a subtracted one), or the KV cache left out."""

    def drop(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [node.left, node.right]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return [node.left]
        return []

    return any_rewrite(case, drop) or any_tree(case, zero_kv())


def set_value(number: float) -> Callable[[Case, Any], bool]:
    """An input (a parameter, a catalog field) taken as ``number``: a batch of 1, a share of 0."""

    def signature(case: Case, argument) -> bool:
        if any_rewrite(case, lambda n: [ast.Constant(number)] if isinstance(n, _LEAVES) else []):
            return True
        if _replace_leaf_everywhere(case, lambda leaf, leaves: [repr(float(number))]):
            return True
        for name, value in _catalog_params(case):
            for f in dataclasses.fields(value):
                if is_number(getattr(value, f.name)):
                    try:
                        changed = dataclasses.replace(value, **{f.name: number})
                    except Exception:  # noqa: BLE001
                        continue
                    if any_tree(case, {name: changed}):
                        return True
        return False

    return signature


def _one_leg(node):
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("max", "min") and len(node.args) >= 2:
            other = "min" if node.func.id == "max" else "max"
            return [ast.Call(ast.Name(other, ast.Load()), node.args, []), *node.args]
    return []


def other_leg(case: Case, argument) -> bool:
    """max and min swapped, one argument of either taken, the other branch of a condition,
    or the roofline's functions on one leg."""
    return any_rewrite(case, _one_leg) or any(any_tree(case, o) for o in LEGS)


def sum_for_max(case: Case, argument) -> bool:
    """Stages that overlap added up: max(a, b) taken as a + b."""

    def summed(node):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "max"
            and len(node.args) == 2
        ):
            return [ast.BinOp(node.args[0], ast.Add(), node.args[1])]
        return []

    return any_rewrite(case, summed)


def max_for_sum(case: Case, argument) -> bool:
    """Stages that run one after the other taken as overlapping: a + b as max(a, b)."""

    def longest(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [ast.Call(ast.Name("max", ast.Load()), [node.left, node.right], [])]
        return []

    return any_rewrite(case, longest)


def floor_for_ceil(case: Case, argument) -> bool:
    """A whole count rounded down, or not rounded up at all."""

    def floored(node):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ceil":
            return [ast.Call(ast.Name("floor", ast.Load()), node.args, []), *node.args]
        return []

    return any_rewrite(case, floored) or any(any_tree(case, rounded(h)) for h in ("floor", "exact"))


def other_dtype(case: Case, argument) -> bool:
    """A number format (a literal or a parameter) replaced by another."""

    def retype(node):
        if isinstance(node, ast.Constant) and node.value in DTYPES:
            return [ast.Constant(d) for d in DTYPES if d != node.value]
        return []

    if any_rewrite(case, retype):
        return True
    for name, value in case.variant.params.items():
        if isinstance(value, str) and _is_dtype(value):
            if any(any_tree(case, {name: other}) for other in DTYPES if other != value):
                return True
    return False


def _is_dtype(name: str) -> bool:
    try:
        physics.dtype(name)
    except (KeyError, TypeError, ValueError):
        return False
    return True


def other_field(case: Case, argument) -> bool:
    """One field of a catalog entry read in place of another (``[to, from]`` pairs)."""
    for target, source in argument:
        for name, value in _catalog_params(case):
            if hasattr(value, target) and hasattr(value, source):
                changed = dataclasses.replace(value, **{target: getattr(value, source)})
                if any_tree(case, {name: changed}):
                    return True
    return False


def other_quantity(case: Case, argument) -> bool:
    """Another quantity the variant holds: a parameter, another part's answer, or a quantity
    the answer is computed from (a peak, one leg, a bandwidth)."""
    variant = case.variant
    values = [v for v in variant.params.values() if is_number(v)]
    values += [a for p, a in variant.answers.items() if p != case.part.id and is_number(a)]
    if any(case.matches(v) for v in values):
        return True
    return any(
        case.matches(evaluate_tree(case, node))
        for tree in trees(case)
        for node in preorder(tree)
        if isinstance(node, (ast.Call, ast.Attribute, ast.BinOp, ast.Subscript))
    )


def peak(case: Case, argument) -> bool:
    """An accelerator's peak (any data type, dense or sparse), or the answer on the roofline's
    compute leg alone, or with the sparse headline for the dense peak."""
    for _, value in _catalog_params(case):
        for table in ("peak_flops", "sparse_peak_flops"):
            rates = getattr(value, table, None) or {}
            if any(case.matches(rate) for rate in rates.values()):
                return True
    if any_tree(case, leg("compute")):
        return True
    accelerators = [v for _, v in _catalog_params(case) if getattr(v, "peak_flops", None)]
    for first in accelerators:
        for second in accelerators:
            if first is second:
                continue
            for dt, rate in first.peak_flops.items():
                other = second.peak_flops.get(dt)
                if other and case.matches(rate / other):
                    return True
    for name, value in _catalog_params(case):
        sparse = getattr(value, "sparse_peak_flops", None)
        if sparse:
            headline = dataclasses.replace(value, peak_flops=dict(sparse))
            if any(any_tree(case, {name: headline, **o}) for o in ({}, *LEGS)):
                return True
            if any_rewrite(case, _one_leg, {name: headline}):
                return True
    return False


def zero_field(case: Case, argument) -> bool:
    """Named fields of the catalog entries taken as (almost) nothing, however deep in a physics
    function they are read: ``params`` leaves the weights out."""
    for name, value in _catalog_params(case):
        changes = {f: 1e-12 for f in argument if hasattr(value, f)}
        if changes:
            try:
                changed = dataclasses.replace(value, **changes)
            except Exception:  # noqa: BLE001
                continue
            if any_tree(case, {name: changed}):
                return True
    return False


def other_format_limit(case: Case, argument) -> bool:
    """A number format's limit (largest value, smallest normal or subnormal) replaced by another
    format's, or the same format's other limit; or another format altogether."""
    limits = {float(d.max_finite) for d in physics.dtypes() if is_number(d.max_finite)}
    limits |= {2.0**-14, 2.0**-24, 2.0**-126, 2.0**-6, 2.0**-9}

    def swap(node):
        if any(isinstance(n, (ast.Name, ast.Attribute, ast.Call)) for n in ast.walk(node)):
            return []
        if not isinstance(node, (ast.Constant, ast.BinOp, ast.UnaryOp)):
            return []
        value = evaluate_tree(case, node)
        if is_number(value) and any(math.isclose(value, x) for x in limits):
            return [ast.Constant(x) for x in limits if not math.isclose(value, x)]
        return []

    return any_rewrite(case, swap) or other_dtype(case, argument)


def direction(case: Case, argument) -> bool:
    """Only the side of the answer the slip lands on ("above" or "below")."""
    return case.value > case.answer if argument == "above" else case.value < case.answer


def driver(case: Case, argument) -> bool:
    return any_tree(case, driver_level())


def named(case: Case, argument) -> bool:
    return any_tree(case, NAMED[argument])


def kv_left_out(case: Case, argument) -> bool:
    return any_tree(case, zero_kv())


def choice(case: Case, argument) -> bool:
    """The judgement a wrong option records (the argument says which); it explains no number."""
    return False


SIGNATURES: dict[str, Callable[[Case, Any], bool]] = {
    "choice": choice,
    "scale": scale,
    "scale-answer": scale_answer,
    "invert": invert,
    "drop-term": drop_term,
    "zero-kv": kv_left_out,
    "other-leg": other_leg,
    "sum-for-max": sum_for_max,
    "max-for-sum": max_for_sum,
    "floor-for-ceil": floor_for_ceil,
    "set-one": set_value(1),
    "set-zero": set_value(0),
    "other-dtype": other_dtype,
    "other-field": other_field,
    "other-quantity": other_quantity,
    "driver-level": driver,
    "direction": direction,
    "named": named,
    "peak": peak,
    "zero-field": zero_field,
    "other-format-limit": other_format_limit,
    "leaf-for-leaf": leaf_for_leaf,
    "drop-and-scale": drop_and_scale,
}

__all__ = ["BATCH", "COUNT", "RING", "SIGNATURES"]

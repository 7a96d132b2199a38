"""What the expression language allows: limits, operators, node types and the static check.

Everything is refused unless listed here: the AST node types, the operators, the callables (only
names given in the namespace), and attribute access (public fields and methods of the frozen
catalog dataclasses of ``content.physics``, plus a short allow-list of container methods).
Sizes are bounded before any work is done: the text, the number of AST nodes, string literals,
integer sizes and power exponents, so no expression can hang or exhaust memory.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import operator as op
from collections.abc import KeysView, Mapping, ValuesView
from typing import Any

from content.expressions.errors import ExpressionError, did_you_mean

MAX_EXPRESSION_LENGTH = 2000
MAX_NODES = 300
MAX_STRING_LITERAL = 200
MAX_EXPONENT = 128
MAX_INT_BITS = 256
MAX_SEQUENCE = 1000

# Modules whose frozen dataclasses expose their public fields and methods to expressions; the
# subject sets them (``namespace.configure_subject``).
TRUSTED_MODULE_PREFIXES: tuple[str, ...] = ()

# Methods of plain containers that read and never mutate.
ALLOWED_METHODS: dict[type, frozenset[str]] = {
    dict: frozenset({"get", "keys", "values", "items"}),
    list: frozenset({"index", "count"}),
    tuple: frozenset({"index", "count"}),
    float: frozenset({"is_integer"}),
}

_ALLOWED_NODES = (
    ast.Expression,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.keyword,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.List,
    ast.Tuple,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.USub,
    ast.UAdd,
    ast.Not,
    ast.And,
    ast.Or,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
)

_REFUSED_MESSAGES = {
    ast.Lambda: "lambda is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "generator expressions are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.NamedExpr: "assignment (:=) is not allowed",
    ast.Starred: "* unpacking is not allowed",
    ast.Dict: "dictionary literals are not allowed",
    ast.Set: "set literals are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
}


class _Refused(Exception):
    """Raised inside the evaluator; converted to ExpressionError at the boundary."""


def _check_number(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_INT_BITS:
            raise _Refused("integer too large")
    return value


def _power(base: Any, exponent: Any) -> Any:
    if not isinstance(base, (int, float)) or not isinstance(exponent, (int, float)):
        raise _Refused("** works on numbers only")
    if abs(exponent) > MAX_EXPONENT:
        raise _Refused(f"exponent {exponent} is too large (at most {MAX_EXPONENT})")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        if base.bit_length() * exponent > MAX_INT_BITS:
            raise _Refused("integer too large")
    result = base**exponent
    if isinstance(result, complex):
        # A negative base to a fractional power: Python answers with a complex number, which
        # no answer, parameter or text can use.
        raise _Refused(f"({base}) ** {exponent} has no real value")
    return result


def check_sequence(value: Any) -> Any:
    """Refuse a list or tuple holding more than `MAX_SEQUENCE` values, counting the values of
    every list inside it: a list of 140 lists of 140 values is 19,600 values, and simpleeval
    walks a value whole each time an expression reads it. Stops counting at the bound, so the
    check costs at most `MAX_SEQUENCE` steps."""
    if not isinstance(value, (list, tuple)):
        return value
    count, pending = 0, [value]
    while pending:
        items = pending.pop()
        count += len(items)
        if count > MAX_SEQUENCE:
            raise _Refused(
                f"a list may hold at most {MAX_SEQUENCE:,} values, counting the values of the "
                f"lists inside it; this one holds more than {MAX_SEQUENCE:,} values"
            )
        pending.extend(item for item in items if isinstance(item, (list, tuple)))
    return value


def _arith(fn):
    def apply(left: Any, right: Any) -> Any:
        if isinstance(left, str) or isinstance(right, str):
            raise _Refused("strings can only be compared, not combined")
        if isinstance(left, (list, tuple)) or isinstance(right, (list, tuple)):
            raise _Refused("arithmetic works on numbers, not lists")
        return _check_number(fn(left, right))

    return apply


def _contains(item: Any, container: Any) -> bool:
    if not isinstance(container, (list, tuple, str, Mapping, KeysView, ValuesView)):
        raise _Refused("'in' needs a list, a mapping or a string on its right")
    return item in container


OPERATORS = {
    ast.Add: _arith(op.add),
    ast.Sub: _arith(op.sub),
    ast.Mult: _arith(op.mul),
    ast.Div: _arith(op.truediv),
    ast.FloorDiv: _arith(op.floordiv),
    ast.Mod: _arith(op.mod),
    ast.Pow: _power,
    ast.USub: lambda x: _check_number(-x),
    ast.UAdd: lambda x: x,
    ast.Not: op.not_,
    ast.Eq: op.eq,
    ast.NotEq: op.ne,
    ast.Lt: op.lt,
    ast.LtE: op.le,
    ast.Gt: op.gt,
    ast.GtE: op.ge,
    ast.In: _contains,
    ast.NotIn: lambda x, y: not _contains(x, y),
}


def _trusted_type(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return any(module == p or module.startswith(p + ".") for p in TRUSTED_MODULE_PREFIXES)


def is_catalog_object(value: Any) -> bool:
    """True for an instance of a frozen dataclass defined in a trusted module."""
    cls = type(value)
    if not dataclasses.is_dataclass(cls) or isinstance(value, type):
        return False
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        return False
    return _trusted_type(cls)


@functools.lru_cache(maxsize=256)
def _public_members(cls: type) -> frozenset[str]:
    names = {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, (property, staticmethod, classmethod)) or inspect.isfunction(member):
            names.add(name)
    return frozenset(names)


def parse_expression(expr: str) -> ast.Expression:
    """Parse and statically vet ``expr``; raise ``_Refused`` or ``SyntaxError``.

    Trees are cached by text: templates evaluate the same expressions for every variant, and
    the evaluator never modifies a tree.
    """
    if not isinstance(expr, str):
        raise _Refused("an expression must be text")
    return _parse_cached(expr)


@functools.lru_cache(maxsize=4096)
def _parse_cached(expr: str) -> ast.Expression:
    if not isinstance(expr, str):
        raise _Refused("an expression must be text")
    if len(expr) > MAX_EXPRESSION_LENGTH:
        raise _Refused(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    if not expr.strip():
        raise _Refused("empty expression")
    tree = ast.parse(expr.strip(), mode="eval")
    count = 0
    for node in ast.walk(tree):
        count += 1
        if count > MAX_NODES:
            raise _Refused(f"expression too complex (more than {MAX_NODES} parts)")
        if type(node) in _REFUSED_MESSAGES:
            raise _Refused(_REFUSED_MESSAGES[type(node)])
        if not isinstance(node, _ALLOWED_NODES):
            raise _Refused(f"{type(node).__name__} is not allowed in an expression")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise _Refused(f"attribute '{node.attr}' is not allowed")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise _Refused(f"name '{node.id}' is not allowed")
        if isinstance(node, ast.Constant):
            _check_constant(node.value)
        if isinstance(node, ast.Call) and not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise _Refused("only named functions and methods can be called")
        if isinstance(node, ast.keyword) and node.arg is None:
            raise _Refused("** unpacking is not allowed")
    return tree


def _check_constant(value: Any) -> None:
    if isinstance(value, str) and len(value) > MAX_STRING_LITERAL:
        raise _Refused(f"string literal longer than {MAX_STRING_LITERAL} characters")
    if isinstance(value, (bytes, complex)) or value is Ellipsis:
        raise _Refused(f"{type(value).__name__} literals are not allowed")
    _check_number(value)


def free_names(expr: str) -> tuple[set[str], set[str]]:
    """Return (names called as functions, other names read) in ``expr`` (assumed valid)."""
    tree = parse_expression(expr)
    called: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in called:
            read.add(node.id)
    return called, read


def _literal_names() -> set[str]:
    return {"True", "False", "None"}


def check_expression(
    expr: str,
    known: Mapping[str, object] | set[str] | frozenset[str],
    *,
    source: str = "<expr>",
    line: int | None = None,
    shown: str | None = None,
) -> None:
    """Raise ExpressionError if ``expr`` does not parse or uses a name not in ``known``.

    ``known`` maps names to values (callability is then checked) or is a set of names (when the
    values are not known yet, e.g. template parameters at parse time).
    """
    shown = expr if shown is None else shown
    try:
        tree = parse_expression(expr)
    except SyntaxError as exc:
        raise ExpressionError(source, line, shown, f"syntax error: {exc.msg}") from None
    except _Refused as exc:
        raise ExpressionError(source, line, shown, str(exc)) from None
    names = set(known) | _literal_names()
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name) or node.id in names:
            continue
        kind = "function" if id(node) in calls else "name"
        hint = did_you_mean(node.id, names - _literal_names())
        raise ExpressionError(source, line, shown, f"unknown {kind} '{node.id}'{hint}")
    if isinstance(known, Mapping):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if not callable(known.get(node.func.id)):
                    raise ExpressionError(
                        source, line, shown, f"'{node.func.id}' is a value, not a function"
                    )

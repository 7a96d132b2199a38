"""The safe expression language: simpleeval, narrowed to what templates and chapters need.

Everything is refused unless listed: the AST node types, the operators, the callables (only
names given in the namespace), and attribute access (public fields and methods of the frozen
catalog dataclasses of ``content.physics``, plus a short allow-list of container methods).
Sizes are bounded before any work is done: the text, the number of AST nodes, string
literals, integer sizes and power exponents, so no expression can hang or exhaust memory.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import math
import operator as op
from collections.abc import KeysView, Mapping, ValuesView
from typing import Any

import simpleeval

from content.expressions.errors import ExpressionError, did_you_mean

MAX_EXPRESSION_LENGTH = 2000
MAX_NODES = 300
MAX_STRING_LITERAL = 200
MAX_EXPONENT = 128
MAX_INT_BITS = 256
MAX_SEQUENCE = 1000

# Modules whose frozen dataclasses expose their public fields and methods to expressions.
TRUSTED_MODULE_PREFIXES: tuple[str, ...] = ("content.physics",)

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
    return base**exponent


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
    """Parse and statically vet ``expr``; raise ``_Refused`` or ``SyntaxError``."""
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


class SafeEvaluator(simpleeval.SimpleEval):
    """simpleeval with our node set, operators, call rule and attribute policy.

    It also records every catalog object that an evaluation returned, received or read, so a
    chapter can list the sources of the figures it printed.
    """

    def __init__(self, names: Mapping[str, object]) -> None:
        super().__init__(operators=dict(OPERATORS), functions={}, names=dict(names))
        self.ATTR_INDEX_FALLBACK = False
        for node_type in (ast.Assign, ast.AugAssign, ast.Import, ast.JoinedStr):
            self.nodes.pop(node_type, None)
        self.nodes[ast.List] = lambda node: [self._eval(e) for e in node.elts]
        self.nodes[ast.Tuple] = lambda node: tuple(self._eval(e) for e in node.elts)
        self.touched: list[object] = []

    def _eval(self, node: ast.AST) -> Any:
        result = super()._eval(node)
        if is_catalog_object(result):
            self._touch(result)
        if isinstance(result, (list, tuple)) and len(result) > MAX_SEQUENCE:
            raise _Refused("list too long")
        return result

    def _touch(self, obj: object) -> None:
        if not any(obj is seen for seen in self.touched):
            self.touched.append(obj)

    def _eval_name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.names[node.id]
        if node.id in _literal_names():
            return {"True": True, "False": False, "None": None}[node.id]
        raise _Refused(f"unknown name '{node.id}'{did_you_mean(node.id, self.names)}")

    def _eval_call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name not in self.names:
                hint = did_you_mean(name, [k for k, v in self.names.items() if callable(v)])
                raise _Refused(f"unknown function '{name}'{hint}")
            func = self.names[name]
            if not callable(func) or isinstance(func, type):
                raise _Refused(f"'{name}' is a value, not a function")
        elif isinstance(node.func, ast.Attribute):
            func = self._eval(node.func)
            if not callable(func):
                raise _Refused(f"'.{node.func.attr}' is a value, not a method")
        else:
            raise _Refused("only named functions and methods can be called")
        args = [self._eval(a) for a in node.args]
        kwargs = dict(self._eval(k) for k in node.keywords)
        if isinstance(node.func, ast.Name):
            self._touch_arguments(node.func.id, args, kwargs)
        return func(*args, **kwargs)

    def _touch_arguments(self, func_name: str, args: list, kwargs: dict) -> None:
        # A physics function given "H100" reads the catalog itself; resolving the same string
        # here is how the chapter learns which entries its numbers came from.
        if func_name in _CATALOG_LOOKUPS:
            return
        lookups = [self.names[k] for k in _CATALOG_LOOKUPS if callable(self.names.get(k))]
        for value in [*args, *kwargs.values()]:
            if not isinstance(value, str) or len(value) > 64:
                continue
            for lookup in lookups:
                try:
                    found = lookup(value)
                except Exception:  # noqa: BLE001 - a miss in one catalog is the normal case
                    continue
                if is_catalog_object(found):
                    self._touch(found)
                    break

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        attr = node.attr
        if attr.startswith("_"):
            raise _Refused(f"attribute '{attr}' is not allowed")
        obj = self._eval(node.value)
        if is_catalog_object(obj):
            allowed = _public_members(type(obj))
            if attr not in allowed:
                hint = did_you_mean(attr, allowed)
                raise _Refused(f"{type(obj).__name__} has no field '{attr}'{hint}")
            return getattr(obj, attr)
        for kind, methods in ALLOWED_METHODS.items():
            if type(obj) is kind and attr in methods:
                return getattr(obj, attr)
        # Read-only mappings of the catalog (e.g. peak_flops) read like dicts.
        if isinstance(obj, Mapping) and _trusted_type(type(obj)) and attr in ALLOWED_METHODS[dict]:
            return getattr(obj, attr)
        raise _Refused(f"'.{attr}' is not allowed on a {type(obj).__name__}")

    def _eval_subscript(self, node: ast.Subscript) -> Any:
        container = self._eval(node.value)
        key = self._eval(node.slice)
        if not isinstance(container, (list, tuple, dict, Mapping)):
            raise _Refused(f"a {type(container).__name__} cannot be subscripted")
        try:
            return container[key]
        except KeyError:
            keys = [str(k) for k in container] if isinstance(container, Mapping) else []
            raise _Refused(f"no key {key!r}{did_you_mean(str(key), keys)}") from None
        except IndexError:
            raise _Refused(f"index {key!r} is out of range") from None


_CATALOG_LOOKUPS = ("accelerator", "dtype", "model", "link")


def evaluate_tracked(
    expr: str,
    names: Mapping[str, object] | None = None,
    *,
    source: str = "<expr>",
    line: int | None = None,
    shown: str | None = None,
) -> tuple[object, list[object]]:
    """Evaluate ``expr``; return (value, catalog objects touched)."""
    from content.expressions.namespace import default_namespace

    shown = expr if shown is None else shown
    namespace = default_namespace() if names is None else names
    try:
        tree = parse_expression(expr)
    except SyntaxError as exc:
        raise ExpressionError(source, line, shown, f"syntax error: {exc.msg}") from None
    except _Refused as exc:
        raise ExpressionError(source, line, shown, str(exc)) from None
    evaluator = SafeEvaluator(namespace)
    try:
        value = evaluator.eval(expr, previously_parsed=tree.body)
    except ExpressionError:
        raise
    except _Refused as exc:
        raise ExpressionError(source, line, shown, str(exc)) from None
    except simpleeval.InvalidExpression as exc:
        raise ExpressionError(source, line, shown, _simpleeval_message(exc)) from None
    except ZeroDivisionError:
        raise ExpressionError(source, line, shown, "division by zero") from None
    except OverflowError:
        raise ExpressionError(source, line, shown, "number too large") from None
    except KeyError as exc:
        message = exc.args[0] if exc.args else "not found"
        raise ExpressionError(source, line, shown, str(message)) from None
    except (TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as exc:
        raise ExpressionError(source, line, shown, str(exc) or type(exc).__name__) from None
    except RecursionError:
        raise ExpressionError(source, line, shown, "expression nested too deeply") from None
    if isinstance(value, float) and math.isnan(value):
        raise ExpressionError(source, line, shown, "the result is not a number (NaN)")
    return value, evaluator.touched


def _simpleeval_message(exc: simpleeval.InvalidExpression) -> str:
    text = str(exc)
    return text.replace("Sorry, ", "").strip() or type(exc).__name__


def evaluate(
    expr: str,
    names: Mapping[str, object] | None = None,
    *,
    source: str = "<expr>",
    line: int | None = None,
) -> object:
    """Evaluate ``expr`` with ``names`` (default: ``default_namespace()``)."""
    value, _ = evaluate_tracked(expr, names, source=source, line=line)
    return value

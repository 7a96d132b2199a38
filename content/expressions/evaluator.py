"""The evaluator: simpleeval with the policy of ``policy.py``, tracking the catalog it reads."""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping
from typing import Any

import simpleeval

from content.expressions.errors import ExpressionError, did_you_mean
from content.expressions.policy import (
    ALLOWED_METHODS,
    OPERATORS,
    _literal_names,
    _public_members,
    _Refused,
    _trusted_type,
    check_sequence,
    is_catalog_object,
    parse_expression,
)


class SafeEvaluator(simpleeval.SimpleEval):
    """simpleeval with our node set, operators, call rule and attribute policy.

    It also records what of the catalog an evaluation used, so a chapter can list the sources
    of the figures it printed: a field read from an entry (``accelerator("H100").memory_bandwidth``)
    as ``FieldRead(entry, field)``, whose source alone is cited; an entry used whole (passed to a
    function, returned, named by a string argument) as the entry, all of whose sources are.
    """

    def __init__(self, names: Mapping[str, object], *, track: bool = True) -> None:
        super().__init__(operators=dict(OPERATORS), functions={}, names=dict(names))
        self.ATTR_INDEX_FALLBACK = False
        for node_type in (ast.Assign, ast.AugAssign, ast.Import, ast.JoinedStr):
            self.nodes.pop(node_type, None)
        self.nodes[ast.List] = lambda node: [self._eval(e) for e in node.elts]
        self.nodes[ast.Tuple] = lambda node: tuple(self._eval(e) for e in node.elts)
        self.touched: list[object] = []
        self.track = track

    def _eval(self, node: ast.AST) -> Any:
        result = super()._eval(node)
        if is_catalog_object(result):
            self._touch(result)
        return check_sequence(result)

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
        method_owner = None
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
            owner = method_owner = getattr(func, "__self__", None)
            if is_catalog_object(owner):
                from content.expressions.namespace import bounded_method

                func = bounded_method(owner, node.func.attr, func)
        else:
            raise _Refused("only named functions and methods can be called")
        args = [self._eval(a) for a in node.args]
        kwargs = dict(self._eval(k) for k in node.keywords)
        if isinstance(node.func, ast.Name):
            if self.track and FIELD_READER is not None and node.func.id not in _CATALOG_LOOKUPS:
                return self._call_reading(node.func.id, func, args, kwargs)
            self._touch_arguments(node.func.id, args, kwargs)
        elif self.track and is_catalog_object(method_owner):
            # A method reads one figure of its entry: acc.peak("bf16") is peak_flops.bf16.
            self._read(method_owner, _method_field(node.func.attr, args))
        return func(*args, **kwargs)

    def _call_reading(self, name: str, func, args: list, kwargs: dict) -> Any:
        """Call ``func`` noting the subject data it reads: each field it read is cited alone;
        a function that looked nothing up by name is credited with the entries its string
        arguments name, whole."""
        with FIELD_READER() as reads:
            result = func(*args, **kwargs)
        for entry, field in reads:
            self._read(entry, field)
        if not reads:
            self._touch_arguments(name, args, kwargs)
        return result

    def _read(self, entry: object, field: str | None) -> None:
        namespace = getattr(entry, "__dict__", None)
        if isinstance(namespace, dict):
            entry = namespace.get("_read_origin", entry)
        if field is not None and not any(
            isinstance(seen, FieldRead) and seen.entry is entry and seen.field == field
            for seen in self.touched
        ):
            self.touched.append(FieldRead(entry, field))

    def _touch_arguments(self, func_name: str, args: list, kwargs: dict) -> None:
        # A physics function given "H100" reads the catalog itself; resolving the same string
        # here is how the chapter learns which entries its numbers came from.
        if func_name in _CATALOG_LOOKUPS:
            return
        if not self.track:
            return
        lookups = tuple(self.names[k] for k in _CATALOG_LOOKUPS if callable(self.names.get(k)))
        for value in [*args, *kwargs.values()]:
            if isinstance(value, str) and len(value) <= 64:
                found = _resolve(lookups, value)
                if found is not None:
                    self._touch(found)

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        attr = node.attr
        if attr.startswith("_"):
            raise _Refused(f"attribute '{attr}' is not allowed")
        # The entry an attribute is read from is not used whole: only the field is cited.
        obj = check_sequence(super()._eval(node.value))
        if is_catalog_object(obj):
            allowed = _public_members(type(obj))
            if attr not in allowed:
                hint = did_you_mean(attr, allowed)
                raise _Refused(f"{type(obj).__name__} has no field '{attr}'{hint}")
            value = getattr(obj, attr)
            if self.track and not callable(value):
                self._read(obj, attr)
            return value
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
# The subject's context manager noting the data a function call reads (``configure_subject``):
# it yields a list that fills with (entry, field) pairs, field None for a bare look-up.
FIELD_READER = None


class FieldRead(tuple):
    """One field of one catalog entry, as an expression read it: ``(entry, "memory_bandwidth")``.
    Its citations are the source of that field alone (``collect_citations``)."""

    __slots__ = ()

    def __new__(cls, entry: object, field: str):
        return super().__new__(cls, (entry, field))

    @property
    def entry(self) -> object:
        return self[0]

    @property
    def field(self) -> str:
        return self[1]


def _method_field(name: str, args: list) -> str | None:
    """The field a catalog method reads: ``peak(dt)`` -> "peak_flops.<dt>", ``shown()`` ->
    "value"; None for a method that reads no figure (``noun``, ``citations``)."""
    if name == "peak" and args:
        dt = args[0]
        return f"peak_flops.{getattr(dt, 'name', dt)}"
    if name == "shown":
        return "value"
    return None


@functools.lru_cache(maxsize=1024)
def _resolve(lookups: tuple, value: str) -> object | None:
    """The first catalog entry named ``value``; catalogs are immutable, so this is cached."""
    for lookup in lookups:
        try:
            found = lookup(value)
        except Exception:  # noqa: BLE001 - a miss in one catalog is the normal case
            continue
        if is_catalog_object(found):
            return found
    return None


def evaluate_tracked(
    expr: str,
    names: Mapping[str, object] | None = None,
    *,
    source: str = "<expr>",
    line: int | None = None,
    shown: str | None = None,
    track: bool = True,
    evaluator: SafeEvaluator | None = None,
) -> tuple[object, list[object]]:
    """Evaluate ``expr``; return (value, catalog objects touched).

    ``evaluator``: one made for these same ``names`` (``SafeEvaluator(names)``), reused for
    the next expression of the same text instead of building another (building one costs
    more than evaluating most expressions)."""
    from content.expressions.namespace import default_namespace

    shown = expr if shown is None else shown
    namespace = default_namespace() if names is None else names
    try:
        tree = parse_expression(expr)
    except SyntaxError as exc:
        raise ExpressionError(source, line, shown, f"syntax error: {exc.msg}") from None
    except _Refused as exc:
        raise ExpressionError(source, line, shown, str(exc)) from None
    if evaluator is None:
        evaluator = SafeEvaluator(namespace, track=track)
    else:
        evaluator.touched, evaluator.track = [], track
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
    value, _ = evaluate_tracked(expr, names, source=source, line=line, track=False)
    return value

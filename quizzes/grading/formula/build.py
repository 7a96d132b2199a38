"""From a parsed formula to sympy objects (built directly, never from strings) and to text.

`to_sympy` constructs the expression node by node with sympy's classes; the parser's size
limits guarantee that sympy's automatic evaluation of constants stays small.  Decimals arrive
as exact fractions (``0.5n`` is ``n/2``).  `render_plain` and `render_latex` show a formula the
way it was read, with explicit operators and only the parentheses that precedence needs, so a
student can see that ``1/(2n)`` and ``(1/2)n`` were told apart.

Variable domains: "positive" (the default: sizes and counts), "nonnegative", "real",
"integer", "positive integer", "nonnegative integer" (also "natural" for positive integers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy

from .parser import Node

DOMAINS = {
    "positive": {"positive": True},
    "nonnegative": {"nonnegative": True},
    "real": {"real": True},
    "integer": {"integer": True},
    "positive integer": {"positive": True, "integer": True},
    "natural": {"positive": True, "integer": True},
    "nonnegative integer": {"nonnegative": True, "integer": True},
}
_FUNCTIONS = {
    "log": sympy.log,
    "exp": sympy.exp,
    "sqrt": sympy.sqrt,
    "floor": sympy.floor,
    "ceil": sympy.ceiling,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "min": sympy.Min,
    "max": sympy.Max,
}


def domains_of(variables: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """Normalise `variables` to {name: domain}; raise ValueError for a template mistake."""
    if isinstance(variables, str):
        raise ValueError("variables must be a sequence of names or a mapping, not a string")
    pairs = (
        variables.items()
        if isinstance(variables, Mapping)
        else [(v, "positive") for v in variables]
    )
    result = {}
    for name, domain in pairs:
        if domain not in DOMAINS:
            raise ValueError(
                f"unknown domain {domain!r} for {name!r}; use one of {sorted(DOMAINS)}"
            )
        if not name or not (name.isidentifier() or name.isalpha()):
            raise ValueError(f"variable name {name!r} is not a plain name")
        result[name] = domain
    return result


def make_symbols(domains: Mapping[str, str]) -> dict[str, sympy.Symbol]:
    return {name: sympy.Symbol(name, **DOMAINS[domain]) for name, domain in domains.items()}


def to_sympy(node: Node, symbols: Mapping[str, sympy.Symbol]) -> sympy.Expr:
    kind, args = node.kind, node.args
    if kind == "num":
        return sympy.Rational(node.value.numerator, node.value.denominator)
    if kind == "var":
        return symbols[node.value]
    if kind == "const":
        return sympy.pi if node.value == "pi" else sympy.E
    parts = [to_sympy(arg, symbols) for arg in args]
    if kind == "neg":
        return sympy.Mul(sympy.Integer(-1), parts[0])
    if kind == "add":
        return sympy.Add(*parts)
    if kind == "sub":
        return sympy.Add(parts[0], sympy.Mul(sympy.Integer(-1), parts[1]))
    if kind == "mul":
        return sympy.Mul(*parts)
    if kind == "div":
        return sympy.Mul(parts[0], sympy.Pow(parts[1], sympy.Integer(-1)))
    if kind == "pow":
        return sympy.Pow(*parts)
    if kind == "fact":
        return sympy.factorial(parts[0])
    if kind == "abs":
        return sympy.Abs(parts[0])
    if node.value == "log2":
        return sympy.log(parts[0], 2)
    if node.value == "log10":
        return sympy.log(parts[0], 10)
    return _FUNCTIONS[node.value](*parts)


_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4, "fact": 5}


def _precedence(node: Node) -> int:
    if node.kind == "num" and node.value < 0:
        return 3
    return _PRECEDENCE.get(node.kind, 6)


def _number_text(value) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    text = format(value.numerator / value.denominator, ".15g")
    return text if "e" not in text else str(value)


def render_plain(node: Node) -> str:
    """Plain text with explicit operators: ``2*n^3/(3*n^2)``."""

    def wrap(child: Node, minimum: int) -> str:
        text = render_plain(child)
        return f"({text})" if _precedence(child) < minimum else text

    kind, args = node.kind, node.args
    if kind == "num":
        return _number_text(node.value)
    if kind in ("var", "const"):
        return node.value
    if kind == "add":
        return f"{wrap(args[0], 1)} + {wrap(args[1], 2 if args[1].kind == 'neg' else 1)}"
    if kind == "sub":
        return f"{wrap(args[0], 1)} - {wrap(args[1], 2)}"
    if kind == "mul":
        return f"{wrap(args[0], 2)}*{wrap(args[1], 3)}"
    if kind == "div":
        return f"{wrap(args[0], 2)}/{wrap(args[1], 3)}"
    if kind == "neg":
        return f"-{wrap(args[0], 3)}"
    if kind == "pow":
        return f"{wrap(args[0], 5)}^{wrap(args[1], 4)}"
    if kind == "fact":
        return f"{wrap(args[0], 6)}!"
    if kind == "abs":
        return f"|{render_plain(args[0])}|"
    return f"{node.value}({', '.join(render_plain(arg) for arg in args)})"


_LATEX_FUNCTIONS = {
    "log": r"\log",
    "log2": r"\log_2",
    "log10": r"\log_{10}",
    "exp": r"\exp",
    "sin": r"\sin",
    "cos": r"\cos",
    "tan": r"\tan",
    "asin": r"\arcsin",
    "acos": r"\arccos",
    "atan": r"\arctan",
    "min": r"\min",
    "max": r"\max",
}


def _latex_name(name: str) -> str:
    if name == "pi":
        return r"\pi"
    if len(name) > 1:
        return r"\mathit{" + name.replace("_", r"\_") + "}"
    return name


def render_latex(node: Node) -> str:
    """LaTeX for the preview: ``\\frac{2 n^{3}}{3 n^{2}}``."""

    def wrap(child: Node, minimum: int) -> str:
        text = render_latex(child)
        return rf"\left({text}\right)" if _precedence(child) < minimum else text

    kind, args = node.kind, node.args
    if kind == "num":
        return _number_text(node.value)
    if kind in ("var", "const"):
        return _latex_name(node.value)
    if kind == "add":
        return f"{wrap(args[0], 1)} + {wrap(args[1], 2 if args[1].kind == 'neg' else 1)}"
    if kind == "sub":
        return f"{wrap(args[0], 1)} - {wrap(args[1], 2)}"
    if kind == "mul":
        joiner = r" \cdot " if args[1].kind == "num" or not node.implicit else " "
        return f"{wrap(args[0], 2)}{joiner}{wrap(args[1], 3)}"
    if kind == "div":
        return rf"\frac{{{render_latex(args[0])}}}{{{render_latex(args[1])}}}"
    if kind == "neg":
        return f"-{wrap(args[0], 3)}"
    if kind == "pow":
        return f"{{{wrap(args[0], 5)}}}^{{{render_latex(args[1])}}}"
    if kind == "fact":
        return f"{wrap(args[0], 6)}!"
    if kind == "abs":
        return rf"\left|{render_latex(args[0])}\right|"
    inner = ", ".join(render_latex(arg) for arg in args)
    if node.value == "sqrt":
        return rf"\sqrt{{{inner}}}"
    if node.value in ("floor", "ceil"):
        left, right = (r"\lfloor", r"\rfloor") if node.value == "floor" else (r"\lceil", r"\rceil")
        return rf"\left{left} {inner} \right{right}"
    return rf"{_LATEX_FUNCTIONS[node.value]}\left({inner}\right)"

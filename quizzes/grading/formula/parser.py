"""Recursive-descent parser from formula tokens to a small syntax tree, with size limits.

Grammar (highest binding last):

    expr    := term (("+" | "-") term)*
    term    := unary (("*" | "/") unary | implicit-power)*
    unary   := ("+" | "-") unary | power
    power   := postfix ["^" unary]                 right-associative: 2^3^2 = 2^9
    postfix := atom ("!" | superscript)*
    atom    := number | variable | constant | "(" expr ")" | "|" expr "|"
             | function "(" expr ("," expr)* ")" | function power

Ambiguities refused with a hint to add parentheses: a division followed by an implicit product
(``1/2n``), an exponent glued to a following name (``e^2n``), a function without parentheses
whose argument is followed by another factor (``log 2n``), ``log^2 n``, and a number after a
factor (``n 2``).  Limits, checked while parsing so that nothing large is ever computed:
nesting depth, and for every constant sub-expression an estimate of its size (``9**9**9``,
``10^10^10``, ``(10!)!`` are refused); exponents beyond ±1000 are refused on any base.

Within those limits constant arithmetic is exact: a rational constant sub-expression (numbers
joined by ``+ - × ÷``, whole powers, ``!``, ``|…|``, floor, ceil, min, max) carries its exact
value as a Fraction, so ``171!/171`` is 170! and a factorial's argument is checked as the exact
whole number it is; a float (which stops at about 1.8e308, below the 400-digit limit) is only
an approximation beside it, for the size of irrational constants such as ``log(3)/log(2)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ..results import ResponseError
from .lexer import Token

MAX_DEPTH = 40
MAX_DIGITS = 400
MAX_EXPONENT = 1000
MAX_FACTORIAL = 400
MAX_WRITTEN = 20_000
_TOO_LARGE = "This formula contains a number too large to work with ({}); simplify it."


@dataclass(frozen=True)
class Node:
    """A syntax-tree node.  `kind`: num var const neg add sub mul div pow fact abs call.

    For constant sub-trees `size` estimates log10 of the magnitude (None when not constant),
    `exact` is the value as a Fraction when it is rational (None otherwise), `approx` is a
    float value when one fits, and `written` bounds the digits of its exact form (`_written`).
    """

    kind: str
    args: tuple = ()
    value: object = None
    implicit: bool = False
    size: float | None = field(default=None, compare=False)
    approx: float | None = field(default=None, compare=False)
    exact: Fraction | None = field(default=None, compare=False)
    written: float | None = field(default=None, compare=False)


def _const(kind, args, value=None, implicit=False) -> Node:
    """Build a node, estimating constant sizes and refusing the ones that are too large."""
    sizes = [a.size for a in args if isinstance(a, Node)]
    constant = all(s is not None for s in sizes) and kind not in ("var",)
    if kind == "num":
        return Node(
            kind, args, value, implicit, _size_of(value), _float(value), value, _digits(value)
        )
    if kind == "const":
        pi_or_e = math.pi if value == "pi" else math.e
        return Node(kind, args, value, implicit, 0.5, pi_or_e, written=1)
    if kind == "var" or not constant:
        _check_exponent(kind, args)
        return Node(kind, args, value, implicit)
    size, approx = _estimate(kind, args, value)
    if size > MAX_DIGITS:
        raise ResponseError(_TOO_LARGE.format("over 10^" + str(MAX_DIGITS)))
    written = _written(kind, args)
    if written > MAX_WRITTEN:
        raise ResponseError(_TOO_LARGE.format(f"over {MAX_WRITTEN} digits when written exactly"))
    exact = _exact(kind, args, value)
    if exact is not None:
        size, approx, written = _size_of(exact), _float(exact), _digits(exact)
    return Node(kind, args, value, implicit, size, approx, exact, written)


def _digits(value: Fraction) -> int:
    """The digits of a fraction's numerator and (unless 1) denominator, from their bit lengths
    (str() of a number over 4300 digits raises)."""
    top = int(abs(value.numerator).bit_length() * math.log10(2)) + 1
    return top + (
        int(value.denominator.bit_length() * math.log10(2)) + 1 if value.denominator != 1 else 0
    )


def _written(kind: str, args: tuple) -> float:
    """An upper bound on the digits sympy's exact form of a constant node takes: the numerator
    and denominator of a fraction, or of the numbers inside a root or a logarithm.  It bounds
    what sympy computes exactly; the magnitude (`size`) does not, as in
    ``(10^399/(10^399+1))^1000``, about 1 in size but 800,000 digits as a fraction."""
    if kind == "pow":
        return args[0].written * max(1.0, math.ceil(_exponent_bound(args[1])))
    if kind == "fact":
        return math.lgamma(_factorial_argument(args[0]) + 1) / math.log(10) + 1
    return sum(arg.written for arg in args)


def _size_of(value: Fraction) -> float:
    """log10 of an exact value's magnitude, from its digits (no float overflow)."""
    if not value:
        return -math.inf
    return math.log10(abs(value.numerator)) - math.log10(value.denominator)


def _float(value: Fraction) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None


def _exact(kind: str, args: tuple, value: object) -> Fraction | None:
    """The exact value of a rational constant node (its size and digits already checked)."""
    values = [arg.exact for arg in args]
    if any(v is None for v in values):
        return None
    a = values[0]
    b = values[1] if len(values) > 1 else None
    if kind == "neg":
        return -a
    if kind == "abs":
        return abs(a)
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind == "mul":
        return a * b
    if kind == "div":
        return a / b  # a zero divisor was refused by `_estimate`
    if kind == "pow":
        return a**b.numerator if b.denominator == 1 else None
    if kind == "fact":
        return Fraction(math.factorial(int(a)))
    if kind == "call" and value in _EXACT:
        return Fraction(_EXACT[value](*values))
    return None


# Constant calls whose value is exactly rational for rational arguments.
_EXACT = {"floor": math.floor, "ceil": math.ceil, "min": min, "max": max}


def _exponent_bound(node: Node) -> float:
    """The largest magnitude a constant exponent can have: its value, else its size estimate.

    A constant without a float value (``log(3)/log(2)`` before this was computed, ``sin(1)``)
    is bounded by its size, so a symbolic exponent is never mistaken for a large number.
    """
    if node.exact is not None:
        return math.inf if node.size > 300 else float(abs(node.exact))
    if node.approx is not None:
        return abs(node.approx)
    return math.inf if node.size > 300 else 10.0**node.size


def _check_exponent(kind: str, args: tuple) -> None:
    if kind == "pow" and args[1].size is not None:
        if _exponent_bound(args[1]) > MAX_EXPONENT:
            raise ResponseError(_TOO_LARGE.format("an exponent beyond ±1000"))
    if kind == "fact" and args[0].size is not None:
        _factorial_argument(args[0])


def _factorial_argument(node: Node) -> int:
    value = node.exact if node.exact is not None else node.approx
    if value is None or value > MAX_FACTORIAL:
        raise ResponseError(_TOO_LARGE.format(f"the factorial of a number above {MAX_FACTORIAL}"))
    if value < 0 or value != int(value):
        raise ResponseError("The factorial is defined here for whole numbers 0, 1, 2, ...")
    return int(value)


def _safe(function, *values) -> float | None:
    try:
        result = function(*values)
        result = float(result) if isinstance(result, int) else result
    except (OverflowError, ValueError, ZeroDivisionError, TypeError):
        return None
    return result if isinstance(result, float) and math.isfinite(result) else None


def _estimate(kind: str, args: tuple, value: object) -> tuple[float, float | None]:
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None
    if kind == "neg":
        return a.size, _safe(lambda x: -x, a.approx)
    if kind in ("add", "sub"):
        op = (lambda x, y: x + y) if kind == "add" else (lambda x, y: x - y)
        return max(a.size, b.size) + 0.31, _safe(op, a.approx, b.approx)
    if kind == "mul":
        return a.size + b.size, _safe(lambda x, y: x * y, a.approx, b.approx)
    if kind == "div":
        if b.exact == 0 or b.approx == 0:
            raise ResponseError("This formula divides by zero; check the denominators.")
        return a.size - b.size, _safe(lambda x, y: x / y, a.approx, b.approx)
    if kind == "pow":
        _check_exponent(kind, args)
        exponent = b.approx
        if (a.exact == 0 or a.approx == 0) and exponent is not None and exponent <= 0:
            raise ResponseError("This formula divides by zero (0 to a power of 0 or less).")
        largest = exponent if exponent is not None else _exponent_bound(b)
        size = largest * a.size if a.size != -math.inf else -math.inf
        if abs(size) > MAX_DIGITS:
            raise ResponseError(_TOO_LARGE.format("a power with over 400 digits"))
        if exponent is None:
            return abs(size), None
        return size, _safe(lambda x, y: float(x) ** y, a.approx, exponent)
    if kind == "fact":
        n = _factorial_argument(a)
        return math.lgamma(n + 1) / math.log(10), None  # the exact value follows (`_exact`)
    if kind == "abs":
        return a.size, _safe(abs, a.approx)
    if kind == "call" and value == "exp":
        bound = a.approx if a.approx is not None else _exponent_bound(a)
        if bound > 900:
            raise ResponseError(_TOO_LARGE.format("the exponential of a large number"))
        return bound / math.log(10), _safe(math.exp, a.approx)
    # log, sqrt, floor, ceil, sin, ... never grow beyond their argument; a root halves it
    size = max(arg.size for arg in args) / (2 if value == "sqrt" else 1)
    function = _APPROX.get(value)
    approx = None
    if function is not None and all(arg.approx is not None for arg in args):
        approx = _safe(function, *(arg.approx for arg in args))
    if approx is not None:
        size = math.log10(abs(approx)) if approx else -math.inf
    return size, approx


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x) / math.log(base)


# Float values of constant calls, so that a constant exponent such as log(3)/log(2) is known
# to be about 1.58 rather than refused as unknown (math raises ValueError outside a domain).
_APPROX = {
    "log": _log,
    "log2": math.log2,
    "log10": math.log10,
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "floor": math.floor,
    "ceil": math.ceil,
    "min": min,
    "max": max,
}


class Parser:
    """Parses a token list; `parse()` returns the root Node or raises ResponseError."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.index = 0
        self.depth = 0
        self.abs_depth = 0

    # -- token helpers --------------------------------------------------------------------
    def peek(self, offset: int = 0) -> Token | None:
        index = self.index + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def is_op(self, symbol: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "op" and token.value == symbol

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, symbol: str, message: str) -> None:
        if not self.is_op(symbol):
            raise ResponseError(message)
        self.take()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ResponseError("This formula is nested too deeply; simplify it.")

    def starts_implicit_factor(self) -> bool:
        token = self.peek()
        if token is None:
            return False
        if token.kind == "number":
            raise ResponseError(
                f"Put numbers before letters and brackets: write 2n, not n 2 (near '{token.text}')."
            )
        if token.kind in ("name", "const", "func"):
            return True
        return token.kind == "op" and (
            token.value == "(" or (token.value == "|" and self.abs_depth == 0)
        )

    # -- grammar --------------------------------------------------------------------------
    def parse(self) -> Node:
        if not self.tokens:
            raise ResponseError("Enter a formula.")
        node = self.expr()
        if self.index < len(self.tokens):
            token = self.peek()
            if self.is_op(")"):
                raise ResponseError("There is a ')' without a matching '('.")
            raise ResponseError(f"Could not read the formula from '{token.text}' on.")
        return node

    def expr(self) -> Node:
        node = self.term()
        while self.is_op("+") or self.is_op("-"):
            kind = "add" if self.take().value == "+" else "sub"
            node = _const(kind, (node, self.term()))
        return node

    def term(self) -> Node:
        node = self.unary()
        after_division = False
        while True:
            if self.is_op("*") or self.is_op("/"):
                divide = self.take().value == "/"
                right = self.unary()
                node = _const("div" if divide else "mul", (node, right))
                after_division = divide
            elif self.starts_implicit_factor():
                if after_division:
                    raise ResponseError(
                        "A division followed by a product without a sign is ambiguous "
                        "(as in 1/2n): add parentheses, as in (1/2)n or 1/(2n)."
                    )
                node = _const("mul", (node, self.power()), implicit=True)
            else:
                return node

    def unary(self) -> Node:
        if self.is_op("-") or self.is_op("+"):
            negative = self.take().value == "-"
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return _const("neg", (operand,)) if negative else operand
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if not self.is_op("^"):
            return base
        self.take()
        self.enter()
        exponent_token = self.peek()
        exponent = self.unary()
        self.depth -= 1
        glued = self.peek()
        bare = exponent_token is not None and not (
            exponent_token.kind == "op" and exponent_token.value == "("
        )
        if bare and glued is not None and not glued.spaced and glued.kind in ("name", "const"):
            raise ResponseError(
                "An exponent followed directly by a name is ambiguous (as in e^2n): "
                "write e^(2n) or e^2*n."
            )
        return _const("pow", (base, exponent))

    def postfix(self) -> Node:
        node = self.atom()
        while True:
            token = self.peek()
            if self.is_op("!"):
                self.take()
                node = _const("fact", (node,))
            elif token is not None and token.kind == "power":
                self.take()
                exponent = (
                    _const("var", (), token.value)
                    if token.value == "n"
                    else _const("num", (), Fraction(token.value))
                )
                node = _const("pow", (node, exponent))
            else:
                return node

    def atom(self) -> Node:
        token = self.peek()
        if token is None:
            raise ResponseError("The formula ends too early; complete it.")
        if token.kind == "number":
            self.take()
            return _const("num", (), token.value)
        if token.kind == "name":
            self.take()
            return _const("var", (), token.value)
        if token.kind == "const":
            self.take()
            return _const("const", (), token.value)
        if token.kind == "func":
            return self.call()
        if self.is_op("("):
            self.take()
            self.enter()
            node = self.expr()
            self.expect(")", "A '(' is not closed; add the missing ')'.")
            self.depth -= 1
            return node
        if self.is_op("|") and self.abs_depth == 0:
            self.take()
            self.enter()
            self.abs_depth += 1
            node = self.expr()
            self.expect("|", "An absolute value |…| is not closed; add the missing '|'.")
            self.abs_depth -= 1
            self.depth -= 1
            return _const("abs", (node,))
        raise ResponseError(f"Something is missing before '{token.text}'.")

    def call(self) -> Node:
        token = self.take()
        (counts, name) = token.value
        self.enter()
        if self.is_op("^"):
            raise ResponseError(
                f"Write powers of a function after its argument, as in ({token.text} n)^2."
            )
        if self.is_op("("):
            self.take()
            args = [self.expr()]
            while self.is_op(","):
                self.take()
                args.append(self.expr())
            self.expect(")", f"Close the parenthesis of {token.text}( … ).")
        else:
            saved_abs = self.abs_depth
            args = [self.power()]
            self.abs_depth = saved_abs
            following = self.peek()
            if following is not None and (
                following.kind in ("name", "const", "number") or self.is_op("(")
            ):
                raise ResponseError(
                    f"'{token.text}' without parentheses is ambiguous here: write "
                    f"{token.text}(…) around its whole argument."
                )
        self.depth -= 1
        if len(args) not in counts:
            expected = " or ".join(str(c) for c in counts)
            raise ResponseError(f"{token.text} takes {expected} argument(s).")
        if name == "factorial":
            return _const("fact", (args[0],))
        if name == "abs":
            return _const("abs", (args[0],))
        return _const("call", tuple(args), name)

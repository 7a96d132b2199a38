"""Evaluating a formula at a point in a private mpmath context, and comparing two there.

mpmath's working precision (`mpmath.mp`) is one setting for the whole process: a thread that
raised it for a comparison had it put back to 15 digits by another thread leaving its own block,
and graded ``atan(x)`` against ``asin(x/sqrt(1+x^2))`` incorrect.  Here every `Evaluator` makes
its own context (`mpmath.MPContext`) with its own precision and creates every number through
it; nothing in this module reads or writes `mpmath.mp`.

Values are exact where they can be: at a point (exact fractions) the rational part of a formula
(sums, products, whole powers, floor, ceil, min, max, |…|, small factorials) is worked out in
fractions, so ``floor(x - 2)`` at x = 2 is exactly 0 and ``(n+1)^2 - n^2`` at n = 10^30 is
exactly 2·10^30 + 1.  Everything else (π, e, logarithms, roots, trigonometry) is a number of the
private context, and a sum of such numbers that cancels more digits than the precision holds
(``pi/2 - atan(n)`` at n = 10^200) marks the evaluation `lost` instead of passing off rounding
as a value.  A floor or ceiling of such a number within rounding of a whole number evaluates
its argument again at twice the precision, and takes the whole number when it is still that
close.  Each min and max records which of its arguments gave its value (`branches`), so a
comparison can tell whether its points reached both sides of it.

`compare_at` decides a point by precision, not by a fixed tolerance: exact values are equal or
not; two numbers that agree to all but `GUARD` digits agree; a gap that stays the same when the
precision doubles is real (the formulas differ there, however little); a gap that shrinks was
rounding, and one that does neither after two doublings leaves the point undecided.  The
starting precision grows with the longest exact constant in either formula (`digits_for`), so
a difference hidden in a constant of 300 digits (``exp(n)·(1 + 10^-300)``) is seen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import mpmath
import sympy

PRECISION = 60  # decimal digits, before the constants' own digits
GUARD = 20  # digits of rounding that agreeing values may differ by
MAX_PRECISION = 2500
DOUBLINGS = 2
MAX_EXACT_BITS = 20_000  # beyond this a fraction goes on as a rounded number
MAX_EXACT_FACTORIAL = 1000


class Unsupported(Exception):
    """The expression holds a node the evaluator does not know, or is undefined at a point."""


FAILURES = (Unsupported, ZeroDivisionError, ValueError, OverflowError, TypeError)

_UNARY = {
    sympy.log: "log",
    sympy.exp: "exp",
    sympy.sin: "sin",
    sympy.cos: "cos",
    sympy.tan: "tan",
    sympy.asin: "asin",
    sympy.acos: "acos",
    sympy.atan: "atan",
}


def digits_for(*exprs: sympy.Expr) -> int:
    """The working precision for comparing `exprs`: `PRECISION` plus the digits of their
    longest exact constant (numerator and denominator), at most `MAX_PRECISION`."""
    longest = 0
    for expr in exprs:
        for number in expr.atoms(sympy.Rational):
            longest = max(longest, _digits(number.p) + _digits(number.q))
    return min(PRECISION + longest, MAX_PRECISION)


def _digits(whole: int) -> int:
    return int(abs(whole).bit_length() * 0.30103) + 1


def _small(value: Fraction) -> bool:
    return max(value.numerator.bit_length(), value.denominator.bit_length()) <= MAX_EXACT_BITS


class Evaluator:
    """Evaluates sympy trees at points {Symbol: Fraction} with `digits` decimal digits."""

    def __init__(self, digits: int = PRECISION):
        self.ctx = mpmath.MPContext()
        self.ctx.dps = digits
        self.digits = digits
        self.branches: dict[sympy.Basic, set[int]] = {}
        self.lost = False
        self._finer: Evaluator | None = None

    def finer(self) -> Evaluator:
        """An evaluator with twice the precision (made once)."""
        if self._finer is None:
            self._finer = Evaluator(self.digits * 2)
        return self._finer

    def number(self, value):
        """`value` (a Fraction, an int, or a number of any context) in this context."""
        if isinstance(value, int | Fraction):
            value = Fraction(value)
            return self.ctx.mpf(value.numerator) / value.denominator
        return self.ctx.convert(value)

    def value(self, expr: sympy.Expr, point: Mapping[sympy.Symbol, Fraction]):
        """The value at `point`: a Fraction when exact, else a number of this context (mpf or
        mpc); sets `lost` when a sum cancelled beyond the precision.  Raises `FAILURES`."""
        self.lost = False
        return self._value(expr, point)

    def _value(self, expr, point):
        ctx = self.ctx
        if expr.is_Symbol:
            return Fraction(point[expr])
        if expr.is_Rational:
            return Fraction(int(expr.p), int(expr.q))
        if expr is sympy.pi:
            return +ctx.pi
        if expr is sympy.E:
            return +ctx.e
        if expr is sympy.I:
            return ctx.mpc(0, 1)
        if expr.is_Float:
            return ctx.mpf(expr)
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            return self._whole(expr, point)
        args = [self._value(arg, point) for arg in expr.args]
        exact = all(isinstance(arg, Fraction) for arg in args)
        if expr.is_Add:
            return self._sum(args, exact)
        if expr.is_Mul:
            return self._keep(math.prod(args)) if exact else ctx.fprod(map(self.number, args))
        if expr.is_Pow:
            return self._power(*args)
        if expr.func in _UNARY:
            if args[0] == 0 and expr.func is sympy.log:
                raise Unsupported("log of zero")
            return getattr(ctx, _UNARY[expr.func])(self.number(args[0]))
        if isinstance(expr, sympy.Abs):
            return abs(args[0])
        if isinstance(expr, sympy.factorial):
            return self._factorial(self.real(args[0]))
        if isinstance(expr, (sympy.Min, sympy.Max)):
            values = [self.real(a) for a in args]
            return self._extreme(expr, values if exact else [self.number(v) for v in values])
        raise Unsupported(type(expr).__name__)

    def _keep(self, value: Fraction):
        """An exact result, or the number it rounds to when it has grown too long."""
        return value if _small(value) else self.number(value)

    def _sum(self, args, exact: bool):
        if exact:
            return self._keep(sum(args, Fraction(0)))
        terms = [self.number(arg) for arg in args]
        total = self.ctx.fsum(terms)
        largest = max(abs(term) for term in terms)
        if abs(total) < largest * self.ctx.mpf(10) ** (GUARD - self.digits):
            self.lost = True  # cancelled beyond what this precision holds
        return total

    def _power(self, base, exponent):
        if base == 0 and exponent == 0:
            return Fraction(1)  # 0^0 = 1, as sympy and Python have it
        if base == 0 and self.real(exponent) < 0:
            raise Unsupported("division by zero")
        if isinstance(base, Fraction) and isinstance(exponent, Fraction):
            whole = exponent.denominator == 1
            bits = max(base.numerator.bit_length(), base.denominator.bit_length())
            if whole and bits * abs(exponent.numerator) <= MAX_EXACT_BITS:
                return base**exponent.numerator
        return self.ctx.power(self.number(base), self.number(exponent))

    def _factorial(self, value):
        if value < 0 and value == int(value):
            raise Unsupported("factorial of a negative integer")
        if isinstance(value, Fraction) and value.denominator == 1:
            if value <= MAX_EXACT_FACTORIAL:
                return Fraction(math.factorial(int(value)))
        return self.ctx.factorial(self.number(value))

    def finite(self, value) -> bool:
        return isinstance(value, Fraction) or self.ctx.isfinite(value)

    def real(self, value):
        """The real part of a value whose imaginary part is rounding noise; else Unsupported."""
        if isinstance(value, self.ctx.mpc):
            if abs(value.imag) > abs(value.real) * self.ctx.mpf(10) ** (GUARD - self.digits):
                raise Unsupported("not real")
            return value.real
        return value

    def _extreme(self, expr: sympy.Basic, values: list):
        best = min(values) if isinstance(expr, sympy.Min) else max(values)
        # Every argument that gives the value counts as reached: at a tie both sides meet.
        self.branches.setdefault(expr, set()).update(
            index for index, value in enumerate(values) if value == best
        )
        return best

    def _whole(self, expr: sympy.Basic, point):
        below = isinstance(expr, sympy.floor)
        x = self.real(self._value(expr.args[0], point))
        if isinstance(x, Fraction):
            return Fraction(math.floor(x) if below else math.ceil(x))
        ctx = self.ctx
        nearest = ctx.nint(x)
        if abs(x - nearest) > _noise(ctx, self.digits, x):
            return ctx.floor(x) if below else ctx.ceil(x)
        if self.digits * 2 > MAX_PRECISION:
            return nearest
        finer = self.finer()
        x2 = finer.real(finer.value(expr.args[0], point))
        if isinstance(x2, Fraction):
            return Fraction(math.floor(x2) if below else math.ceil(x2))
        if abs(x2 - nearest) <= _noise(finer.ctx, finer.digits, x2):
            return nearest
        whole = finer.ctx.floor(x2) if below else finer.ctx.ceil(x2)
        return ctx.mpf(whole)  # a whole number: exact at any precision


def _noise(ctx, digits: int, scale):
    return ctx.mpf(10) ** (GUARD - digits) * max(1, abs(scale))


def compare_at(evaluator: Evaluator, a: sympy.Expr, b: sympy.Expr, point) -> str:
    """ "agree", "differ" or "skip" (undefined, infinite, or undecided by precision) at `point`."""
    previous = None
    level = evaluator
    for _ in range(DOUBLINGS + 1):
        try:
            left = level.value(a, point)
            lost = level.lost
            right = level.value(b, point)
            lost = lost or level.lost
        except FAILURES:
            return "skip"
        if isinstance(left, Fraction) and isinstance(right, Fraction):
            return "agree" if left == right else "differ"
        if not (level.finite(left) and level.finite(right)):
            return "skip"
        if not lost:
            left, right = level.number(left), level.number(right)
            gap = abs(left - right)
            scale = max(abs(left), abs(right))
            if gap == 0 or gap <= scale * level.ctx.mpf(10) ** (GUARD - level.digits):
                return "agree"
            if previous is not None and abs(gap - level.number(previous)) <= gap / 10**6:
                return "differ"
        previous = None if lost else gap
        if level.digits * 2 > MAX_PRECISION:
            return "skip"
        level = level.finer()
    return "skip"

"""Deciding whether two formulas are equal on the variables' domains, in layers.

1. Algebra: sympy's canonical form makes ``a - b`` zero, or ``expand(a - b)`` does (cheap,
   time-boxed), or ``simplify(a - b)`` (time-boxed) gives zero (equal) or a nonzero number
   (not equal).
2. Numbers: both sides are evaluated at seeded random points of the declared domains by our
   own walk over the sympy tree into mpmath, at 60 significant digits, complex where needed
   (so ``log(a) + log(b)`` differs from ``log(a*b)`` for negative real a, b).  One point where
   they differ by more than 1e-35 relative settles "not equal"; at least 6 agreeing points
   and none differing settle "equal".
3. Tie-breaker: sympy's ``equals``, time-boxed, when too few points could be evaluated.

There is no tolerance in formulas: ``n^2/2 + 1e-9`` is not ``n^2/2``, and a rounded decimal
(``0.333n``) is not ``n/3``.  A relative gap of 1e-35 is far below any decimal a student can
type (30 digits at most) and far above the rounding noise of 60-digit arithmetic.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Mapping

import mpmath
import sympy

from ..timebox import TimeBoxExpired, time_box

PRECISION = 60
AGREEMENT = mpmath.mpf("1e-35")
POINTS = 12
NEEDED = 6


class Unsupported(Exception):
    """The expression holds a node the evaluator does not know, or is undefined at a point."""


_UNARY = {
    sympy.log: mpmath.log,
    sympy.exp: mpmath.exp,
    sympy.sin: mpmath.sin,
    sympy.cos: mpmath.cos,
    sympy.tan: mpmath.tan,
    sympy.asin: mpmath.asin,
    sympy.acos: mpmath.acos,
    sympy.atan: mpmath.atan,
    sympy.Abs: abs,
}


def _real(value):
    if isinstance(value, mpmath.mpc):
        if abs(value.imag) > abs(value.real) * AGREEMENT:
            raise Unsupported("not real")
        return value.real
    return value


def evaluate(expr: sympy.Basic, point: Mapping[sympy.Symbol, object]):
    """Evaluate a sympy tree at a point with mpmath, without any string or eval."""
    if expr.is_Symbol:
        return point[expr]
    if expr.is_Rational:
        return mpmath.mpf(expr.p) / expr.q
    if expr is sympy.pi:
        return +mpmath.pi
    if expr is sympy.E:
        return +mpmath.e
    if expr is sympy.I:
        return mpmath.mpc(0, 1)
    if expr.is_Float:
        return mpmath.mpf(expr)
    args = [evaluate(arg, point) for arg in expr.args]
    if expr.is_Add:
        return mpmath.fsum(args)
    if expr.is_Mul:
        return mpmath.fprod(args)
    if expr.is_Pow:
        base, exponent = args
        if base == 0 and _real(exponent) <= 0:
            raise Unsupported("division by zero")
        return mpmath.power(base, exponent)
    if expr.func in _UNARY:
        if expr.func is sympy.log and args[0] == 0:
            raise Unsupported("log of zero")
        return _UNARY[expr.func](args[0])
    if isinstance(expr, sympy.factorial):
        value = _real(args[0])
        if value < 0 and value == int(value):
            raise Unsupported("factorial of a negative integer")
        return mpmath.factorial(value)
    if isinstance(expr, sympy.floor):
        return mpmath.floor(_real(args[0]))
    if isinstance(expr, sympy.ceiling):
        return mpmath.ceil(_real(args[0]))
    if isinstance(expr, sympy.Min):
        return min(_real(a) for a in args)
    if isinstance(expr, sympy.Max):
        return max(_real(a) for a in args)
    raise Unsupported(type(expr).__name__)


def _sample(symbol: sympy.Symbol, rng: random.Random):
    if symbol.is_integer:
        low = 1 if symbol.is_positive else 0 if symbol.is_nonnegative else -12
        return mpmath.mpf(rng.randint(low, 24))
    # a mix of small values (where constants matter) and larger ones (where growth matters)
    magnitude = rng.uniform(0.3, 3.0) if rng.random() < 0.5 else 10 ** rng.uniform(0.5, 1.8)
    value = mpmath.mpf(magnitude)
    if not (symbol.is_positive or symbol.is_nonnegative) and rng.random() < 0.5:
        value = -value
    return value


def _finite(value) -> bool:
    return (
        mpmath.isfinite(value)
        if not isinstance(value, mpmath.mpc)
        else (mpmath.isfinite(value.real) and mpmath.isfinite(value.imag))
    )


def sample_points(symbols, seed: str, count: int = POINTS):
    rng = random.Random(zlib.crc32(seed.encode()))
    ordered = sorted(symbols, key=lambda s: s.name)
    return [{s: _sample(s, rng) for s in ordered} for _ in range(count * 2)]


def compare_numerically(a: sympy.Expr, b: sympy.Expr, seed: str) -> bool | None:
    """True/False when the sampled points settle it; None when too few could be evaluated."""
    symbols = a.free_symbols | b.free_symbols
    agreed = 0
    with mpmath.workdps(PRECISION):
        for point in sample_points(symbols, seed):
            try:
                left, right = evaluate(a, point), evaluate(b, point)
            except (Unsupported, ZeroDivisionError, ValueError, OverflowError):
                continue
            if not (_finite(left) and _finite(right)):
                continue
            scale = max(abs(left), abs(right))
            if abs(left - right) > AGREEMENT * scale:
                return False
            agreed += 1
            if agreed >= POINTS:
                break
    return True if agreed >= NEEDED else None


def constant_ratio(a: sympy.Expr, b: sympy.Expr, seed: str):
    """Return the Fraction c with a = c·b at every sampled point, if there is a simple one."""
    try:
        with time_box(0.3):
            return _constant_ratio(a, b, seed)
    except TimeBoxExpired:
        return None


def _constant_ratio(a: sympy.Expr, b: sympy.Expr, seed: str):
    from fractions import Fraction

    symbols = a.free_symbols | b.free_symbols
    ratios = []
    with mpmath.workdps(PRECISION):
        for point in sample_points(symbols, seed, count=NEEDED):
            try:
                left, right = _real(evaluate(a, point)), _real(evaluate(b, point))
            except (Unsupported, ZeroDivisionError, ValueError, OverflowError):
                continue
            if right == 0 or not (_finite(left) and _finite(right)):
                continue
            ratios.append(left / right)
    if len(ratios) < NEEDED or any(abs(r - ratios[0]) > AGREEMENT * abs(r) for r in ratios):
        return None
    approx = float(ratios[0])
    if not math.isfinite(approx) or approx == 0:
        return None
    guess = Fraction(approx).limit_denominator(64)
    with mpmath.workdps(PRECISION):  # 4/3 at 15 digits would differ from 4/3 at 60
        off = abs(mpmath.mpf(guess.numerator) / guess.denominator - ratios[0])
        if guess == 0 or off > AGREEMENT * abs(ratios[0]):
            return None
    return guess


def equivalent(a: sympy.Expr, b: sympy.Expr, seed: str) -> bool | None:
    """Decide a == b on the symbols' domains; None when no layer could decide."""
    difference = a - b
    if difference == 0:
        return True
    try:
        # Expanding proves most of the book's identities (products, sums, powers) in a few
        # milliseconds, where a cold simplify takes hundreds.
        with time_box(0.2):
            if sympy.expand(difference) == 0:
                return True
    except TimeBoxExpired:
        pass
    except (RecursionError, ValueError, TypeError, ZeroDivisionError, AttributeError):
        pass
    try:
        with time_box(0.5):
            simplified = sympy.simplify(difference)
        if simplified == 0:
            return True
        if simplified.is_number and simplified.is_zero is False:
            return False
    except TimeBoxExpired:
        pass
    except (RecursionError, ValueError, TypeError, ZeroDivisionError, AttributeError):
        pass
    try:
        with time_box(0.6):
            verdict = compare_numerically(a, b, seed)
    except TimeBoxExpired:
        verdict = None
    if verdict is not None:
        return verdict
    try:
        with time_box(0.4):
            return a.equals(b)
    except (TimeBoxExpired, RecursionError, ValueError, TypeError, AttributeError):
        return None

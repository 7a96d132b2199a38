"""Where a formula goes wrong: a simple point of the declared domain, with both values there.

For a formula that is not equivalent to the expected one, `counterexample` looks for the
simplest point (small whole numbers first, in the order of their sum, negatives and zero only
where the domain allows them) at which both formulas have real, finite values that differ, and
says so: "At n = 4, m = 3 your formula gives 96, the expected one 72: off by a factor of 4/3."
Where the ratio of the two is the same everywhere it says that instead.  The expected formula
itself is never shown, only its value at that one point, which is why the pages show this only
once the part is final (the studio's try box always shows it).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import sympy

from ..timebox import TimeBoxExpired, time_box
from .equivalence import PRECISION, Unsupported, _finite, _real, evaluate

_DIFFERENT = mpmath.mpf("1e-12")
_VALUES = {
    "positive": (1, 2, 3, 4, 5, 6),
    "natural": (1, 2, 3, 4, 5, 6),
    "positive integer": (1, 2, 3, 4, 5, 6),
    "nonnegative": (0, 1, 2, 3, 4, 5),
    "nonnegative integer": (0, 1, 2, 3, 4, 5),
    "integer": (1, -1, 0, 2, -2, 3, -3, 4),
    "real": (1, -1, 0, 2, -2, 3, -3, 4, 0.5, -0.5),
}
MAX_POINTS = 400


def _show(value) -> str:
    """A value as a person would write it: 96, 3/2, -0.25, 1.41421."""
    real = _real(value)
    guess = Fraction(float(real)).limit_denominator(1000)
    if abs(mpmath.mpf(guess.numerator) / guess.denominator - real) <= abs(real) * _DIFFERENT:
        if guess.denominator == 1:
            return str(guess.numerator)
        if abs(guess) < 1000 and guess.denominator <= 100:
            return f"{guess.numerator}/{guess.denominator}"
    return mpmath.nstr(real, 6, min_fixed=-4, max_fixed=9)


def _factor(left, right) -> str:
    if right == 0 or left == 0:
        return ""
    ratio = left / right
    guess = Fraction(float(ratio)).limit_denominator(100)
    close = abs(mpmath.mpf(guess.numerator) / guess.denominator - ratio) <= abs(ratio) * _DIFFERENT
    if close and guess > 0:
        return f": off by a factor of {guess}" if guess.denominator > 1 or guess != 1 else ""
    if close and guess == -1:
        return ": the opposite sign"
    return ""


def _points(symbols, domains):
    ordered = sorted(symbols, key=lambda s: s.name)
    choices = [_VALUES.get(domains.get(s.name, "positive"), _VALUES["positive"]) for s in ordered]
    points = itertools.product(*choices)
    # simplest first: whole numbers before halves, then by the sum of the magnitudes
    ranked = sorted(
        itertools.islice(points, MAX_POINTS),
        key=lambda p: (sum(v != int(v) for v in p), sum(abs(v) for v in p)),
    )
    return ordered, ranked


def find_point(response: sympy.Expr, expected: sympy.Expr, domains):
    """(point, their value, expected value) at the simplest point where they differ, or None."""
    symbols, ranked = _points(response.free_symbols | expected.free_symbols, domains)
    with mpmath.workdps(PRECISION):
        for values in ranked:
            point = {s: mpmath.mpf(v) for s, v in zip(symbols, values, strict=True)}
            try:
                left, right = _real(evaluate(response, point)), _real(evaluate(expected, point))
            except (Unsupported, ZeroDivisionError, ValueError, OverflowError, TypeError):
                continue
            if not (_finite(left) and _finite(right)):
                continue
            if abs(left - right) > _DIFFERENT * max(abs(left), abs(right)):
                return dict(zip((s.name for s in symbols), values, strict=True)), left, right
    return None


def counterexample(
    response: sympy.Expr, expected: sympy.Expr, domains, ratio: Fraction | None = None
) -> str | None:
    """A sentence showing where `response` differs from `expected`, or None if none is found."""
    try:
        with time_box(0.3):
            found = find_point(response, expected, domains)
    except TimeBoxExpired:
        found = None
    constant = ""
    if ratio is not None and ratio not in (0, 1):
        if ratio == -1:
            constant = "Yours has the opposite sign of the expected one at every point."
        else:
            word = {2: "twice", Fraction(1, 2): "half"}.get(ratio, f"{ratio}×")
            factor = abs(ratio) if abs(ratio) >= 1 else 1 / abs(ratio)
            constant = (
                f"Yours is exactly {word} the expected one at every point: "
                f"a factor of {factor} missing or extra?"
            )
    if found is None:
        return constant or None
    point, left, right = found
    where = ", ".join(f"{name} = {_show(mpmath.mpf(value))}" for name, value in point.items())
    where = f"At {where}" if where else "Everywhere"
    sentence = (
        f"{where} your formula gives {_show(left)}, the expected one {_show(right)}"
        f"{'' if constant else _factor(left, right)}."
    )
    return f"{sentence} {constant}".strip()

"""Where two formulas are compared: seeded random points, then the domain's corners and structure.

Random points find most differences: half small (0.3 to 3, where constants matter), half
larger (3 to 63, where growth matters), integers from -12 (or the domain's least) to 24.  They
never reach the few places where two formulas that agree elsewhere part: ``floor(x) + 1`` and
``ceil(x)`` differ only at whole numbers, ``min(B, 256)`` and ``B`` only above 256,
``ceil(n/32)`` and ``1`` only above 32.  So each variable in turn, the others at ordinary random
values, also takes

1. every constant c that a min, max, floor, ceil or |…| in either formula compares against,
   and its reciprocal (``n/32`` steps at n = 32), at and beyond: c, 2c, c ± 1, c ± 1/2,
   c·(1 ± 1/64) and 10c (whole numbers only for an integer variable), with their negatives
   where the domain has them;
2. where either formula has a floor or ceil: whole numbers and halves, where they step
   (1/2, 1, 3/2, 2, 5/2, 3, and negatives);
3. the domain's corners: 0 where it is allowed, 1 and -1, a small positive value (1/1024) for a
   positive real, 1 and 2 for a positive integer;
4. large magnitudes 10^3, 10^6, 10^12, 10^30, 10^100, 10^400 (and small ones 10^-3, 10^-6,
   10^-12 for reals), as far as `growth.reach` lets both formulas grow without becoming
   expensive to evaluate.

Every value is an exact Fraction, and the order is seeded by the expected formula, so a grade is
the same on every run and in every process.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Iterable, Sequence
from fractions import Fraction

import sympy

RANDOM_POINTS = 24
MAX_STRUCTURED = 120
MAX_CONSTANTS = 8
_STEPPED = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling, sympy.Abs)
_HALVES = tuple(Fraction(k, 2) for k in (1, 2, 3, 4, 5, 6))
_LARGE = (3, 6, 12, 30, 100, 400)
_SMALL = (3, 6, 12)


def _ordinary(symbol: sympy.Symbol, rng: random.Random) -> Fraction:
    """A random value of the symbol's domain, as the random points use."""
    if symbol.is_integer:
        low = 1 if symbol.is_positive else 0 if symbol.is_nonnegative else -12
        return Fraction(rng.randint(low, 24))
    magnitude = rng.uniform(0.3, 3.0) if rng.random() < 0.5 else 10 ** rng.uniform(0.5, 1.8)
    value = Fraction(magnitude)
    if not (symbol.is_positive or symbol.is_nonnegative) and rng.random() < 0.5:
        value = -value
    return value


def thresholds(exprs: Iterable[sympy.Expr]) -> list[Fraction]:
    """The magnitudes of the rational constants that a min, max, floor, ceil or |…| of the
    formulas compares against, other than 0 and 1: at most `MAX_CONSTANTS`, in a fixed order."""
    stepped = []
    for expr in exprs:
        for step in expr.atoms(*_STEPPED):
            stepped += step.atoms(sympy.Rational)
    found: dict[Fraction, None] = {}
    for number in sorted(stepped, key=sympy.default_sort_key):
        value = abs(Fraction(int(number.p), int(number.q)))
        if value not in (0, 1):
            found.setdefault(value, None)
    return list(found)[:MAX_CONSTANTS]


def _near(threshold: Fraction) -> list[Fraction]:
    """At and just beyond a threshold: what decides a min, a max or a step there."""
    return [threshold, 2 * threshold, threshold + 1, threshold + Fraction(1, 2)]


def _around(threshold: Fraction) -> list[Fraction]:
    """The rest of the neighbourhood: just below, relatively close, and well beyond."""
    step = threshold / 64
    return [
        threshold - Fraction(1, 2),
        threshold - 1,
        threshold + step,
        threshold - step,
        10 * threshold,
    ]


def _structure(
    symbol: sympy.Symbol, found: Sequence[Fraction], steps: bool, reach
) -> list[Fraction]:
    """The structural values of one variable, the most telling first (see the module doc);
    whole numbers and halves only where a floor or ceil can step on them (`steps`)."""
    integer = bool(symbol.is_integer)
    positive = bool(symbol.is_positive)
    signed = not (positive or symbol.is_nonnegative)
    bases = [base for constant in found for base in (constant, 1 / constant)]
    values = [value for base in bases for value in _near(base)]
    values += list(_HALVES) if steps else []
    values += [Fraction(0), Fraction(1), Fraction(2), Fraction(1, 1024)]
    values += [Fraction(10) ** k for k in _LARGE]
    values += [Fraction(1, 10**k) for k in _SMALL]
    values += [value for base in bases for value in _around(base)]
    chosen: dict[Fraction, None] = {}
    for value in values:
        candidates = _whole(value) if integer else [value]
        for candidate in candidates:
            for signed_value in (candidate, -candidate) if signed else (candidate,):
                if _in_domain(symbol, signed_value) and _within(signed_value, reach):
                    chosen.setdefault(signed_value, None)
    return list(chosen)


def _whole(value: Fraction) -> list[Fraction]:
    floor = value.numerator // value.denominator
    return [Fraction(floor), Fraction(floor + 1)] if value.denominator != 1 else [value]


def _in_domain(symbol: sympy.Symbol, value: Fraction) -> bool:
    if symbol.is_positive:
        return value > 0
    return value >= 0 if symbol.is_nonnegative else True


def _within(value: Fraction, reach) -> bool:
    """Whether |value| lies within 10^-low .. 10^high (or is zero)."""
    high, low = reach
    if value == 0:
        return True
    size = math.log10(abs(value.numerator)) - math.log10(value.denominator)  # no float overflow
    return -low <= size <= high


def sample_points(
    symbols: Iterable[sympy.Symbol], exprs: Sequence[sympy.Expr], seed: str, reach
) -> tuple[list[dict], list[dict]]:
    """(random points, structured points): `RANDOM_POINTS` seeded random ones, then one point
    per structural value of each variable in turn (the others at ordinary random values),
    interleaved over the variables, at most `MAX_STRUCTURED` of them."""
    rng = random.Random(zlib.crc32(seed.encode()))
    ordered = sorted(symbols, key=lambda s: s.name)
    points = [{s: _ordinary(s, rng) for s in ordered} for _ in range(RANDOM_POINTS)]
    if not ordered:
        return points, []
    found = thresholds(exprs)
    steps = any(expr.has(sympy.floor, sympy.ceiling) for expr in exprs)
    queues = [[(s, v) for v in _structure(s, found, steps, reach)] for s in ordered]
    extra: list[dict[sympy.Symbol, Fraction]] = []
    for position in range(max(len(queue) for queue in queues)):
        for queue in queues:
            if position < len(queue) and len(extra) < MAX_STRUCTURED:
                symbol, value = queue[position]
                point = {s: _ordinary(s, rng) for s in ordered}
                point[symbol] = value
                extra.append(point)
    return points, extra

"""Deciding whether two formulas are equal on the variables' domains, in layers.

1. Algebra, cheap: ``a - b`` is zero as sympy builds it, or ``expand(a - b)`` is zero (equal)
   or a nonzero polynomial in the variables with rational coefficients (not equal: such a
   polynomial is nonzero somewhere on every domain, however small its coefficients).
2. Numbers (`sampling`, `evaluation`): both sides at seeded random points and at the domain's
   corners and structure, each in a private mpmath context.  One point where they differ
   settles "not equal"; at least `NEEDED` agreeing points, none differing, and every min and
   max seen on each of its sides settle "equal".  Where sampling cannot decide (too few points
   could be evaluated, or a min or max never switched at any of them) the layer says so rather
   than passing.
3. Algebra, slow, only when the numbers could not decide: ``simplify(a - b)`` gives zero
   (equal) or a nonzero rational (not equal); then sympy's own `equals`.

Every step is time-boxed.  Every step that calls into sympy holds `serial.sympy_turn`, because
sympy's numeric fallbacks use mpmath's process-wide context; the numbers of layer 2 never do.

There is no tolerance in formulas: ``n^2/2 + 1e-9`` is not ``n^2/2``, and a rounded decimal
(``0.333n``) is not ``n/3``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ..timebox import TimeBoxExpired, time_box
from .evaluation import FAILURES, GUARD, Evaluator, compare_at, digits_for
from .growth import HIGH_LADDER, LOW_LADDER
from .sampling import sample_points
from .serial import Busy, sympy_turn

NEEDED = 6
ENOUGH_RANDOM = 12
# The random points' own range: what every formula that passed `check_growth` may be sampled at.
BASE_REACH = (HIGH_LADDER[0], LOW_LADDER[0])
_SYMPY_ERRORS = (RecursionError, ValueError, TypeError, ZeroDivisionError, AttributeError)

# Why a comparison could not decide (`Verdict.reason`).
TOO_FEW = "too-few-points"
ONE_SIDED = "one-sided"
TIMED_OUT = "timed-out"


@dataclass(frozen=True)
class Verdict:
    """`equal`: True, False, or None (undecided, with a `reason`); `point`: where the numbers
    showed a difference, as {name: value}."""

    equal: bool | None
    reason: str | None = None
    point: dict[str, Fraction] | None = field(default=None, compare=False)


def compare_numerically(a: sympy.Expr, b: sympy.Expr, seed: str, reach=BASE_REACH) -> Verdict:
    """Layer 2 alone (see the module docstring)."""
    symbols = a.free_symbols | b.free_symbols
    evaluator = Evaluator(digits_for(a, b))
    agreed = 0
    reached: dict[sympy.Basic, set[int]] = {}
    randoms, structured = sample_points(symbols, (a, b), seed, reach)
    for index, point in enumerate(randoms + structured):
        if agreed >= ENOUGH_RANDOM and index < len(randoms):
            continue  # enough random points agree: the structured ones are still all tried
        evaluator.branches = {}
        outcome = compare_at(evaluator, a, b, point)
        if outcome == "differ":
            return Verdict(False, point={s.name: v for s, v in point.items()})
        if outcome == "agree":
            agreed += 1
            for step, sides in evaluator.branches.items():
                reached.setdefault(step, set()).update(sides)
    if agreed < NEEDED:
        return Verdict(None, TOO_FEW)
    steps = a.atoms(sympy.Min, sympy.Max) | b.atoms(sympy.Min, sympy.Max)
    if any(len(reached.get(step, ())) < 2 for step in steps):
        return Verdict(None, ONE_SIDED)
    return Verdict(True)


def constant_ratio(a: sympy.Expr, b: sympy.Expr, seed: str):
    """Return the Fraction c with a = c·b at every sampled point, if there is a simple one."""
    try:
        with time_box(0.3):
            return _constant_ratio(a, b, seed)
    except TimeBoxExpired:
        return None


def _constant_ratio(a: sympy.Expr, b: sympy.Expr, seed: str):
    symbols = a.free_symbols | b.free_symbols
    evaluator = Evaluator(digits_for(a, b))
    ctx = evaluator.ctx
    ratios = []
    for point in sample_points(symbols, (a, b), seed, BASE_REACH)[0]:
        try:
            left = evaluator.real(evaluator.value(a, point))
            right = evaluator.real(evaluator.value(b, point))
        except FAILURES:
            continue
        if right == 0 or not (evaluator.finite(left) and evaluator.finite(right)):
            continue
        ratios.append(evaluator.number(left) / evaluator.number(right))
    noise = ctx.mpf(10) ** (GUARD - evaluator.digits)
    if len(ratios) < NEEDED or any(abs(r - ratios[0]) > noise * abs(r) for r in ratios):
        return None
    approx = float(ratios[0])
    if not math.isfinite(approx) or approx == 0:
        return None
    guess = Fraction(approx).limit_denominator(64)
    off = abs(evaluator.number(guess) - ratios[0])
    if guess == 0 or off > noise * abs(ratios[0]):
        return None
    return guess


def _sympy_step(seconds: float, step):
    """Run a sympy `step()` in its turn and under a time box; None when it fails or expires,
    or when another thread's sympy step keeps the turn for longer than this step's box."""
    try:
        with sympy_turn(wait=seconds), time_box(seconds):
            return step()
    except (TimeBoxExpired, Busy, *_SYMPY_ERRORS):
        return None


def _nonzero_polynomial(expanded: sympy.Expr, symbols) -> bool:
    """True when `expanded` is a nonzero polynomial in `symbols` with rational coefficients."""
    if not symbols or not expanded.is_polynomial(*symbols):
        return expanded.is_Rational and expanded != 0
    coefficients = sympy.Poly(expanded, *sorted(symbols, key=lambda s: s.name)).coeffs()
    return all(c.is_Rational for c in coefficients) and any(c != 0 for c in coefficients)


def equivalent(a: sympy.Expr, b: sympy.Expr, seed: str, reach=BASE_REACH) -> Verdict:
    """Decide a == b on the symbols' domains (see the module docstring for the layers)."""
    symbols = a.free_symbols | b.free_symbols
    difference = _sympy_step(0.2, lambda: a - b)
    if difference is not None and difference == 0:
        return Verdict(True)
    if difference is not None:
        expanded = _sympy_step(0.2, lambda: sympy.expand(difference))
        if expanded is not None:
            if expanded == 0:
                return Verdict(True)
            if _sympy_step(0.2, lambda: _nonzero_polynomial(expanded, symbols)):
                return Verdict(False)
    try:
        with time_box(0.6):
            numbers = compare_numerically(a, b, seed, reach)
    except TimeBoxExpired:
        numbers = Verdict(None, TIMED_OUT)
    if numbers.equal is not None or difference is None:
        return numbers
    simplified = _sympy_step(0.5, lambda: sympy.simplify(difference))
    if simplified is not None and simplified == 0:
        return Verdict(True)
    if simplified is not None and simplified.is_Rational:
        return Verdict(False)
    settled = _sympy_step(0.4, lambda: a.equals(b))
    if settled is True or settled is False:
        return Verdict(settled)
    return numbers

"""Where a formula goes wrong: a simple point of the declared domain, with both values there.

For a formula that is not equivalent to the expected one, `counterexample` looks for the
simplest point (small whole numbers first, in the order of their sum, negatives and zero only
where the domain allows them) at which both formulas have real, finite values that differ, and
says so: "At n = 4, m = 3 your formula gives 96, the expected one 72: off by a factor of 4/3."
Where the ratio of the two is the same everywhere it says that instead; where no simple point
shows a difference (formulas that part only beyond a threshold, as ``min(B, 256)`` and ``B``)
it shows the point where the comparison saw one (B = 257).  The expected formula
itself is never shown, only its value at that one point, which is why the pages show this only
once the part is final (the studio's try box always shows it).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy

from ..timebox import TimeBoxExpired, time_box
from .evaluation import FAILURES, Evaluator, digits_for

_DIFFERENT = Fraction(1, 10**12)
_VALUES = {
    "positive": (1, 2, 3, 4, 5, 6),
    "natural": (1, 2, 3, 4, 5, 6),
    "positive integer": (1, 2, 3, 4, 5, 6),
    "nonnegative": (0, 1, 2, 3, 4, 5),
    "nonnegative integer": (0, 1, 2, 3, 4, 5),
    "integer": (1, -1, 0, 2, -2, 3, -3, 4),
    "real": (1, -1, 0, 2, -2, 3, -3, 4, Fraction(1, 2), Fraction(-1, 2)),
}
MAX_POINTS = 400


def _show(evaluator: Evaluator, value) -> str:
    """A value as a person would write it: 96, 3/2, -0.25, 1.41421."""
    real = evaluator.number(evaluator.real(value))
    if real != 0 and not 1e-4 <= abs(real) < 1e9:
        return evaluator.ctx.nstr(real, 6)  # 1.07151e+301, not all 302 digits
    guess = Fraction(float(real)).limit_denominator(1000)
    if abs(evaluator.number(guess) - real) <= abs(real) * evaluator.number(_DIFFERENT):
        if guess.denominator == 1:
            return str(guess.numerator)
        if abs(guess) < 1000 and guess.denominator <= 100:
            return f"{guess.numerator}/{guess.denominator}"
    return evaluator.ctx.nstr(real, 6, min_fixed=-4, max_fixed=9)


def _factor(evaluator: Evaluator, left, right) -> str:
    if right == 0 or left == 0:
        return ""
    ratio = left / right
    if not 1e-6 < abs(ratio) < 1e6:
        return ""  # no simple factor, and beyond what a float holds
    guess = Fraction(float(ratio)).limit_denominator(100)
    off = abs(evaluator.number(guess) - ratio)
    close = off <= abs(ratio) * evaluator.number(_DIFFERENT)
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


def _values_at(evaluator: Evaluator, response, expected, point, tolerance=_DIFFERENT):
    """(their value, expected value) where both are real, finite and differ by more than
    `tolerance` (relative); else None."""
    try:
        left = evaluator.real(evaluator.value(response, point))
        right = evaluator.real(evaluator.value(expected, point))
    except FAILURES:
        return None
    if not (evaluator.finite(left) and evaluator.finite(right)):
        return None
    left, right = evaluator.number(left), evaluator.number(right)
    if abs(left - right) <= evaluator.number(tolerance) * max(abs(left), abs(right)):
        return None
    return left, right


def find_point(response: sympy.Expr, expected: sympy.Expr, domains, evaluator=None):
    """(point, their value, expected value) at the simplest point where they differ, or None."""
    evaluator = evaluator or Evaluator(digits_for(response, expected))
    symbols, ranked = _points(response.free_symbols | expected.free_symbols, domains)
    for values in ranked:
        point = {s: Fraction(v) for s, v in zip(symbols, values, strict=True)}
        found = _values_at(evaluator, response, expected, point)
        if found is not None:
            return dict(zip((s.name for s in symbols), values, strict=True)), *found
    return None


def counterexample(
    response: sympy.Expr,
    expected: sympy.Expr,
    domains,
    ratio: Fraction | None = None,
    fallback: dict[str, Fraction] | None = None,
) -> str | None:
    """A sentence showing where `response` differs from `expected`, or None if none is found.

    `fallback` is a point where the comparison saw them differ (``{"B": 257}``), shown when no
    simple point does: formulas that part only beyond a threshold (``min(B, 256)``)."""
    evaluator = Evaluator(digits_for(response, expected))
    try:
        with time_box(0.3):
            found = find_point(response, expected, domains, evaluator)
            if found is None and fallback is not None:
                found = _at(evaluator, response, expected, fallback)
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
    shown = (_show(evaluator, evaluator.number(value)) for value in point.values())
    where = ", ".join(f"{name} = {text}" for name, text in zip(point, shown, strict=True))
    where = f"At {where}" if where else "Everywhere"
    sentence = (
        f"{where} your formula gives {_show(evaluator, left)}, the expected one "
        f"{_show(evaluator, right)}{'' if constant else _factor(evaluator, left, right)}."
    )
    return f"{sentence} {constant}".strip()


def _at(evaluator: Evaluator, response, expected, named: dict[str, Fraction]):
    symbols = {s.name: s for s in response.free_symbols | expected.free_symbols}
    point = {symbols[name]: value for name, value in named.items() if name in symbols}
    # The comparison has shown a difference here, however small; only an undefined value
    # (which the comparison would have skipped) leaves nothing to show.
    found = _values_at(evaluator, response, expected, point, tolerance=0)
    return None if found is None else (named, *found)

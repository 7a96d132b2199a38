"""A size check on whole formulas, variables included, before anything is computed.

The parser bounds constant sub-expressions (``9^9^9``); this bounds the rest.  Equivalence is
decided partly by evaluating both formulas at sampled points (random ones up to about 63 in
magnitude, down to about 0.3; `reach` says how much further the structured ones may go), so a
formula such as ``exp(exp(exp(exp(n))))`` or ``n^(n^(n^n))`` would ask for a number whose
*exponent* has billions of digits: no time box can interrupt that inside one big-integer
operation.  `check_growth` walks the syntax tree once and
bounds, for every node, how many decimal digits its value can have at those points (``hi``:
the largest log10 of its magnitude) and how close to zero it can get (``tiny``: the largest
-log10 of its magnitude, for divisions and negative powers).  A formula whose bound passes
`MAX_DIGITS` (a number of 10^30 digits, far beyond any quantity in the book, yet cheap for
60-digit arithmetic) is refused in microseconds.

The bound is an over-estimate with one deliberate exception: a difference of two terms is
assumed not to cancel to fewer than `CANCELLATION` digits (exact zeros are skipped by the
evaluator anyway); the sampling step's own time box covers what slips through.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..results import ResponseError
from .parser import Node

MAX_DIGITS = 1e30
CANCELLATION = 3.0
_TOO_LARGE = (
    "This formula grows too large to check (its values would have more than 10^30 digits); "
    "simplify it."
)
_LOG10_E = math.log10(math.e)


@dataclass(frozen=True)
class Bound:
    hi: float  # the value's magnitude is at most 10^hi
    tiny: float  # ... and at least 10^-tiny, unless it is exactly zero
    positive: bool = False


def _pow10(x: float) -> float:
    return math.inf if x > 300 else 10.0**x


def _spread(b: Bound) -> float:
    """The largest |log10| of the magnitude: how far a power of it can push the digits."""
    return max(b.hi, b.tiny, 0.0)


def _variable(domain: str, high: float | None = None, low: float | None = None) -> Bound:
    """A variable's bound: by default the random points' range (`sampling`: integers -12..24,
    other domains 0.3..63.1 in magnitude); `high`/`low` widen it to 10^high and 10^-low."""
    if "integer" in domain or domain == "natural":
        top = max(math.log10(24), high or 0.0)
        return Bound(top, 0.0, domain in ("positive integer", "natural"))
    return Bound(max(1.8, high or 0.0), max(0.53, low or 0.0), domain == "positive")


# How far sampling may reach (log10 of the largest, and of the smallest, magnitude), tried in
# turn: a formula is sampled as far out as its values stay below `MAX_DIGITS` digits.
HIGH_LADDER = (1.8, 2.5, 3.0, 4.5, 6.0, 9.0, 12.0, 18.0, 30.0, 60.0, 100.0, 200.0, 400.0)
LOW_LADDER = (0.53, 1.0, 2.0, 3.0, 6.0, 9.0, 12.0)


def reach(nodes: Sequence[Node], domains: Mapping[str, str]) -> tuple[float, float]:
    """(high, low): the widest magnitudes, 10^high and 10^-low, at which every one of `nodes`
    stays within `MAX_DIGITS` digits, so that evaluating there stays cheap.  The random points'
    range always fits (`check_growth` refused any formula that does not)."""

    def fits(high: float, low: float) -> bool:
        def variable(domain: str) -> Bound:
            return _variable(domain, high, low)

        try:
            bounds = [_bound(node, domains, variable) for node in nodes]
        except ResponseError:
            return False
        return all(b.hi <= MAX_DIGITS and b.tiny <= MAX_DIGITS for b in bounds)

    high = max((h for h in HIGH_LADDER if fits(h, LOW_LADDER[0])), default=HIGH_LADDER[0])
    low = max((t for t in LOW_LADDER if fits(HIGH_LADDER[0], t)), default=LOW_LADDER[0])
    return high, low


def _number(value) -> Bound:
    if value == 0:
        return Bound(0.0, 0.0)
    size = math.log10(abs(value.numerator)) - math.log10(value.denominator)
    return Bound(size, -size, value > 0)


def check_growth(node: Node, domains: Mapping[str, str]) -> None:
    """Raise ResponseError when `node` can grow beyond `MAX_DIGITS` at the sampled points."""
    bound = _bound(node, domains)
    if not (bound.hi <= MAX_DIGITS and bound.tiny <= MAX_DIGITS):
        raise ResponseError(_TOO_LARGE)


def _bound(node: Node, domains: Mapping[str, str], variable=_variable) -> Bound:
    kind = node.kind
    if kind == "num":
        return _number(node.value)
    if kind == "var":
        return variable(domains.get(node.value, "real"))
    if kind == "const":
        return Bound(0.5, 0.0, True)
    args = [_bound(arg, domains, variable) for arg in node.args]
    for arg in args:
        if not (arg.hi <= MAX_DIGITS and arg.tiny <= MAX_DIGITS):
            raise ResponseError(_TOO_LARGE)
    a = args[0]
    if kind == "neg":
        return Bound(a.hi, a.tiny)
    if kind == "abs":
        return Bound(a.hi, a.tiny, a.positive)
    if kind in ("add", "sub"):
        b = args[1]
        positive = kind == "add" and a.positive and b.positive
        slack = 0.0 if positive else CANCELLATION
        return Bound(max(a.hi, b.hi) + 0.31, max(a.tiny, b.tiny) + slack, positive)
    if kind == "mul":
        b = args[1]
        return Bound(a.hi + b.hi, a.tiny + b.tiny, a.positive and b.positive)
    if kind == "div":
        b = args[1]
        return Bound(a.hi + b.tiny, a.tiny + b.hi, a.positive and b.positive)
    if kind == "pow":
        return _power(a, args[1], node.args[1])
    if kind == "fact":
        # log10(x!) <= x·log10(x) for x >= 1; Γ stays within a factor of 10 of 1 below that.
        top = _pow10(a.hi)
        digits = top * max(a.hi, 0.0) + 1.0
        return Bound(digits, max(a.tiny, 1.0), True)
    return _call(node.value, args)


def _power(base: Bound, exponent: Bound, exponent_node: Node) -> Bound:
    if exponent_node.size is not None and exponent_node.approx is not None:
        largest = abs(exponent_node.approx)  # a constant exponent: its own value
    else:
        largest = _pow10(exponent.hi)
    digits = largest * _spread(base)
    return Bound(digits, digits, base.positive)


def _call(name: str, args: list[Bound]) -> Bound:
    a = args[0]
    if name == "exp":
        digits = _pow10(a.hi) * _LOG10_E
        return Bound(digits, digits, True)
    if name in ("log", "log2", "log10"):
        # |ln v| <= ln(10)·spread; near v = 1 the log comes close to zero.
        return Bound(math.log10(math.log(10) * _spread(a) + 1.0) + 0.5, CANCELLATION + a.tiny)
    if name == "sqrt":
        return Bound(a.hi / 2, a.tiny / 2, a.positive)
    if name in ("sin", "cos"):
        return Bound(0.0, CANCELLATION + a.tiny)
    if name == "tan":
        return Bound(CANCELLATION + 1.0, CANCELLATION + a.tiny)
    if name in ("asin", "acos", "atan"):
        # atan is bounded by pi/2; asin and acos beyond [-1, 1] grow like a logarithm.
        return Bound(max(0.2, math.log10(math.log(10) * _spread(a) + 1.0) + 0.5), a.tiny + 1)
    if name in ("floor", "ceil"):
        return Bound(max(a.hi, 0.0), 0.0)
    if name in ("min", "max"):
        return Bound(max(b.hi for b in args), max(b.tiny for b in args))
    return Bound(max(b.hi for b in args), max(b.tiny for b in args) + CANCELLATION)

"""Recognising generic numeric slips from the ratio of the response to the answer.

The codes are shared with the instructors' misconception statistics, so they never change:

- ``bits-for-bytes``: the response is 8× or 1/8 of the answer;
- ``macs-for-flops``: 2× or 1/2 (a multiply-accumulate is 2 FLOP);
- ``prefix-slip``: 10^±3, 10^±6, 10^±9 or 10^±12 (a unit prefix off by one or more steps);
- ``binary-vs-decimal``: 1.024^k for k = ±1..±5 (GiB read as GB or the reverse);
- ``reciprocal``: the response is 1/answer (a division the wrong way round).

A slip matches when the response is within the part's tolerance of the slipped answer, with
the tolerance clamped to 0.5%..10%, so that sig-fig parts (no window) still get a diagnosis and
a loose part does not see a slip in every wrong answer.
"""

from __future__ import annotations

from fractions import Fraction

_BITS = "bits versus bytes?"
_MACS_LARGE = "a factor of two, as between FLOP and multiply-accumulates (1 MAC = 2 FLOP)?"
_MACS_SMALL = "did you count multiply-accumulates instead of FLOP (1 MAC = 2 FLOP)?"
_PREFIX = "check the unit prefix (k, M, G, T are steps of 1000)."
_BINARY = "binary (GiB, 1024³) versus decimal (GB, 1000³) prefixes?"


def _candidates() -> list[tuple[Fraction, str, str]]:
    slips = [
        (Fraction(8), "bits-for-bytes", f"This is 8× too large: {_BITS}"),
        (Fraction(1, 8), "bits-for-bytes", f"This is 8× too small: {_BITS}"),
        (Fraction(2), "macs-for-flops", f"This is 2× too large: {_MACS_LARGE}"),
        (Fraction(1, 2), "macs-for-flops", f"This is 2× too small: {_MACS_SMALL}"),
    ]
    for steps in (1, 2, 3, 4):
        size = 10 ** (3 * steps)
        slips.append((Fraction(size), "prefix-slip", f"This is {size:,}× too large: {_PREFIX}"))
        slips.append((Fraction(1, size), "prefix-slip", f"This is {size:,}× too small: {_PREFIX}"))
    for power in (1, 2, 3, 4, 5):
        ratio = Fraction(1024, 1000) ** power
        percent = round(float(ratio - 1) * 100, 1)
        slips.append((ratio, "binary-vs-decimal", f"This is {percent}% too large: {_BINARY}"))
        slips.append((1 / ratio, "binary-vs-decimal", f"This is {percent}% too small: {_BINARY}"))
    return slips


_SLIPS = _candidates()


def diagnose_ratio(value: Fraction, expected: Fraction, rtol: float) -> tuple[str, str] | None:
    """Return (code, feedback) for a recognised slip, or None."""
    if value == 0 or expected == 0:
        return None
    tol = min(max(Fraction(rtol), Fraction(1, 200)), Fraction(1, 10))
    for ratio, code, feedback in _SLIPS:
        target = expected * ratio
        if abs(value - target) <= tol * abs(target):
            return code, feedback
    reciprocal = 1 / expected
    if abs(expected * expected - 1) > Fraction(1, 10) and abs(value - reciprocal) <= tol * abs(
        reciprocal
    ):
        return "reciprocal", "This is the reciprocal of the answer: divide the other way round."
    return None

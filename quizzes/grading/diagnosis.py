"""Recognising generic numeric slips from the ratio of the response to the answer.

The codes are shared with the instructors' misconception statistics, so they never change:

- ``bits-for-bytes``: the response is 8× or 1/8 of the answer;
- ``macs-for-flops``: 2× or 1/2 (a multiply-accumulate is 2 FLOP);
- ``prefix-slip``: 10^±3, 10^±6, 10^±9 or 10^±12 (a unit prefix off by one or more steps);
- ``binary-vs-decimal``: 1.024^k against 1000^k, for the one k of the quantity's own prefix
  (1.0737 = 1.024³ for GiB against GB, 1.0995 for TiB against TB): the k the student's unit
  names (``3.35 TiB/s`` is k = 4), else the prefix the answer would be written with; only for
  data, never for FLOP or seconds;
- ``reciprocal``: the response is 1/answer (a division the wrong way round).

A diagnosis is recorded as the student's misconception, and a wrong one is worse than none, so
a slip matches only near the ratio it names: within the part's tolerance (clamped to
0.5%..10%, so that sig-fig parts still get a diagnosis and a loose part does not see a slip in
every wrong answer), and never within more than a quarter of the distance (in ratio) between
the answer and the slipped answer.  An answer 2-4.5% off is therefore no GiB/GB slip (that is
7.4%), and the message states the true ratio.
"""

from __future__ import annotations

import math
from fractions import Fraction

_BITS = "bits versus bytes?"
_MACS_LARGE = "a factor of two, as between FLOP and multiply-accumulates (1 MAC = 2 FLOP)?"
_MACS_SMALL = "did you count multiply-accumulates instead of FLOP (1 MAC = 2 FLOP)?"
_PREFIX = "check the unit prefix (k, M, G, T are steps of 1000)."
PREFIX_POWERS = {"k": 1, "Ki": 1, "M": 2, "Mi": 2, "G": 3, "Gi": 3, "T": 4, "Ti": 4}
PREFIX_POWERS |= {"P": 5, "Pi": 5}
_NAMES = {1: ("KiB", "kB"), 2: ("MiB", "MB"), 3: ("GiB", "GB"), 4: ("TiB", "TB"), 5: ("PiB", "PB")}
_SUPERSCRIPT = str.maketrans("12345", "¹²³⁴⁵")


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
    return slips


def _binary(power: int) -> list[tuple[Fraction, str, str]]:
    ratio = Fraction(1024, 1000) ** power
    binary, decimal = _NAMES[power]
    exponent = str(power).translate(_SUPERSCRIPT)
    factor = f"{float(ratio):.4f} (1.024{exponent}), the ratio of {binary} to {decimal}"
    advice = f"binary (1024{exponent}) versus decimal (1000{exponent}) prefixes?"
    percent_large = f"{float(ratio - 1) * 100:.1f}%"
    percent_small = f"{float(1 - 1 / ratio) * 100:.1f}%"
    return [
        (ratio, "binary-vs-decimal", f"This is {percent_large} too large, a factor of {factor}: "
         f"{advice}"),
        (1 / ratio, "binary-vs-decimal", f"This is {percent_small} too small, a factor of "
         f"{factor}: {advice}"),
    ]  # fmt: skip


_SLIPS = _candidates()
_BINARY = {power: _binary(power) for power in _NAMES}


def slip_tolerance(ratio: float | Fraction, rtol: float | Fraction) -> Fraction:
    """The relative window around a slip of `ratio`: the part's tolerance clamped to
    0.5%..10%, and at most a quarter of the way (in ratio) back towards the answer."""
    tol = min(max(Fraction(rtol), Fraction(1, 200)), Fraction(1, 10))
    distance = abs(math.log(float(ratio))) if ratio > 0 else math.inf
    return min(tol, Fraction(distance / 4)) if math.isfinite(distance) else tol


def diagnose_ratio(
    value: Fraction, expected: Fraction, rtol: float, *, binary_power: int | None = None
) -> tuple[str, str] | None:
    """Return (code, feedback) for a recognised slip, or None.

    `binary_power` is the k of a data quantity's prefix (3 for GB); None when the quantity is
    not data, so that no binary-versus-decimal slip is considered.
    """
    if value == 0 or expected == 0:
        return None
    slips = _SLIPS + _BINARY.get(binary_power, [])
    for ratio, code, feedback in slips:
        target = expected * ratio
        if abs(value - target) <= slip_tolerance(ratio, rtol) * abs(target):
            return code, feedback
    reciprocal = 1 / expected
    if abs(expected * expected - 1) > Fraction(1, 10):
        window = slip_tolerance(abs(expected * expected), rtol)
        if abs(value - reciprocal) <= window * abs(reciprocal):
            return "reciprocal", "This is the reciprocal of the answer: divide the other way round."
    return None


def data_prefix_power(response_prefixes: list[str], expected: Fraction) -> int | None:
    """The k of 1000^k that a data quantity is written with: the prefix the student typed on
    its data unit, else the prefix that the answer's magnitude would be written with."""
    for prefix in response_prefixes:
        if prefix in PREFIX_POWERS:
            return PREFIX_POWERS[prefix]
    if expected == 0:
        return None
    power = math.floor(math.log10(abs(float(expected))) / 3) if abs(expected) >= 1 else 0
    return power if power in _NAMES else None

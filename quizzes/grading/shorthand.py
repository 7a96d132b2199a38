"""The field's count shorthand: ``7B`` parameters, ``1.5T`` tokens, ``70 K`` steps.

In this field "7B" is seven billion (a model's parameter count), not seven bytes.  Where the
expected quantity is a plain number (a count: parameters, layers, GPUs), a trailing ``K``,
``M``, ``B`` or ``T`` (or ``k``, ``b``, ``bn``, or the words thousand, million, billion,
trillion), with or without a space, is read as that multiplier.  A lowercase ``m`` could be
milli or million, so it is refused as ambiguous, which costs no try.  Where a unit is
expected, none of this applies: ``7B`` stays seven bytes and ``7 GB`` on a count stays an
amount of data (a wrong dimension).

A ratio may also carry its sign, as the book's own solutions print it: ``3.2x``, ``3.2×``,
``3.2 times`` and ``3-fold`` read as the plain factor 3.2 (again only where no unit is
expected).
"""

from __future__ import annotations

import re
from fractions import Fraction

from .numbers import MAX_NUMBER_LENGTH, ParsedNumber, scan_number
from .quantities import ParsedQuantity
from .results import ResponseError
from .text import normalise

MULTIPLIERS = {
    "K": 10**3,
    "k": 10**3,
    "thousand": 10**3,
    "M": 10**6,
    "million": 10**6,
    "B": 10**9,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "T": 10**12,
    "trillion": 10**12,
}
_WORD = re.compile(r"[A-Za-z]+")
FACTOR_SIGNS = frozenset({"x", "X", "×", "times", "fold", "-fold"})


def read_count(text: object) -> ParsedQuantity | None:
    """A plain number from count shorthand ("7B" is 7×10⁹), or None when `text` has none.

    Raises ResponseError for the ambiguous ``m``.
    """
    try:
        cleaned = normalise(text, limit=MAX_NUMBER_LENGTH)
        number, rest = scan_number(cleaned)
    except ResponseError:
        return None
    suffix = rest.strip()
    if suffix == "m":
        raise ResponseError(
            "A trailing 'm' is ambiguous here (milli or million?): write the number in full, "
            "as in 7e6 or 7 million."
        )
    if suffix in FACTOR_SIGNS:
        return ParsedQuantity(ParsedNumber(number.value, number.sigfigs, cleaned), None)
    if not _WORD.fullmatch(suffix) or suffix not in MULTIPLIERS:
        return None
    value = number.value * Fraction(MULTIPLIERS[suffix])
    return ParsedQuantity(ParsedNumber(value, number.sigfigs, cleaned), None)

"""How a physical quantity is written for people: "3.35 TB/s", "4.02 ms", "~990 TFLOP/s".

Used by the book, its charts, the question prompts and the grader's feedback, so a figure reads
the same everywhere.  Values come in the SI base of their unit (bytes, seconds, FLOP, ...); an
engineer's prefix is picked so the number lands in [1, 1000).  Capacities and rates use decimal
prefixes.

The book's one rule for digits, as careful technical books print them:

- An exact integer (a count of tokens, a dimension, an integral FLOP or byte figure) prints in
  full: 1024 tokens are "1,024", never "1020".
- Any other value prints at ``sig`` significant figures (3 unless asked), rounded half-up (as the
  grader rounds), trailing zeros dropped; but a whole part of four or more digits is never
  rounded into zeros: 4096/3 prints "1,365", not "1,370", so the figure a reader recomputes from
  the formula is the figure on the page.  (A number meant as "about", ``approx=True``, keeps the
  rounding and its "~".)
- A whole part of four or more digits is grouped in threes with commas ("1,024", "81,559 MiB",
  "14,336"); a year is a label, not a quantity, and never takes one (``Year``).

``group=False`` prints the bare digits, for text a machine reads back (a formula answer).  With the
commas removed, output parses back with the shared registry (``ureg.Quantity``), except dollars and
count words, and numbers beyond the prefixes, which use "×10ⁿ".  The grader accepts what students
copy, with or without commas.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

from content.physics.units import ureg

_DECIMAL_PREFIXES = (
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
)
_SUBUNIT_PREFIXES = ((1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))
_TIME_SCALES = ((1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s"))
_MINUTE, _HOUR = 60.0, 3600.0

# Units that take an SI prefix, and whether they also go below 1 (mJ, mW).
_PREFIXABLE = {
    "B": False,
    "B/s": False,
    "FLOP": False,
    "FLOP/s": False,
    "bit": False,
    "bit/s": False,
    "b": False,
    "b/s": False,
    "J": True,
    "W": True,
    "Hz": False,
}
_LABELS = {
    "FLOP/B": "FLOP/byte",
    "USD": "$",
    "us": "µs",
    "μs": "µs",
    "token/s": "tokens/s",
    "token": "tokens",
    "flop": "FLOP",
    "FLOPs": "FLOP",
}
_PREFIX_PATTERN = re.compile(r"^(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m|µ|μ|u|n|p)?(.+)$")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
# The whole part of a number written as text: its sign and its digits (before any point).
_WHOLE_PART = re.compile(r"^([-−~$]?)(\d{4,})(?![\d,])")
_BASE_SYMBOLS = {
    "[information]": "B",
    "[time]": "s",
    "[compute]": "FLOP",
    "[tokens]": "token",
    "[currency]": "USD",
    "[energy]": "J",
}


def _round_sig(value: float, sig: int) -> Decimal:
    """``value`` rounded half-up to ``sig`` significant figures, exactly (no binary noise)."""
    if sig < 1:
        raise ValueError("sig must be at least 1")
    exact = Decimal(repr(float(value)))
    if exact == 0:
        return Decimal(0)
    quantum = Decimal(1).scaleb(exact.adjusted() - sig + 1)
    return exact.quantize(quantum, rounding=ROUND_HALF_UP)


def _plain(number: Decimal) -> str:
    """Digits without exponent or trailing zeros: Decimal('4.200') -> '4.2', 1.2E+3 -> '1200'."""
    text = format(number.normalize(), "f")
    return "0" if text in ("-0", "0") else text


class Year(int):
    """A calendar year: an integer that prints as its bare digits ("2022", never "2,022"), as a
    label does.  Arithmetic on it gives plain integers (2022 - 2017 is a count of years)."""

    grouped = False

    def __round__(self, ndigits=None):
        return self


def group_digits(text: str) -> str:
    """Commas between groups of three in a leading whole part of four or more digits:
    "1024" -> "1,024", "-123456.5" -> "-123,456.5"; "512", "3.35×10¹²" are unchanged."""
    return _WHOLE_PART.sub(lambda m: m.group(1) + f"{int(m.group(2)):,}", text, count=1)


def _scientific(value: float, sig: int) -> str:
    rounded = _round_sig(value, sig)
    exponent = rounded.adjusted()
    mantissa = _plain(rounded.scaleb(-exponent))
    return f"{mantissa}×10{str(exponent).translate(_SUPERSCRIPT)}"


def format_number(x: float, sig: int = 3, *, group: bool = True, approx: bool = False) -> str:
    """A number without unit: integers in full ("819,200", "1,024"), other values at ``sig``
    significant figures ("295", "4.02") but every whole digit from 1,000 up ("1,365", "15,873"),
    and very large or small ones as "3.35×10¹²".  ``approx=True`` rounds a large whole part too
    ("15,900", for text that says "about").  ``group=False`` leaves out the thousands separators
    ("819200"); a ``Year`` never takes them."""
    text = _number_text(x, sig, whole=not approx)
    return group_digits(text) if group and getattr(x, "grouped", True) else text


def _round_real(value: float, sig: int, *, whole: bool = True) -> Decimal:
    """``value`` at ``sig`` significant figures; with ``whole``, never fewer than its whole
    digits (1365.33 -> 1365, not 1370: a zero standing for a dropped digit reads as a second
    number for the same thing)."""
    rounded = _round_sig(value, sig)
    if whole and abs(rounded) >= 1000:
        exact = Decimal(repr(float(value)))
        rounded = _round_sig(value, max(sig, exact.adjusted() + 1))
    return rounded


def _number_text(x: float, sig: int, *, whole: bool = True) -> str:
    if isinstance(x, bool):
        raise TypeError("format_number needs a number, not a bool")
    if not math.isfinite(x):
        raise ValueError(f"cannot format {x!r}")
    if isinstance(x, int) and abs(x) < 10**15:
        return str(x)
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        rounded = _round_real(x, sig, whole=whole)
        if abs(rounded) < 1e6:
            return _plain(rounded)
    return _scientific(x, sig)


def unit_label(unit: str) -> str:
    """How a unit is printed: "FLOP/B" -> "FLOP/byte", "USD" -> "$", "us" -> "µs"."""
    return _LABELS.get(unit, unit)


def _base_unit(unit: str) -> str:
    """The SI-base expression of ``unit`` in this project's bases (bytes, not bits)."""
    dimensionality = ureg.parse_units(unit).dimensionality
    parts = []
    for dimension, exponent in sorted(dimensionality.items(), key=lambda item: -item[1]):
        symbol = _BASE_SYMBOLS[dimension]
        parts.append(symbol if exponent == 1 else f"{symbol}**{exponent}")
    return " * ".join(parts) if parts else "dimensionless"


def to_unit(value: float, unit: str) -> float:
    """``value`` (SI base: bytes, seconds, FLOP, ...) expressed in ``unit``: (3.35e12, "TB/s")
    -> 3.35.  Conversion goes through the shared pint registry, so "GiB" and "Gbit/s" work."""
    unit = "USD" if unit == "$" else unit
    return float(ureg.Quantity(value, _base_unit(unit)).to(unit).magnitude)


def _split_prefix(unit: str) -> str:
    """The unprefixed unit of ``unit`` if it is a prefixed form of a known one ("GB/s" -> "B/s")."""
    if unit in _PREFIXABLE or unit in ("s", "FLOP/B", "$", "USD"):
        return unit
    match = _PREFIX_PATTERN.match(unit)
    if match and match.group(1) and match.group(2) in _PREFIXABLE:
        return match.group(2)
    if match and match.group(1) and match.group(2) == "s":
        return "s"
    return unit


def _with_scale(value: float, sig: int, scales: tuple[tuple[float, str], ...]) -> tuple[str, str]:
    """Pick the largest scale not above |value|, then move up one if rounding reaches 1000."""
    magnitude = abs(value)
    ordered = sorted(scales)
    index = 0
    for i, (factor, _) in enumerate(ordered):
        if magnitude >= factor:
            index = i
    rounded = _round_sig(value / ordered[index][0], sig)
    if abs(rounded) >= 1000 and index + 1 < len(ordered):
        index += 1
        rounded = _round_sig(value / ordered[index][0], sig)
    return _plain(rounded), ordered[index][1]


def _format_seconds(value: float, sig: int, approx: bool = False) -> str:
    magnitude = abs(value)
    if magnitude >= 2 * _HOUR:
        return f"{format_number(value / _HOUR, sig, approx=approx)} h"
    if magnitude >= 2 * _MINUTE:
        return f"{format_number(value / _MINUTE, sig, approx=approx)} min"
    number, symbol = _with_scale(value, sig, _TIME_SCALES)
    return f"{number} {symbol}"


def _format_dollars(value: float, sig: int, approx: bool = False) -> str:
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude == 0 or 0.01 <= magnitude < 100:
        # Money under $100 shows cents, as prices do: "$2.49", "$3.20".
        return f"{sign}${Decimal(repr(magnitude)).quantize(Decimal('0.01'), ROUND_HALF_UP)}"
    return f"{sign}${format_number(float(magnitude), sig, approx=approx)}"


def format_quantity(
    value: float,
    unit: str,
    *,
    sig: int = 3,
    approx: bool = False,
    fixed: bool = False,
    group: bool = True,
    round_whole: bool = False,
) -> str:
    """Write ``value`` (in the SI base of ``unit``) with an engineer's prefix.

    (3.35e12, "B/s") -> "3.35 TB/s"; (0.0042, "s") -> "4.2 ms"; (295.3, "FLOP/B") ->
    "295 FLOP/byte"; ``approx=True`` keeps one figure fewer and adds "~" ("~990 TFLOP/s");
    ``fixed=True`` renders in exactly ``unit`` ((3.35e12, "GB/s", fixed=True) -> "3,350 GB/s").
    Seconds use ns, µs, ms, s, then min and h; dollars print as "$2.49".  Four-digit and longer
    whole parts print every digit, grouped ("1,024 tokens", "15,749 FLOP/byte") unless
    ``group=False``, or ``round_whole=True`` (an author's explicit ``sig=N``: "9,500 tokens").
    """
    text = _quantity_text(value, unit, sig=sig, approx=approx, fixed=fixed, whole=not round_whole)
    if group:
        return text
    number, space, rest = text.partition(" ")
    return number.replace(",", "") + space + rest


def _quantity_text(
    value: float, unit: str, *, sig: int, approx: bool, fixed: bool, whole: bool = True
) -> str:
    if not math.isfinite(value):
        raise ValueError(f"cannot format {value!r}")
    digits = max(1, sig - 1) if approx else sig
    mark = "~" if approx else ""
    rounds = approx or not whole
    if unit in ("$", "USD"):
        return mark + _format_dollars(value, digits, approx)
    if fixed:
        number = format_number(to_unit(value, unit), digits, approx=rounds)
        return f"{mark}{number} {unit_label(unit)}"
    base = _split_prefix(unit)
    if base == "s":
        return mark + _format_seconds(value, digits, approx)
    if base in _PREFIXABLE:
        scales = _DECIMAL_PREFIXES + (_SUBUNIT_PREFIXES if _PREFIXABLE[base] else ())
        if abs(value) >= 1000 * _DECIMAL_PREFIXES[0][0]:
            return f"{mark}{format_number(float(value), digits, approx=rounds)} {base}"
        number, prefix = _with_scale(value, digits, scales)
        return f"{mark}{number} {prefix}{base}"
    return f"{mark}{format_number(float(value), digits, approx=rounds)} {unit_label(unit)}"

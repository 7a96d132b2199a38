"""How a physical quantity is written for people: "3.35 TB/s", "4.02 ms", "~990 TFLOP/s".

Used by the book, the question prompts and the grader's feedback, so a figure reads the same
everywhere.  Values come in the SI base of their unit (bytes, seconds, FLOP, ...); an engineer's
prefix is picked so the number lands in [1, 1000).  Capacities and rates use decimal prefixes.
Numbers are rounded half-up to ``sig`` significant figures (as the grader rounds) and trailing zeros
dropped.  A whole part of five or more digits is grouped in threes with commas ("81,559 MiB",
"15,900 tokens/s"), as careful technical books print them; four digits stay as they are ("4096",
"5460 FLOP/byte"), where a separator helps no one.  ``group=False`` prints the bare digits, for
text a machine reads back (a formula answer).  With the commas removed, output parses back with
the shared registry (``ureg.Quantity``), except dollars and count words, and numbers beyond the
prefixes, which use "×10ⁿ".  The grader accepts what students copy, with or without commas.
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
_WHOLE_PART = re.compile(r"^([-−~$]?)(\d{5,})(?![\d,])")
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


def group_digits(text: str) -> str:
    """Commas between groups of three in a leading whole part of five or more digits:
    "81559" -> "81,559", "-123456.5" -> "-123,456.5"; "4096", "3.35×10¹²" are unchanged."""
    return _WHOLE_PART.sub(lambda m: m.group(1) + f"{int(m.group(2)):,}", text, count=1)


def _scientific(value: float, sig: int) -> str:
    rounded = _round_sig(value, sig)
    exponent = rounded.adjusted()
    mantissa = _plain(rounded.scaleb(-exponent))
    return f"{mantissa}×10{str(exponent).translate(_SUPERSCRIPT)}"


def format_number(x: float, sig: int = 3, *, group: bool = True) -> str:
    """A number without unit: integers in full ("819,200"), other values rounded to ``sig``
    significant figures ("295", "4.02", "15,900"), and very large or small ones as "3.35×10¹²".
    ``group=False`` leaves out the thousands separators ("819200")."""
    text = _number_text(x, sig)
    return group_digits(text) if group else text


def _number_text(x: float, sig: int) -> str:
    if isinstance(x, bool):
        raise TypeError("format_number needs a number, not a bool")
    if not math.isfinite(x):
        raise ValueError(f"cannot format {x!r}")
    if isinstance(x, int) and abs(x) < 10**15:
        return str(x)
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        rounded = _round_sig(x, sig)
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


def _format_seconds(value: float, sig: int) -> str:
    magnitude = abs(value)
    if magnitude >= 2 * _HOUR:
        return f"{group_digits(_plain(_round_sig(value / _HOUR, sig)))} h"
    if magnitude >= 2 * _MINUTE:
        return f"{group_digits(_plain(_round_sig(value / _MINUTE, sig)))} min"
    number, symbol = _with_scale(value, sig, _TIME_SCALES)
    return f"{number} {symbol}"


def _format_dollars(value: float, sig: int) -> str:
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude == 0 or 0.01 <= magnitude < 100:
        # Money under $100 shows cents, as prices do: "$2.49", "$3.20".
        return f"{sign}${Decimal(repr(magnitude)).quantize(Decimal('0.01'), ROUND_HALF_UP)}"
    return f"{sign}${format_number(float(magnitude), sig)}"


def format_quantity(
    value: float,
    unit: str,
    *,
    sig: int = 3,
    approx: bool = False,
    fixed: bool = False,
    group: bool = True,
) -> str:
    """Write ``value`` (in the SI base of ``unit``) with an engineer's prefix.

    (3.35e12, "B/s") -> "3.35 TB/s"; (0.0042, "s") -> "4.2 ms"; (295.3, "FLOP/B") ->
    "295 FLOP/byte"; ``approx=True`` keeps one figure fewer and adds "~" ("~990 TFLOP/s");
    ``fixed=True`` renders in exactly ``unit`` ((3.35e12, "GB/s", fixed=True) -> "3350 GB/s").
    Seconds use ns, µs, ms, s, then min and h; dollars print as "$2.49".  Five-digit and longer
    whole parts are grouped ("81,559 MiB", "15,700 FLOP/byte") unless ``group=False``.
    """
    text = _quantity_text(value, unit, sig=sig, approx=approx, fixed=fixed)
    if group:
        return text
    number, space, rest = text.partition(" ")
    return number.replace(",", "") + space + rest


def _quantity_text(value: float, unit: str, *, sig: int, approx: bool, fixed: bool) -> str:
    if not math.isfinite(value):
        raise ValueError(f"cannot format {value!r}")
    digits = max(1, sig - 1) if approx else sig
    mark = "~" if approx else ""
    if unit in ("$", "USD"):
        return mark + _format_dollars(value, digits)
    if fixed:
        return f"{mark}{format_number(to_unit(value, unit), digits)} {unit_label(unit)}"
    base = _split_prefix(unit)
    if base == "s":
        return mark + _format_seconds(value, digits)
    if base in _PREFIXABLE:
        scales = _DECIMAL_PREFIXES + (_SUBUNIT_PREFIXES if _PREFIXABLE[base] else ())
        if abs(value) >= 1000 * _DECIMAL_PREFIXES[0][0]:
            return f"{mark}{format_number(float(value), digits)} {base}"
        number, prefix = _with_scale(value, digits, scales)
        return f"{mark}{number} {prefix}{base}"
    return f"{mark}{format_number(float(value), digits)} {unit_label(unit)}"

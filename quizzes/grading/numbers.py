"""Reading numbers typed by students, and exact rounding, all in exact rational arithmetic.

Accepted: ``3.35e12``, ``3.35E+12``, ``3.35×10^12``, ``3.35x10^12``, ``3.35*10**12``,
``3.35·10¹²``, ``2^10``, ``1/3``, ``5%``, a leading ``+``, a Unicode minus, full-width digits,
digit groups of three separated by (thin) spaces (``3 350 000``, ``3.141 592``) or by commas
in the whole part (``81,559``, ``3,350,000.5``: the book prints its figures that way, so students
copy them) and a trailing point (``3.``).  Refused, each with a message that says what to type
instead: any other comma (``3,35`` is a decimal comma; ``1,0000`` no grouping), underscores,
hexadecimal, doubled signs, ``inf``/``nan``, non-integer exponents, and magnitudes outside
1e-300..1e300 (the grader hands numbers on as floats, so nothing beyond that range is useful).

Every value is a `fractions.Fraction`, so ``0.1`` is exactly one tenth and the tolerance and
rounding checks downstream are exact.  Magnitudes are estimated before any power is computed,
so ``1e999999`` or ``9^9^9`` never build a huge integer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from content.physics.formatting import group_digits

from .results import ResponseError
from .text import SUPERSCRIPTS, normalise

MAX_NUMBER_LENGTH = 200
MAX_LOG10 = 300
TIMES = "×xX*·⋅∙"
_TOO_LARGE = "This number is too large to be an answer; check the exponent."
_TOO_SMALL = "This number is too small to be an answer; check the sign of the exponent."
# A whole part grouped in threes by commas: 81,559 or 3,350,000 (then perhaps .5), standing alone;
# "0,004" is a decimal comma, never a group.
_COMMA_GROUPED = re.compile(r"(?<![\d.,])([1-9]\d{0,2}(?:,\d{3})+)(?![\d,])(?!\.\d*,)")
_PRECHECKS = [
    (
        re.compile(r","),
        "Remove the comma: it could be a decimal comma. Commas may only separate groups of "
        "three digits (3,350,000); write decimals with a point (3.35).",
    ),
    (re.compile(r"_"), "Remove the underscores: write the digits together, such as 1000000."),
    (
        re.compile(r"(?<![0-9.])0[xXbBoO][0-9a-fA-F]"),
        "Hexadecimal, binary and octal literals are not accepted; write the number in decimal.",
    ),
    (
        re.compile(r"(?i)(?<![a-z])(nan|inf|infinity)(?![a-z])|∞"),
        "Enter a finite number.",
    ),
    (re.compile(r"[-+]\s*[-+]"), "Use a single sign: write -3 rather than --3 or +-3."),
]


@dataclass(frozen=True)
class ParsedNumber:
    """A number as read: its exact value and the significant figures it was written with.

    `sigfigs` is None for forms that have no written precision (``1/3``, ``2^10``).  Trailing
    zeros of a whole number without a point (``3350``) are not counted as significant.
    """

    value: Fraction
    sigfigs: int | None
    text: str


def log10_estimate(value: Fraction) -> int:
    """Return floor(log10|value|) within one, from digit counts (no float overflow)."""
    return len(str(abs(value.numerator))) - len(str(value.denominator))


def _check_magnitude(value: Fraction) -> Fraction:
    if value == 0:
        return value
    estimate = log10_estimate(value)
    if estimate > MAX_LOG10 or (estimate >= MAX_LOG10 - 1 and abs(value) > 10**MAX_LOG10):
        raise ResponseError(_TOO_LARGE)
    if estimate < -MAX_LOG10 - 1 or (
        estimate <= -MAX_LOG10 + 1 and abs(value) < Fraction(1, 10**MAX_LOG10)
    ):
        raise ResponseError(_TOO_SMALL)
    return value


def _ten_to(exponent: int) -> Fraction:
    if abs(exponent) > 2 * MAX_LOG10:
        raise ResponseError(_TOO_LARGE if exponent > 0 else _TOO_SMALL)
    return Fraction(10) ** exponent


def _power(base: Fraction, exponent: int) -> Fraction:
    if base == 0:
        if exponent < 0:
            raise ResponseError("This divides by zero; check the exponent.")
        return Fraction(1) if exponent == 0 else Fraction(0)
    estimate = exponent * (log10_estimate(base) + 1 if abs(base) >= 1 else log10_estimate(base))
    if abs(exponent) > 4 * MAX_LOG10 or abs(estimate) > 2 * MAX_LOG10 + 2:
        raise ResponseError(_TOO_LARGE if (abs(base) > 1) == (exponent > 0) else _TOO_SMALL)
    return base**exponent


class _Scanner:
    """A cursor over normalised text; each `read_*` method consumes what it recognises."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def char(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def skip_spaces(self) -> None:
        while self.char() == " ":
            self.pos += 1

    def read_digits(self) -> str:
        start = self.pos
        while self.char().isdigit() and self.char().isascii():
            self.pos += 1
        return self.text[start : self.pos]

    def _group_follows(self, previous: str, fractional: bool) -> bool:
        """A space followed by a digit group continues the number (``3 350 000``)."""
        if self.char() != " " or len(previous) != 3 and not (not fractional and previous):
            return False
        match = re.match(r" (\d{1,3})(?!\d)", self.text[self.pos :])
        if not match:
            return False
        return fractional or len(match.group(1)) == 3

    def read_grouped(self, fractional: bool) -> str:
        groups = [self.read_digits()]
        while groups[-1] and self._group_follows(groups[-1], fractional):
            if not fractional and len(groups) == 1 and len(groups[0]) > 3:
                break
            self.pos += 1
            groups.append(self.read_digits())
            if fractional and len(groups[-1]) < 3:
                break
        if not fractional and len(groups) > 1 and len(groups[0]) > 3:
            raise ResponseError("Separate digit groups every three digits, as in 3 350 000.")
        return "".join(groups)

    def read_mantissa(self) -> tuple[Fraction, int] | None:
        start = self.pos
        whole = self.read_grouped(fractional=False)
        fraction = ""
        has_point = self.char() == "."
        if has_point:
            self.pos += 1
            fraction = self.read_grouped(fractional=True)
        if not whole and not fraction:
            self.pos = start
            return None
        digits = (whole + fraction).lstrip("0")
        if not has_point:
            digits = digits.rstrip("0")
        sigfigs = max(len(digits), 1)
        value = Fraction(int(whole or "0")) + (
            Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0
        )
        return value, sigfigs

    def read_integer_exponent(self) -> int | None:
        """Read ``^-3``, ``**12`` or superscripts ``⁻³``; None when no power follows."""
        start = self.pos
        self.skip_spaces()
        if self.text.startswith("**", self.pos) or self.char() == "^":
            self.pos += 2 if self.char() == "*" else 1
            self.skip_spaces()
            sign = self.char() if self.char() in "+-" else ""
            self.pos += len(sign)
            digits = self.read_digits()
            if not digits:
                raise ResponseError("Write a whole-number exponent after ^, as in 10^12.")
        elif self.char() in SUPERSCRIPTS:
            sign = ""
            if SUPERSCRIPTS[self.char()] in "+-":
                sign = SUPERSCRIPTS[self.char()]
                self.pos += 1
            digits = ""
            while self.char() in SUPERSCRIPTS and SUPERSCRIPTS[self.char()].isdigit():
                digits += SUPERSCRIPTS[self.char()]
                self.pos += 1
            if not digits:
                raise ResponseError("Write a whole-number exponent, as in 10¹².")
        else:
            self.pos = start
            return None
        if self.char() == ".":
            raise ResponseError("Exponents must be whole numbers, as in 10^12.")
        if len(digits) > 6:
            raise ResponseError(_TOO_LARGE if sign != "-" else _TOO_SMALL)
        return int(sign + digits)

    def read_factor(self) -> tuple[Fraction, int | None, bool] | None:
        """Read one factor; return (value, written sigfigs, whether it is a power of ten)."""
        mantissa = self.read_mantissa()
        if mantissa is None:
            return None
        value, sigfigs = mantissa
        match = re.match(r"[eE]([+-]?)(\d+)", self.text[self.pos :])
        if match:
            self.pos += match.end()
            if len(match.group(2)) > 6:
                raise ResponseError(_TOO_LARGE if match.group(1) != "-" else _TOO_SMALL)
            value *= _ten_to(int(match.group(1) + match.group(2)))
            _check_magnitude(value)
        exponent = self.read_integer_exponent()
        if exponent is None:
            return value, sigfigs, False
        if self.text.startswith("^", self.pos) or self.text.startswith("**", self.pos):
            raise ResponseError("Write a single power such as 2^10, not a tower of powers.")
        is_ten = value == 10 and not match
        return _check_magnitude(_power(value, exponent)), None, is_ten

    def read_times(self) -> bool:
        start = self.pos
        self.skip_spaces()
        if self.char() and self.char() in TIMES and not self.text.startswith("**", self.pos):
            self.pos += 1
            self.skip_spaces()
            if self.char().isdigit() or self.char() == ".":
                return True
        self.pos = start
        return False


def _without_group_commas(text: str) -> str:
    """``text`` with the commas of thousands groups removed: "81,559 MiB" -> "81559 MiB"."""
    return _COMMA_GROUPED.sub(lambda m: m.group(1).replace(",", ""), text)


def scan_number(text: str) -> tuple[ParsedNumber, str]:
    """Read the longest number at the start of normalised `text`; return it and the rest."""
    text = _without_group_commas(text)
    for pattern, message in _PRECHECKS:
        if pattern.search(text):
            raise ResponseError(message)
    scanner = _Scanner(text)
    sign = -1 if scanner.char() == "-" else 1
    if scanner.char() in "+-":
        scanner.pos += 1
        scanner.skip_spaces()
    first = scanner.read_factor()
    if first is None:
        raise ResponseError("Start your answer with a number, for example 3.35e12.")
    value, sigfigs, _ = first
    factors = 1
    while scanner.read_times():
        factor = scanner.read_factor()
        if factor is None:
            raise ResponseError("Write a number after the multiplication sign, as in 3.35×10^12.")
        factors += 1
        value = _check_magnitude(value * factor[0])
        if not (factors == 2 and factor[2]):
            sigfigs = None
    after_product = scanner.pos
    scanner.skip_spaces()
    if scanner.char() == "/" and re.match(r"/\s*[0-9.]", text[scanner.pos :]):
        scanner.pos += 1
        scanner.skip_spaces()
        denominator = scanner.read_factor()
        if denominator is None or denominator[0] == 0:
            raise ResponseError("This divides by zero; check the denominator.")
        value = _check_magnitude(value / denominator[0])
        sigfigs = None
    else:
        scanner.pos = after_product
    after_value = scanner.pos
    scanner.skip_spaces()
    if scanner.char() == "%":
        scanner.pos += 1
        value /= 100
    else:
        scanner.pos = after_value
    rest = text[scanner.pos :].strip()
    if rest[:1].isdigit():
        raise ResponseError(
            "Could not read the digits after a space: group digits in threes (3 350 000) "
            "or write them without spaces."
        )
    number = ParsedNumber(_check_magnitude(sign * value), sigfigs, text[: scanner.pos].strip())
    return number, rest


def read_number(text: object) -> ParsedNumber:
    """Read a whole response as a number (no unit), or raise ResponseError."""
    number, rest = scan_number(normalise(text, limit=MAX_NUMBER_LENGTH))
    if rest:
        raise ResponseError(f"Could not read '{rest}' after the number; enter a number only.")
    return number


def parse_number(text: object) -> Decimal:
    """Return the number in `text` as a Decimal (exact unless it is a fraction such as 1/3)."""
    return to_decimal(read_number(text).value)


def to_decimal(value: Fraction, digits: int = 50) -> Decimal:
    with localcontext() as context:
        context.prec = max(digits, len(str(abs(value.numerator))) + 5)
        return Decimal(value.numerator) / Decimal(value.denominator)


def exact(value: float | int | str | Fraction | Decimal) -> Fraction:
    """Return the decimal a float was written as (``0.1`` is one tenth, not its binary twin)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {value!r}")
        return Fraction(Decimal(repr(value)))
    return Fraction(value)


# The significant digits a binary double holds reliably (C's DBL_DIG): any decimal of this many
# digits survives a round trip through a float unchanged.
FLOAT_DIGITS = 15


def declared(value: float | int | str | Fraction | Decimal) -> Fraction:
    """The exact value an author's computed answer stands for: a whole-valued float is that
    whole number, any other float the decimal of its first 15 significant digits.

    A template's answer is computed in binary floating point, so 1.005 × 100 arrives as
    100.49999999999999 and a product meant to be 4.2 ms may arrive a hair off; the digits beyond
    the fifteenth are rounding noise, never the author's intent.  Rounding half up, an interval
    bound equal to the answer, and a zero tolerance then see the value the author meant
    (100.5, 0.0042); numbers that are not floats are taken as they are."""
    if not isinstance(value, float):
        return exact(value)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if value.is_integer():
        return Fraction(int(value))
    return Fraction(Decimal(format(value, f".{FLOAT_DIGITS}g")))


def _scale_of(value: Fraction) -> int:
    """Return e such that 10**e <= |value| < 10**(e+1), for nonzero value."""
    magnitude = abs(value)
    exponent = log10_estimate(value)
    while Fraction(10) ** exponent > magnitude:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    return exponent


def _round_to_step(value: Fraction, step: Fraction) -> Fraction:
    """Round to a multiple of step, halves away from zero (ROUND_HALF_UP)."""
    quotient = abs(value) / step
    rounded = math.floor(quotient + Fraction(1, 2))
    return (rounded * step) * (1 if value >= 0 else -1)


def round_sigfigs(value: Fraction, sigfigs: int) -> Fraction:
    if value == 0:
        return value
    return _round_to_step(value, Fraction(10) ** (_scale_of(value) - sigfigs + 1))


def round_decimals(value: Fraction, decimals: int) -> Fraction:
    return _round_to_step(value, Fraction(1, 10**decimals) if decimals >= 0 else 10**-decimals)


_SUPERSCRIPT_OF = {digit: sup for sup, digit in SUPERSCRIPTS.items()}


def format_number(value: Fraction, digits: int = 6, *, group: bool = True) -> str:
    """Format for display: ``3.35×10¹²``, ``0.05``, ``1024``, ``81,559``; at most `digits`
    figures.  A whole part of five or more digits is grouped in threes as the book prints it
    (the book's own rule, `content.physics.formatting.group_digits`), so the grader's "read as"
    text matches the prompt; ``group=False`` gives the bare digits."""
    text = _plain_or_scientific(value, digits)
    return group_digits(text) if group else text


def _plain_or_scientific(value: Fraction, digits: int) -> str:
    if value == 0:
        return "0"
    with localcontext() as context:
        context.prec = digits
        context.rounding = ROUND_HALF_UP
        number = +to_decimal(value, digits + 10)
    exponent = number.adjusted()
    if -3 <= exponent < 6:
        text = format(number, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    mantissa = number.scaleb(-exponent)
    text = format(mantissa, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    power = "".join(_SUPERSCRIPT_OF[c] for c in str(exponent))
    return f"{text}×10{power}"

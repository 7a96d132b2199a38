"""LaTeX pieces for worked solutions: quantities and numbers as formatting writes them."""

from __future__ import annotations

import re

from content.physics.formatting import format_number, format_quantity

# Inputs keep one more figure than results, so a substitution shows 989.4, not 989.
INPUT_SIG = 4

_SCIENTIFIC = re.compile(r"^(-?[\d.]+)×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def tex_number_text(text: str) -> str:
    """'3.35×10¹²' -> '3.35 \\times 10^{12}'; '81,559' -> '81{,}559' (a thousands comma that TeX
    does not space as punctuation); plain digits pass through."""
    match = _SCIENTIFIC.match(text)
    if not match:
        return re.sub(r"(?<=\d),(?=\d{3})", "{,}", text)
    exponent = match.group(2).translate(_FROM_SUPERSCRIPT)
    return f"{match.group(1)} \\times 10^{{{exponent}}}"


def tex_text(formatted: str) -> str:
    """LaTeX for a string made by ``format_quantity``: '3.35 TB/s' -> '3.35\\ \\text{TB/s}'."""
    if formatted.startswith("$"):
        return "\\" + tex_number_text(formatted)
    number, _, unit = formatted.partition(" ")
    number = tex_number_text(number)
    return f"{number}\\ \\text{{{unit}}}" if unit else number


def q(value: float, unit: str, sig: int = INPUT_SIG) -> str:
    """A substituted quantity in LaTeX."""
    return tex_text(format_quantity(value, unit, sig=sig))


def num(value: float, sig: int = INPUT_SIG) -> str:
    """A substituted plain number in LaTeX."""
    return tex_number_text(format_number(value, sig))


def plain_num(value: float, sig: int = INPUT_SIG) -> str:
    """A number in a step's label or an explanation's title: plain text, not TeX, so a
    thousands comma stays a comma ("163,840,000", never "163{,}840{,}000")."""
    return format_number(value, sig)


def frac(numerator: str, denominator: str) -> str:
    return f"\\frac{{{numerator}}}{{{denominator}}}"


def result(value: float, unit: str) -> str:
    """The human-readable result of a step (three significant figures)."""
    return format_quantity(value, unit)

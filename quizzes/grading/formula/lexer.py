"""Tokens of a formula typed by a student, and the allowed vocabulary.

Names are split greedily into the allowed ones, longest first, so ``nlogn`` reads as
``n·log(n)`` and ``log2n`` as ``log2(n)``; a name that cannot be split into allowed names is
refused whole ("unknown name 'lambda'").  Quotes, dots outside numbers, underscores outside a
listed variable, ``=`` and other symbols are refused with a message naming them, so nothing a
student types is ever looked up as a Python attribute or called.

A number directly followed by ``e`` and digits is scientific notation (``1e-9``); write
``2*e - 9`` for the constant e.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ..results import ResponseError
from ..text import SUPERSCRIPTS

FUNCTIONS = {
    # name: (allowed argument counts, canonical name)
    "log": ((1, 2), "log"),
    "ln": ((1,), "log"),
    "log2": ((1,), "log2"),
    "log_2": ((1,), "log2"),
    "lg": ((1,), "log2"),
    "log10": ((1,), "log10"),
    "log_10": ((1,), "log10"),
    "sqrt": ((1,), "sqrt"),
    "exp": ((1,), "exp"),
    "abs": ((1,), "abs"),
    "floor": ((1,), "floor"),
    "ceil": ((1,), "ceil"),
    "ceiling": ((1,), "ceil"),
    "sin": ((1,), "sin"),
    "cos": ((1,), "cos"),
    "tan": ((1,), "tan"),
    # Inverse trigonometry: authors write angles such as pi/2 - atan(n); the functions are
    # bounded (never a size risk) and both sympy and mpmath know them.
    "asin": ((1,), "asin"),
    "acos": ((1,), "acos"),
    "atan": ((1,), "atan"),
    "arcsin": ((1,), "asin"),
    "arccos": ((1,), "acos"),
    "arctan": ((1,), "atan"),
    "min": ((2, 3, 4), "min"),
    "max": ((2, 3, 4), "max"),
    "factorial": ((1,), "factorial"),
}
CONSTANTS = {"pi": "pi", "π": "pi", "e": "e"}
MAX_LITERAL_DIGITS = 30
OPERATORS = {
    "**": "^",
    "^": "^",
    "+": "+",
    "-": "-",
    "*": "*",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∙": "*",
    "/": "/",
    "÷": "/",
    "(": "(",
    ")": ")",
    "|": "|",
    "!": "!",
    ",": ",",
}
_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?")
_NAME = re.compile(r"[^\W\dⁿ¹²³][^\W⁰¹²³⁴-⁹ⁿ]*")
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴-⁹⁻⁺ⁿ]+")


@dataclass(frozen=True)
class Token:
    """kind is one of: number, name, func, const, op, power (a superscript exponent)."""

    kind: str
    text: str
    value: object
    spaced: bool


def _number(text: str) -> Fraction:
    match = _NUMBER.fullmatch(text)
    mantissa, exponent = match.group(1), match.group(2)
    if len(mantissa.replace(".", "").lstrip("0")) > MAX_LITERAL_DIGITS:
        raise ResponseError(f"The number {mantissa[:12]}… is too long; use fewer digits.")
    value = Fraction(mantissa if not mantissa.endswith(".") else mantissa[:-1])
    if exponent:
        if abs(int(exponent)) > 300:
            raise ResponseError(f"The number {text} is too large or too small.")
        value *= Fraction(10) ** int(exponent)
    return value


def _split_name(run: str, variables: frozenset[str]) -> list[Token]:
    allowed = variables | set(FUNCTIONS) | (set(CONSTANTS) - ({"e"} & variables))
    tokens, rest = [], run
    while rest:
        for size in range(len(rest), 0, -1):
            piece = rest[:size]
            if piece in allowed:
                break
        else:
            return _refuse_name(run, rest, variables)
        if piece in variables:
            tokens.append(Token("name", piece, piece, False))
        elif piece in FUNCTIONS:
            tokens.append(Token("func", piece, FUNCTIONS[piece], False))
        else:
            tokens.append(Token("const", piece, CONSTANTS[piece], False))
        rest = rest[size:]
    return tokens


def _refuse_name(run: str, rest: str, variables: frozenset[str]) -> list[Token]:
    listed = ", ".join(sorted(variables)) or "none"
    if "_" in run:
        raise ResponseError(
            f"Underscores are not allowed in '{run}'; use only the variables ({listed})."
        )
    if rest[0].isdigit():
        raise ResponseError(f"Put numbers before letters: write 2n or n^2, not '{run}'.")
    raise ResponseError(
        f"Unknown name '{run}': use only the variables ({listed}) and functions such as "
        "log, sqrt, exp."
    )


def _superscript(text: str, variables: frozenset[str]) -> Token:
    plain = "".join("n" if c == "ⁿ" else SUPERSCRIPTS[c] for c in text)
    if re.fullmatch(r"[+-]?\d{1,4}", plain):
        return Token("power", text, int(plain), False)
    if plain == "n" and "n" in variables:
        return Token("power", text, "n", False)
    raise ResponseError(f"Could not read the superscript '{text}'; write it with ^, as in n^2.")


def tokenize(text: str, variables: frozenset[str]) -> list[Token]:
    """Split normalised text into tokens, or raise ResponseError naming the offending part."""
    tokens: list[Token] = []
    position, spaced = 0, False
    while position < len(text):
        char = text[position]
        if char == " ":
            position, spaced = position + 1, True
            continue
        number = _NUMBER.match(text, position)
        name = _NAME.match(text, position)
        superscript = _SUPERSCRIPT_RUN.match(text, position)
        if number:
            found = [Token("number", number.group(0), _number(number.group(0)), False)]
            position = number.end()
        elif name:
            found = _split_name(name.group(0), variables)
            position = name.end()
        elif superscript:
            found = [_superscript(superscript.group(0), variables)]
            position = superscript.end()
        elif text.startswith("**", position):
            found, position = [Token("op", "^", "^", False)], position + 2
        elif char in OPERATORS:
            found, position = [Token("op", char, OPERATORS[char], False)], position + 1
        else:
            raise ResponseError(_refusal(char))
        first = found[0]
        tokens.append(Token(first.kind, first.text, first.value, spaced))
        tokens.extend(found[1:])
        spaced = False
    return tokens


def _refusal(char: str) -> str:
    if char in "'\"`":
        return "Quotes are not allowed in a formula; type only the expression."
    if char == ".":
        return "A point may only appear inside a number, as in 0.5n."
    if char == "_":
        return "Underscores are not allowed; use only the listed variables."
    if char == "=":
        return "Type only the expression, without '=' (for example 2*n^2, not T = 2*n^2)."
    if char in "[]{}":
        return "Use round parentheses ( ) for grouping."
    return f"The character '{char}' is not allowed in a formula."

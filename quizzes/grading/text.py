"""Normalisation of raw response text, shared by the number, unit and formula readers.

Policy: full-width ASCII forms (as typed with an East Asian input method) become ASCII, every
space variant (no-break, thin, narrow no-break, ideographic) becomes a plain space, and the
Unicode minus and dashes become "-".  Invisible and control characters (NUL, zero-width
spaces, joiners, byte-order marks, direction overrides) are refused rather than dropped,
because silently dropping them would let text that looks like one answer be read as another.
Length is checked before anything else so that no later step sees a long input.
"""

from __future__ import annotations

import unicodedata

from .results import ResponseError

MINUS_SIGNS = "\u2212\u2012\u2013\ufe63"
SPACES = "\u00a0\u202f\u205f\u3000" + "".join(chr(code) for code in range(0x2000, 0x200B))
_ALLOWED_CONTROLS = "\t\n\r"
SUPERSCRIPTS = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
    "⁹": "9",
    "⁻": "-",
    "⁺": "+",
}


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    code = f"U+{ord(char):04X}"
    return f"{code} {name.lower()}" if name else code


def normalise(text: object, *, limit: int, what: str = "answer") -> str:
    """Return `text` with look-alike characters folded, or raise ResponseError."""
    if not isinstance(text, str):
        raise ResponseError(f"Enter your {what} as text.")
    if len(text) > limit:
        raise ResponseError(
            f"This {what} is {len(text)} characters long; the limit is {limit}. Shorten it."
        )
    out = []
    for position, char in enumerate(text, start=1):
        code = ord(char)
        if 0xFF01 <= code <= 0xFF5E:
            char = chr(code - 0xFEE0)
        elif char in SPACES or char in _ALLOWED_CONTROLS:
            char = " "
        elif char in MINUS_SIGNS:
            char = "-"
        elif unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"):
            raise ResponseError(
                f"Remove the invisible character {_describe(char)} at position {position} "
                "and type the answer again."
            )
        out.append(char)
    result = "".join(out).strip()
    if not result:
        raise ResponseError(f"Enter an {what}." if what[0] in "aeiou" else f"Enter a {what}.")
    return result

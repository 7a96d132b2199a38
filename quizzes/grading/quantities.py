"""Reading units and quantities ("2.1 GB/s", "16.8 Gbit/s", "$3.20") with the shared registry.

Unit policy, on top of `content.physics.units`:

- Symbols are case-sensitive.  An unknown symbol is refused with suggestions ("unknown unit
  'Tbs': did you mean 'TB/s' or 'Tbit/s'?").
- ``KB`` (and any ``K`` prefix) is refused as ambiguous: kB is 1000 bytes, KiB is 1024 bytes.
- A prefix below one on a count (``mB``, ``mb``, ``nFLOP``) is refused as a likely case slip:
  a millibyte is never the answer, a megabyte often is.
- ``B`` is a byte, ``b`` and ``bit`` a bit; ``FLOPS`` in capitals is FLOP per second;
  ``$`` before or after the number is US dollars; ``per`` is a division ("tokens per s").
- Conversion factors are exact fractions taken from the registry's definitions, so converting
  "1.95 GiB/s" to B/s is exact, and the tolerance check downstream stays exact.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from content.physics.units import ureg

from .numbers import MAX_NUMBER_LENGTH, ParsedNumber, exact, scan_number, to_decimal
from .results import ResponseError
from .text import SUPERSCRIPTS, normalise

_COUNT_DIMENSIONS = {"[information]", "[compute]", "[tokens]", "[currency]"}
_ALIASES = {"$": ("", "dollar")}
_SEPARATORS = "/*·⋅() ^"
_DIMENSION_NAMES = {
    (): ("a plain number", None),
    (("[information]", 1),): ("an amount of data", "GB"),
    (("[information]", 1), ("[time]", -1)): ("a data rate", "TB/s"),
    (("[time]", 1),): ("a time", "ms"),
    (("[time]", -1),): ("a frequency", "GHz"),
    (("[compute]", 1),): ("an amount of computation", "TFLOP"),
    (("[compute]", 1), ("[time]", -1)): ("a compute rate", "TFLOP/s"),
    (("[compute]", 1), ("[information]", -1)): ("an arithmetic intensity", "FLOP/B"),
    (("[tokens]", 1),): ("a number of tokens", "tokens"),
    (("[time]", -1), ("[tokens]", 1)): ("a token rate", "tokens/s"),
    (("[time]", 1), ("[tokens]", -1)): ("a time per token", "ms/token"),
    (("[energy]", 1),): ("an energy", "J"),
    (("[energy]", 1), ("[time]", -1)): ("a power", "W"),
    (("[currency]", 1),): ("an amount of money", "USD"),
}
_PREFIXABLE = {"[information]", "[compute]", "[energy]", "[time]"}


@dataclass(frozen=True)
class UnitAtom:
    """One symbol of a unit expression: ``TB`` is prefix ``T`` on symbol ``B``."""

    prefix: str
    prefix_symbol: str
    name: str
    symbol: str
    power: int


@dataclass(frozen=True)
class ParsedUnit:
    """A unit expression with its dimensions and exact factors to the registry's root units.

    `factor` converts a magnitude in this unit to root units (bit, second, FLOP...);
    `base_factor` does the same for the unit without its prefixes ("B/s" for "TB/s"), which is
    the "SI base of the unit" that expected values are given in.
    """

    atoms: tuple[UnitAtom, ...]
    factor: Fraction
    base_factor: Fraction
    dimensions: tuple[tuple[str, int], ...]

    @property
    def text(self) -> str:
        return _render(self.atoms, with_prefix=True)

    @property
    def base_text(self) -> str:
        return _render(self.atoms, with_prefix=False)

    @property
    def has_prefix(self) -> bool:
        return any(atom.prefix for atom in self.atoms)


def _render(atoms: tuple[UnitAtom, ...], *, with_prefix: bool) -> str:
    def show(atom: UnitAtom, power: int) -> str:
        text = (atom.prefix_symbol if with_prefix else "") + atom.symbol
        return text if power == 1 else f"{text}^{power}"

    top = [show(a, a.power) for a in atoms if a.power > 0]
    bottom = [show(a, -a.power) for a in atoms if a.power < 0]
    text = "·".join(top) or "1"
    if bottom:
        text += "/" + (bottom[0] if len(bottom) == 1 else "(" + "·".join(bottom) + ")")
    return text


def describe_dimensions(dimensions: tuple[tuple[str, int], ...]) -> tuple[str, str | None]:
    """Return a phrase for a dimension ("a data rate") and an example unit ("TB/s")."""
    if dimensions in _DIMENSION_NAMES:
        return _DIMENSION_NAMES[dimensions]
    parts = [name.strip("[]") + ("" if p == 1 else f"^{p}") for name, p in dimensions]
    return "a quantity in " + " · ".join(parts), None


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    prefixes = ["", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi"]
    counted = ["B", "bit", "b", "FLOP", "FLOPS", "Bps", "bps", "J", "W", "Wh", "Hz", "byte"]
    words = ["s", "ms", "us", "µs", "ns", "min", "h", "tokens", "token", "tok", "USD", "$"]
    words += ["bytes", "bits", "seconds", "flop", "FLOPs", "dollars", "B/s", "bit/s", "FLOP/s"]
    words += ["FLOP/B", "tokens/s", "tok/s"]
    rates = [p + u for p in prefixes for u in ("B/s", "bit/s", "FLOP/s")]
    return tuple(dict.fromkeys([p + u for p in prefixes for u in counted] + words + rates))


def _suggest(text: str) -> list[str]:
    stem = re.sub(r"p?s$", "", text)
    if stem != text and stem:
        prefix = stem[:-1]
        if stem[-1] in "bB" and (prefix == "" or prefix.upper() in "KMGTPE" and len(prefix) == 1):
            fixed = "k" if prefix in "kK" and prefix else prefix.upper()
            return [f"{fixed}B/s", f"{fixed}bit/s"]
    folded = [word for word in _vocabulary() if word.lower() == text.lower()]
    if folded:
        return folded[:3]
    return difflib.get_close_matches(text, _vocabulary(), n=2, cutoff=0.6)


def _unknown(text: str) -> ResponseError:
    options = _suggest(text)
    if options:
        listed = " or ".join(f"'{option}'" for option in options)
        return ResponseError(f"Unknown unit '{text}': did you mean {listed}?")
    return ResponseError(f"Unknown unit '{text}'. Use a unit such as GB, TB/s, ms or TFLOP/s.")


def _lookup(text: str) -> tuple[str, str] | None:
    if text in _ALIASES:
        return _ALIASES[text]
    if not re.fullmatch(r"[^\W\d_][^\W_]*|\$|¢", text):
        return None
    candidates = ureg.parse_unit_name(text, case_sensitive=True)
    return (candidates[0][0], candidates[0][1]) if candidates else None


def _split_symbol(text: str, prefix: str, name: str) -> tuple[str, str]:
    if not prefix:
        return "", text
    definition = ureg._units[name]
    spellings = [definition.symbol, definition.name, *definition.aliases]
    for spelling in sorted((s for s in spellings if s), key=len, reverse=True):
        for written in (spelling, spelling + "s"):
            if text.endswith(written) and len(text) > len(written):
                return text[: -len(written)], written
    return text[:1], text[1:]


def _resolve_atom(text: str, power: int) -> UnitAtom:
    found = _lookup(text)
    if found is None:
        if text.startswith("K") and not text.startswith("Ki") and _lookup(text[1:]):
            rest = text[1:]
            if _dimensions_of(_lookup(rest)[1]) == (("[information]", 1),) or rest in ("Bps",):
                raise ResponseError(
                    f"'{text}' is ambiguous: write k{rest} for 1000 {rest} or Ki{rest} for "
                    f"1024 {rest}."
                )
            raise ResponseError(f"'{text}' is not a unit: kilo is a small k, as in k{rest}.")
        raise _unknown(text)
    prefix, name = found
    prefix_symbol, symbol = _split_symbol(text, prefix, name)
    dims = dict(_dimensions_of(name))
    if prefix and _prefix_scale(prefix) < 1 and set(dims) & _COUNT_DIMENSIONS:
        upper = prefix_symbol.upper() if prefix_symbol in ("m", "p") else None
        hint = f"did you mean '{upper}{symbol}'?" if upper else "check the prefix."
        raise ResponseError(
            f"'{text}' would be a fraction of a {name} (a {prefix}{name}): {hint} "
            "Prefixes are case-sensitive: M is mega, m is milli."
        )
    return UnitAtom(prefix, prefix_symbol, name, symbol, power)


@lru_cache(maxsize=256)
def _dimensions_of(name: str) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, int(v)) for k, v in ureg.get_dimensionality(name).items()))


@lru_cache(maxsize=64)
def _prefix_scale(prefix: str) -> Fraction:
    return exact(ureg._prefixes[prefix].converter.scale)


@lru_cache(maxsize=256)
def _root_factor(name: str) -> Fraction:
    return exact(ureg.get_root_units(name)[0])


_TOKEN = re.compile(
    r"\s*(?:(\*\*|\^)\s*(-?\d+)|([²³¹⁰⁴-⁹⁻]+)|(/|\*|·|⋅|\(|\))|([^/*·⋅()\s^²³¹⁰⁴-⁹⁻]+))"
)


def _tokenize(text: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            if text[position:].strip() == "":
                break
            raise ResponseError(f"Could not read the unit '{text}'.")
        position = match.end()
        power, superscript, operator, word = (
            match.group(2),
            match.group(3),
            match.group(4),
            match.group(5),
        )
        if power is not None:
            tokens.append(("power", int(power)))
        elif superscript is not None:
            digits = "".join(SUPERSCRIPTS.get(c, "?") for c in superscript)
            if not re.fullmatch(r"-?\d{1,2}", digits):
                raise ResponseError(f"Could not read the unit power in '{text}'.")
            tokens.append(("power", int(digits)))
        elif operator is not None:
            tokens.append((operator if operator in "/()" else "*", operator))
        elif word == "per":
            tokens.append(("/", word))
        else:
            tokens.append(("atom", word))
    return tokens


class _UnitParser:
    """Recursive descent over unit tokens.

    expr := term ('/' term)* ; term := factor (['*'] factor)* ; factor := atom [power] | (expr)
    """

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def take(self) -> tuple[str, object]:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expr(self) -> list[tuple[str, int]]:
        atoms = self.term()
        while self.peek() == "/":
            self.take()
            atoms += [(text, -power) for text, power in self.term()]
        return atoms

    def term(self) -> list[tuple[str, int]]:
        atoms = self.factor()
        while self.peek() in ("*", "atom", "("):
            if self.peek() == "*":
                self.take()
            atoms += self.factor()
        return atoms

    def factor(self) -> list[tuple[str, int]]:
        kind = self.peek()
        if kind == "(":
            self.depth += 1
            if self.depth > 3:
                raise ResponseError("Use fewer parentheses in the unit.")
            self.take()
            atoms = self.expr()
            if self.peek() != ")":
                raise ResponseError(f"Close the parenthesis in the unit '{self.text}'.")
            self.take()
            self.depth -= 1
        elif kind == "atom":
            atoms = [(self.take()[1], 1)]
        else:
            raise ResponseError(f"Could not read the unit '{self.text}'; write it as in GB/s.")
        if self.peek() == "power":
            power = self.take()[1]
            if not 0 < abs(power) <= 4:
                raise ResponseError("Unit powers must be between -4 and 4.")
            atoms = [(text, p * power) for text, p in atoms]
        return atoms

    def parse(self) -> list[tuple[str, int]]:
        atoms = self.expr()
        if self.index != len(self.tokens):
            raise ResponseError(f"Could not read the unit '{self.text}'; write it as in GB/s.")
        return atoms


@lru_cache(maxsize=512)
def parse_unit(text: str) -> ParsedUnit:
    """Parse a unit expression such as ``TB/s`` or ``FLOP/B``; raise ResponseError if unknown."""
    atoms = tuple(_resolve_atom(word, power) for word, power in _UnitParser(text).parse())
    factor = base = Fraction(1)
    dimensions: dict[str, int] = {}
    for atom in atoms:
        unit_factor = _root_factor(atom.name)
        prefix_factor = _prefix_scale(atom.prefix) if atom.prefix else Fraction(1)
        factor *= (unit_factor * prefix_factor) ** atom.power
        base *= unit_factor**atom.power
        for dim, power in _dimensions_of(atom.name):
            dimensions[dim] = dimensions.get(dim, 0) + power * atom.power
    dims = tuple(sorted((k, v) for k, v in dimensions.items() if v))
    return ParsedUnit(atoms, factor, base, dims)


def example_unit(unit: ParsedUnit) -> str:
    """A unit to suggest to the student: one fixed example per dimension ("TB/s" for any data
    rate), else the unit without its prefixes.

    Never derived from a value: this goes into feedback that costs no try, and a prefix taken
    from the correct answer ("for example GFLOP") would tell its magnitude for free.
    """
    return _DIMENSION_NAMES.get(unit.dimensions, (None, None))[1] or unit.base_text or unit.text


@dataclass(frozen=True)
class ParsedQuantity:
    """A number with an optional unit, as read from a response."""

    number: ParsedNumber
    unit: ParsedUnit | None

    @property
    def magnitude(self) -> Decimal:
        return to_decimal(self.number.value)

    @property
    def dimensions(self) -> tuple[tuple[str, int], ...]:
        return self.unit.dimensions if self.unit else ()

    def in_base_of(self, target: ParsedUnit | None) -> Fraction:
        """The exact value in the SI base of `target` (dimensions must already match)."""
        value = self.number.value * (self.unit.factor if self.unit else 1)
        return value / (target.base_factor if target else 1)


def parse_quantity(
    text: object, unit: str | None = None, *, like: ParsedUnit | None = None
) -> ParsedQuantity:
    """Read "2.1 GB/s"; with `unit` given, refuse a missing unit (but not a wrong dimension).

    `like`, the part's unit, picks the example of a refusal ("as in 2.1 TFLOP" for an amount of
    compute), so it names the dimension the unit hint beside the field already names."""
    cleaned = normalise(text, limit=MAX_NUMBER_LENGTH)
    dollar = re.match(r"([+-]?)\s*\$\s*", cleaned)
    if dollar:
        cleaned = dollar.group(1) + cleaned[dollar.end() :]
    if re.match(r"[^\W\d_]", cleaned):
        example = example_unit(like) if like is not None and like.dimensions else "GB/s"
        raise ResponseError(f"Write the number before the unit, as in 2.1 {example}.")
    number, rest = scan_number(cleaned)
    if dollar:
        if rest:
            raise ResponseError("Use either $ or a unit after the number, not both.")
        rest = "USD"
    parsed_unit = parse_unit(rest) if rest else None
    if unit is not None and parsed_unit is None:
        target = parse_unit(unit)
        if target.dimensions:
            example = example_unit(target)
            raise ResponseError(f"Add a unit, for example {example}.")
    return ParsedQuantity(number, parsed_unit)

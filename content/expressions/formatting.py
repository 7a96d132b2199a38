"""How a live value is written: the ``| UNIT | sig=2 | approx ...`` options and their output.

Numbers and quantities are formatted by ``content.physics`` (``format_number`` and
``format_quantity``), so a chapter and a question print a figure the same way.  This module only
reads the options, picks the formatter and adapts the result to math (``\\text{}`` units, and
``{,}`` for a thousands separator, which TeX would otherwise space as punctuation).
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MODES = ("number", "quantity", "percent", "ratio", "int", "text", "table", "aligned")
_FLAGS = {"%": "percent", "x": "ratio", "×": "ratio", "int": "int", "text": "text"}
_FLAGS.update({"table": "table", "aligned": "aligned"})


@dataclass(frozen=True)
class LiveFormat:
    """The parsed options of one live expression."""

    mode: str = "number"
    unit: str | None = None
    fixed: bool = False
    sig: int | None = None
    approx: bool = False


@functools.lru_cache(maxsize=1024)
def parse_options(options: str) -> LiveFormat:
    """Parse ``"B/s | sig=2 | approx"``; raise ValueError naming a bad option."""
    mode, unit, fixed, sig, approx = "number", None, False, None, False
    for raw in (part.strip() for part in options.split("|")) if options.strip() else ():
        if not raw:
            raise ValueError("empty option between bars")
        if raw == "approx":
            approx = True
        elif raw.startswith("sig"):
            match = re.fullmatch(r"sig\s*=\s*(\d+)", raw)
            if not match or not 1 <= int(match.group(1)) <= 12:
                raise ValueError(f"option '{raw}': write sig=N with N from 1 to 12")
            sig = int(match.group(1))
        elif raw in _FLAGS:
            mode = _set_mode(mode, _FLAGS[raw], raw)
        elif raw.startswith("in ") or raw == "in":
            unit, fixed = _checked_unit(raw[2:].strip(), raw), True
            mode = _set_mode(mode, "quantity", raw)
        else:
            unit = _checked_unit(raw, raw)
            mode = _set_mode(mode, "quantity", raw)
    return LiveFormat(mode, unit, fixed, sig, approx)


def _set_mode(current: str, new: str, raw: str) -> str:
    if current != "number" and current != new:
        raise ValueError(f"option '{raw}' conflicts with an earlier option ({current})")
    if current == new == "quantity":
        raise ValueError(f"option '{raw}': give one unit only")
    return new


# Set by the subject (``namespace.configure_subject``): the language formats no unit itself.
_SUBJECT: dict[str, Any] = {
    "format_number": None,
    "format_quantity": None,
    "check_unit": None,
    "group_digits": None,
}


def configure(*, format_number, format_quantity, check_unit=None, group_digits=None) -> None:
    """The subject's formatters, unit check and digit grouping (``namespace.configure_subject``)."""
    _SUBJECT.update(
        format_number=format_number,
        format_quantity=format_quantity,
        check_unit=check_unit,
        group_digits=group_digits,
    )


def _checked_unit(unit: str, raw: str) -> str:
    if not unit:
        raise ValueError(f"option '{raw}' needs a unit, e.g. 'in GB/s'")
    check = _SUBJECT["check_unit"]
    if check is None:
        return unit
    try:
        check(unit)
    except Exception:  # noqa: BLE001 - pint raises several unrelated types for bad units
        raise ValueError(
            f"unknown option or unit '{raw}' (options: sig=N, approx, in UNIT, %, x, int, text)"
        ) from None
    return unit


def _formatters(names: Mapping[str, object] | None) -> tuple[Any, Any]:
    number = names.get("format_number") if names else None
    quantity = names.get("format_quantity") if names else None
    if not (callable(number) and callable(quantity)):
        number, quantity = _SUBJECT["format_number"], _SUBJECT["format_quantity"]
        if number is None or quantity is None:
            raise ValueError("no number formatter: the subject has not been configured")
    return number, quantity


def format_value(
    value: Any,
    fmt: LiveFormat,
    *,
    in_math: bool = False,
    names: Mapping | None = None,
    group: bool = True,
) -> str:
    """Write ``value`` as ``fmt`` asks; raise ValueError or TypeError when it cannot.

    Numbers of four or more whole digits are grouped in threes ("1,024", "81,559"), except a
    value that says it is a label (``grouped = False``: a year); ``group=False`` leaves the bare
    digits (for text a parser reads back, such as a formula answer)."""
    if fmt.mode in ("table", "aligned") or _is_explanation(value):
        if in_math:
            raise ValueError("a worked explanation is a block: put it on its own line, not in math")
        return format_explanation(value, aligned=fmt.mode == "aligned", names=names)
    if fmt.mode == "text" or isinstance(value, str) or _has_name(value):
        text = _as_text(value)
        return _math_text(text) if in_math else text
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"the value is a {type(value).__name__}, not a number; try '| text'")
    if not math.isfinite(value):
        raise ValueError(f"the value is not finite ({value})")
    format_number, format_quantity = _formatters(names)
    sig = fmt.sig or 3
    group = group and getattr(value, "grouped", True)
    if fmt.mode == "quantity":
        # An explicit sig=N is the author's rounding, whole digits included ("9,500 tokens");
        # without it a whole part keeps every digit (1,365, not 1,370)
        rounding = {"round_whole": True} if _author_rounds(value, fmt) and not fmt.approx else {}
        text = format_quantity(
            value, fmt.unit, sig=sig, approx=fmt.approx, fixed=fmt.fixed, **rounding
        )
        text = text if group else _ungrouped(text)
        if in_math:
            return _math_quantity(text)
        # A price prints as "$3.20": outside math its dollar sign must not open math.
        return text.replace("$", "\\$")
    if fmt.mode == "int":
        text = str(round(value))
    elif fmt.mode == "percent":
        text = format_number(value * 100, sig) + ("\\%" if in_math else "%")
    elif fmt.mode == "ratio":
        # Ratios below ten read best with one decimal ("8.0×"), as the book writes them.
        digits = fmt.sig or (2 if abs(value) < 10 else 3)
        text = format_number(value, digits) + ("\\times" if in_math else "×")
    elif fmt.approx:
        # "About": the one place a large whole part is rounded (~15,900, not ~15,873).
        text = format_number(value, sig, approx=True)
    else:
        text = format_number(value, sig, **({"approx": True} if _author_rounds(value, fmt) else {}))
    text = _grouped(text) if group else _ungrouped(text)
    if in_math:
        text = math_separators(text)
    if fmt.approx:
        text = ("\\sim " if in_math else "~") + text
    return text


def _author_rounds(value, fmt: LiveFormat) -> bool:
    """An explicit ``sig=N`` rounds a whole part too ("about 9,500 tokens"), except for an exact
    integer, which prints in full whatever its type (1,024 FLOP/byte, never 1,000)."""
    return fmt.sig is not None and not float(value).is_integer()


def _grouped(text: str) -> str:
    group_digits = _SUBJECT["group_digits"]
    return group_digits(text) if group_digits else text


def _ungrouped(text: str) -> str:
    number, space, rest = text.partition(" ")
    return number.replace(",", "") + space + rest


def math_separators(text: str) -> str:
    """A thousands comma as TeX writes it inside a number: "81,559" -> "81{,}559"."""
    return re.sub(r"(?<=\d),(?=\d{3})", "{,}", text)


def _has_name(value: Any) -> bool:
    from content.expressions.policy import is_catalog_object

    return is_catalog_object(value) and isinstance(getattr(value, "name", None), str)


def _as_text(value: Any) -> str:
    if _has_name(value):
        return value.name
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (str, numbers.Real)):
        return str(value)
    raise TypeError(f"a {type(value).__name__} cannot be written as text")


def _math_text(text: str) -> str:
    escaped = re.sub(r"([#$%&_{}])", r"\\\1", text)
    return "\\text{" + escaped + "}"


def _math_quantity(text: str) -> str:
    """``"~990 TFLOP/s"`` -> ``"\\sim 990\\,\\text{TFLOP/s}"``."""
    approx = text.startswith("~")
    body = text[1:] if approx else text
    number, _, unit = body.strip().partition(" ")
    number = math_separators(number.replace("×", "\\times ").replace("−", "-"))
    out = number + ("\\,\\text{" + unit.strip() + "}" if unit.strip() else "")
    return ("\\sim " if approx else "") + out


def _is_explanation(value: Any) -> bool:
    return hasattr(value, "steps") and hasattr(value, "title") and not isinstance(value, type)


def _cell(value: Any, names: Mapping | None) -> str:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        format_number, _ = _formatters(names)
        return format_number(value, 3)
    return str(value).replace("|", "\\|")


def format_explanation(explanation: Any, *, aligned: bool = False, names: Mapping | None = None):
    """A worked table (default) or a LaTeX ``aligned`` block of ``explain(...)``'s steps.

    A step's ``formula`` and ``substituted`` are LaTeX and its ``result`` plain text, as the
    physics module's explainers write them.
    """
    if not _is_explanation(explanation):
        raise TypeError("'| table' and '| aligned' need the result of explain(...)")
    if aligned:
        rows = [
            f"\\text{{{_latex_text(s.label)}}}: \\quad {s.formula} &= {s.substituted} "
            f"= \\text{{{_latex_text(_cell(s.result, names))}}}"
            for s in explanation.steps
        ]
        body = " \\\\\n".join(rows)
        return f"$$\n\\begin{{aligned}}\n{body}\n\\end{{aligned}}\n$$"
    lines = [
        f"**{explanation.title}**",
        "",
        "| step | formula | with the numbers | result |",
        "| --- | --- | --- | --- |",
    ]
    for step in explanation.steps:
        cells = (
            _cell(step.label, names),
            _math_cell(step.formula),
            _math_cell(step.substituted),
            _cell(step.result, names),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _math_cell(latex: Any) -> str:
    text = str(latex).strip()
    return f"${text}$".replace("|", "\\vert ") if text else ""


def _latex_text(text: str) -> str:
    return re.sub(r"([#$%&_{}])", r"\\\1", text)

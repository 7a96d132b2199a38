"""Grading numeric answers with units (Contract 2, numbers).

Policies:

- `expected` is in the SI base of `unit` (unit "TB/s" or "B/s": expected in B/s).  It is taken
  as the value the author meant (`numbers.declared`: a whole-valued float exactly, any other to
  15 significant digits, so 1.005×100 computed as 100.49999999999999 is 100.5), and tolerances
  as the decimals they print as (``0.01`` is one hundredth); every check is then exact.
- Window mode (default): correct when |response - expected| <= rtol·|expected| + atol, the
  bound included.  No absolute tolerance unless the template sets one.
- `sigfigs` / `decimals` replace the window: the response and the answer are both rounded
  (half up, i.e. halves away from zero) and must then be equal.  Significant figures do not
  depend on the prefix; decimal places are counted in the template's `unit` as written
  ("TB/s" with decimals=2 means 3.35 TB/s), since they are meaningless in B/s.
- `factor` (order-of-magnitude estimates) replaces the window too: correct when the response
  has the answer's sign and lies between expected/factor and expected·factor.
- After the answer come the template's `common_errors` (each within its own rtol, default the
  part's), then the generic slips of `diagnosis`.
- On a plain number (a count), the field's shorthand ``7B``, ``1.5T``, ``70 K`` reads as
  7×10⁹, 1.5×10¹², 7×10⁴ (`shorthand`); a trailing ``m`` is refused as ambiguous.
- A missing unit is "invalid" (no attempt lost); a readable answer of the wrong dimension is
  "incorrect" with diagnosis ``wrong-dimension`` and says which dimension was expected.
- A fault of the question itself (a `unit` the grader cannot read, an `expected` that is not a
  finite number) is "invalid" too, never an exception: the student loses no attempt and the
  feedback names the fault for the author (validation reports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .diagnosis import data_prefix_power, diagnose_ratio, slip_tolerance
from .numbers import declared, exact, format_number, round_decimals, round_sigfigs
from .quantities import (
    ParsedQuantity,
    ParsedUnit,
    describe_dimensions,
    example_unit,
    parse_quantity,
    parse_unit,
)
from .results import CommonError, Grade, ResponseError, correct, incorrect, invalid
from .shorthand import read_count


def _question_fault(what: str) -> str:
    return (
        f"This part cannot be graded: {what}. The fault is in the question, not in your answer; "
        "please report it."
    )


def _within(value: Fraction, want: Fraction, rtol: Fraction, atol: Fraction) -> bool:
    return abs(value - want) <= rtol * abs(want) + atol


def _wrong_dimension(quantity: ParsedQuantity, target: ParsedUnit | None):
    got, _ = describe_dimensions(quantity.dimensions)
    read = f"{format_number(quantity.number.value)} {quantity.unit.text}"
    if target is None:
        return incorrect(
            f"The question asks for a plain number without a unit, but {read} is {got}.",
            "wrong-dimension",
            interpreted=read,
        )
    wanted, _ = describe_dimensions(target.dimensions)
    example = example_unit(target)
    return incorrect(
        f"The question asks for {wanted} (for example in {example}), but {read} is {got}.",
        "wrong-dimension",
        interpreted=read,
    )


def _binary_power(quantity: ParsedQuantity, target: ParsedUnit | None, want: Fraction):
    """The data prefix level for the binary-versus-decimal slip, or None when not data."""
    if target is None or not any(dim == "[information]" for dim, _ in target.dimensions):
        return None
    typed = [
        atom.prefix_symbol
        for atom in (quantity.unit.atoms if quantity.unit else ())
        if atom.name in ("byte", "bit")
    ]
    if not typed and target.dimensions not in (
        (("[information]", 1),),
        (("[information]", 1), ("[time]", -1)),
    ):
        return None
    return data_prefix_power(typed, want)


def _precision_hint(quantity: ParsedQuantity, sigfigs: int | None) -> str:
    written = quantity.number.sigfigs
    if sigfigs and written is not None and written < sigfigs:
        return f" Give the answer to {sigfigs} significant figures."
    return ""


def grade_numeric(
    response: str,
    expected: float,
    *,
    unit: str | None = None,
    rtol: float = 0.01,
    atol: float = 0.0,
    sigfigs: int | None = None,
    decimals: int | None = None,
    factor: float | None = None,
    common_errors: Sequence[CommonError] = (),
) -> Grade:
    """Grade a numeric response against `expected` (SI base units of `unit`); never raises."""
    try:
        return _grade_numeric(
            response, expected, unit, rtol, atol, sigfigs, decimals, factor, common_errors
        )
    except Exception:  # noqa: BLE001 - a student must get a grade, never a stack trace
        return invalid("This answer could not be read; write it as a number and a unit.")


def _grade_numeric(response, expected, unit, rtol, atol, sigfigs, decimals, factor, common_errors):
    try:
        target = parse_unit(unit) if unit else None
    except (ValueError, TypeError) as error:
        return invalid(_question_fault(f"its unit {unit!r} cannot be read ({error})"))
    try:
        want = declared(expected)
    except (ValueError, TypeError):
        return invalid(_question_fault(f"its answer {expected!r} is not a finite number"))
    tolerance, absolute = exact(rtol), exact(atol)
    target_dims = target.dimensions if target else ()
    try:
        count = read_count(response) if not target_dims else None
        quantity = count or parse_quantity(response, like=target)
    except ResponseError as error:
        return invalid(error.message)
    if quantity.dimensions != target_dims:
        if quantity.unit is None:
            return invalid(f"Add a unit, for example {example_unit(target)}.")
        return _wrong_dimension(quantity, target)
    value = quantity.in_base_of(target)
    shown = f"{format_number(value)} {target.base_text if target else ''}".strip()
    extra = {"interpreted": shown, "value": float(value)}

    if factor is not None:
        k = exact(factor)
        ok = value * want > 0 and abs(want) / k <= abs(value) <= abs(want) * k
    elif sigfigs is not None or decimals is not None:
        ok = True
        if sigfigs is not None:
            ok = round_sigfigs(value, sigfigs) == round_sigfigs(want, sigfigs)
        if decimals is not None:
            scale = target.factor / target.base_factor if target else Fraction(1)
            ok = ok and round_decimals(value / scale, decimals) == round_decimals(
                want / scale, decimals
            )
    else:
        ok = _within(value, want, tolerance, absolute)
    if ok:
        return correct(**extra)

    for error in common_errors:
        if isinstance(error.value, str):
            continue
        named = declared(error.value)
        error_rtol = exact(error.rtol if error.rtol is not None else rtol)
        if named and want and named / want > 0:
            # like the generic slips: never more than a quarter of the way back to the answer
            error_rtol = min(error_rtol, slip_tolerance(named / want, 1))
        if _within(value, named, error_rtol, absolute):
            return incorrect(error.feedback, error.code, **extra)

    slip = diagnose_ratio(value, want, rtol, binary_power=_binary_power(quantity, target, want))
    if slip:
        return incorrect(slip[1], slip[0], **extra)
    hint = _precision_hint(quantity, sigfigs)
    return incorrect("This is not the expected value; check your calculation." + hint, **extra)

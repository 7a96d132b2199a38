"""The bridge between stored rows and the pure question engine.

Everything that turns a `TemplateVersion` into a parsed template, a `Variant` row into the
engine's variant, or a raw answer into a grade goes through here, so the workflows never touch
engine internals. (What the browser sees is built in `quizzes.presenters.display`.)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from quizzes import engine, grading
from quizzes.engine import kinds


def max_answer_length(kind: str | None) -> int:
    """The longest answer a part of `kind` accepts: its kind's limit (the grader's own), so the
    input box, the server's refusal and the grader never disagree."""
    return kinds.max_answer_length(kind)


def too_long_message(text: str, kind: str | None) -> str | None:
    """Why `text` is too long for a part of `kind`, or None when it fits."""
    return kinds.too_long_message(text, kind)


class QuestionUnavailable(Exception):
    """A stored template version no longer parses or renders (a bank error, not the student's)."""


# -- parsing and variants -------------------------------------------------------------------


@lru_cache(maxsize=512)
def _parsed(source: str, origin: str):
    return engine.parse_template(source, source=origin)


def template_for(version) -> Any:
    """The parsed engine template of a `TemplateVersion` (parsed once per process)."""
    try:
        return _parsed(version.source, f"{version.title} (v{version.number})")
    except Exception as error:  # noqa: BLE001 - a broken version must not crash a page
        raise QuestionUnavailable(str(error)) from error


# How long drawing one student's variant may take before the start is refused (a template
# fault the instructor is told of), rather than the student waiting on it.
STUDENT_DRAW_SECONDS = 5.0


def new_variant_fields(version, seed: bytes) -> dict[str, Any]:
    """Generate the variant for `seed` and return the `Variant` row fields that store it whole.

    `parameters` holds the drawn values (catalog entries by key); `answers` holds the rest of
    `engine.Variant.to_json()` (answers per part, common-error values, option order), so
    `engine_variant` rebuilds exactly the same variant without the template.
    """
    # A published version passed the gate, its extremes included; the deadline still stops a
    # draw loop that an unlucky seed would make long (each draw is bounded by the functions'
    # argument limits), so no student's start waits on it for more than a few seconds.
    deadline = time.monotonic() + STUDENT_DRAW_SECONDS
    generated = engine.generate_variant(template_for(version), seed, deadline=deadline)
    data = generated.to_json()
    return {
        "seed": seed.hex(),
        "parameters": data.pop("params"),
        "answers": data,
        "outcome": data.get("outcome") or "",
    }


def engine_variant(row) -> Any:
    """The engine's variant for a stored `Variant` row, from its stored JSON alone."""
    return engine.Variant.from_json({**row.answers, "params": row.parameters})


def catalog_stamp(row) -> str:
    """A short name for the catalog figures a stored variant shows: its snapshot's digest, or
    the live catalog's fingerprint for a variant stored before snapshots (which reads it)."""
    return engine.catalog_digest((row.answers or {}).get("catalog"))


def option_token(row, part_id: str, option_id: str) -> str:
    """What the browser sees of a choice option: an opaque name, different in every variant, so
    no option id ("right", "b-correct") tells a student anything in the page's source."""
    import hashlib
    import hmac

    from django.conf import settings

    message = f"option|{row.pk}|{part_id}|{option_id}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()
    return f"o{digest[:12]}"


def option_ids_by_token(row, part_id: str) -> dict[str, str]:
    """{token: option id} of a part of a stored variant (its options as stored, no parse)."""
    order = (row.answers or {}).get("option_order", {}).get(part_id) or []
    return {option_token(row, part_id, option_id): option_id for option_id in order}


def correct_answers(row) -> dict[str, Any]:
    """Correct answer per part id (float, formula text or option ids); server side only."""
    return dict(row.answers.get("answers", {}))


def common_error_values(row) -> dict[str, dict[str, float]]:
    return {k: dict(v) for k, v in row.answers.get("common_errors", {}).items()}


def part_kind(row, part_id: str) -> str | None:
    """The kind name of one part of a stored variant, or None when it has no such part."""
    answer_kind = kind_of(row, part_id)
    return answer_kind.name if answer_kind is not None else None


def kind_of(row, part_id: str) -> kinds.AnswerKind | None:
    """The answer kind (``quizzes.engine.kinds``) of one part, or None when there is none."""
    template = template_for(row.version)
    try:
        return kinds.kind_for(template.part(part_id))
    except KeyError:
        return None


def part_points(row) -> dict[str, float]:
    return {part.id: float(part.points) for part in template_for(row.version).parts}


# -- grading ---------------------------------------------------------------------------------


def grade(row, part_id: str, raw: str | list[str], *, earlier: Mapping[str, float]):
    """The engine's grade of `raw` for one part, with earlier part values for carry-forward;
    the part's kind decides which grader runs and whether under the pool's limits."""
    template = template_for(row.version)
    return engine.grade_part(template, engine_variant(row), part_id, raw, earlier=dict(earlier))


def preview(row, part_id: str, raw: str) -> tuple[str, bool, str]:
    """How a formula answer will be read: (plain text or why it cannot be read, ok, LaTeX)."""
    part = template_for(row.version).part(part_id)
    variables = {name: domain for name, domain in part.variables}
    result = grading.preview_formula(raw, variables)
    if not result.ok:
        return result.error or "This formula cannot be read.", False, ""
    return result.interpreted or "", True, result.latex or ""


def formula_latex(raw: str, variables) -> str:
    """LaTeX of a readable formula answer (for showing it as math), or "" when it is not."""
    if not raw or len(raw) > kinds.MAX_ANSWER_LENGTH:
        return ""
    try:
        result = grading.preview_formula(raw, list(variables))
    except Exception:  # noqa: BLE001 - a display nicety; the graded text is shown instead
        return ""
    return (result.latex or "") if result.ok else ""


def saved_state(row, part_id: str, raw: str) -> tuple[str, str]:
    """("saved" | "empty" | "unreadable", what the student is told) for an exam's saved text."""
    if not (raw or "").strip():
        return "empty", "No answer saved yet."
    try:
        readable, text = read_back(row, part_id, raw)
    except QuestionUnavailable:
        return "saved", ""
    return ("saved" if readable else "unreadable"), text


def read_back(row, part_id: str, raw: str) -> tuple[bool, str]:
    """How an exam answer will be read when it is graded, without grading it: (readable, text).

    "Read as 3.2 ms" (3200 us, in the part's base unit with a prefix; "Read as 26 Gbit = 3.25 GB"
    when the conversion is more than a moved decimal point), why it cannot be read, or the
    formula's reading. Nothing here depends on the correct answer, only on the part's unit or
    variables, which the question already shows."""
    text = (raw or "").strip()
    if not text:
        return False, "No answer saved yet."
    part = template_for(row.version).part(part_id)
    if part.kind not in ("numeric", "formula"):
        # Choices have nothing to read; other kinds (a range) are read by their own grader.
        return True, ""
    if part.kind == "formula":
        reading, ok, _ = preview(row, part_id, text)
        return ok, (f"Read as {reading}" if ok and reading else reading or "Saved.")
    from quizzes.grading.numbers import format_number
    from quizzes.grading.quantities import describe_dimensions, parse_quantity, parse_unit
    from quizzes.grading.results import ResponseError
    from quizzes.grading.shorthand import read_count

    try:
        target = parse_unit(part.unit) if part.unit else None
        dims = target.dimensions if target else ()
        quantity = (read_count(text) if not dims else None) or parse_quantity(text, like=target)
    except ResponseError as error:
        return False, f"Cannot be read: {error.message}"
    except (ValueError, TypeError):
        return False, "Cannot be read: write a number with its unit."
    if quantity.dimensions != dims:
        if quantity.unit is None:
            return False, "Cannot be read: add a unit."
        got, _ = describe_dimensions(quantity.dimensions)
        wanted = describe_dimensions(dims)[0] if dims else "a plain number"
        return False, f"Cannot be read as {wanted}: {text} is {got}."
    value = quantity.in_base_of(target)
    unit = target.base_text if target else ""
    try:
        from content.physics import format_quantity

        shown = format_quantity(float(value), unit) if unit else format_number(value)
    except (ValueError, KeyError):
        shown = f"{format_number(value)} {unit}".strip()
    typed = f"{format_number(quantity.number.value)} {_spelled(quantity.unit)}" if target else ""
    if typed and typed != shown and not _decimal_shift(quantity.unit.factor / target.base_factor):
        # Bits for bytes, GiB for GB: the shown number is not the typed one with its point
        # moved, so say what was typed as well ("26 Gbit = 3.25 GB").
        shown = f"{typed} = {shown}"
    return True, f"Read as {shown}"


def _decimal_shift(ratio) -> bool:
    """Whether a unit conversion factor is a power of ten (ms to s, TB to B, FLOP/B to FLOP/B)."""
    whole = ratio.numerator if ratio.denominator == 1 else ratio.denominator
    if min(ratio.numerator, ratio.denominator) != 1:
        return False
    digits = str(whole)
    return digits[0] == "1" and set(digits[1:]) <= {"0"}


def _spelled(unit) -> str:
    """A typed unit written for the readback, a bit spelled out ("Gbit", never "Gb")."""
    atoms = tuple(
        dataclasses.replace(atom, symbol="bit") if atom.symbol == "b" else atom
        for atom in unit.atoms
    )
    return dataclasses.replace(unit, atoms=atoms).text
